// XXH3 hashes (64 and 128 bit) over canonical bytes. CanonicalHasher builds
// the bytes field by field with fixed widths, little-endian integers and
// length-prefixed strings, so two different field sequences never produce
// the same byte stream and signatures are identical on every platform.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace tunekit::core {

struct Hash128 {
  std::uint64_t low = 0;
  std::uint64_t high = 0;

  // 32 lower-case hex digits, high half first.
  std::string to_hex() const;
  friend bool operator==(const Hash128&, const Hash128&) = default;
};

std::uint64_t hash64(std::span<const std::byte> bytes, std::uint64_t seed = 0) noexcept;
Hash128 hash128(std::span<const std::byte> bytes, std::uint64_t seed = 0) noexcept;
std::uint64_t hash64(std::string_view text, std::uint64_t seed = 0) noexcept;
Hash128 hash128(std::string_view text, std::uint64_t seed = 0) noexcept;

// 16 lower-case hex digits.
std::string to_hex(std::uint64_t value);

class CanonicalHasher {
 public:
  CanonicalHasher();
  ~CanonicalHasher();
  CanonicalHasher(const CanonicalHasher&) = delete;
  CanonicalHasher& operator=(const CanonicalHasher&) = delete;

  CanonicalHasher& add_string(std::string_view text);  // length, then bytes
  CanonicalHasher& add_int(std::int64_t value);        // 8 bytes little-endian
  CanonicalHasher& add_uint(std::uint64_t value);      // 8 bytes little-endian
  CanonicalHasher& add_double(double value);          // IEEE bits; -0.0 and every NaN canonicalised
  CanonicalHasher& add_bool(bool value);              // one byte
  CanonicalHasher& add_bytes(std::span<const std::byte> bytes);  // length, then bytes

  std::uint64_t digest64() const noexcept;
  Hash128 digest128() const noexcept;

 private:
  void append(const void* data, std::size_t size);
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tunekit::core
