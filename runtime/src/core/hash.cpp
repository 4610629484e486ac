// XXH3 through libxxhash; the streaming states of both widths are fed the
// same canonical bytes.
#include "tunekit/core/hash.hpp"

#include <xxhash.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace tunekit::core {

struct CanonicalHasher::State {
  XXH3_state_t* h64 = XXH3_createState();
  XXH3_state_t* h128 = XXH3_createState();
  State() {
    XXH3_64bits_reset(h64);
    XXH3_128bits_reset(h128);
  }
  ~State() {
    XXH3_freeState(h64);
    XXH3_freeState(h128);
  }
  State(const State&) = delete;
  State& operator=(const State&) = delete;
};

std::string Hash128::to_hex() const { return fmt::format("{:016x}{:016x}", high, low); }

std::string to_hex(std::uint64_t value) { return fmt::format("{:016x}", value); }

std::uint64_t hash64(std::span<const std::byte> bytes, std::uint64_t seed) noexcept {
  return XXH3_64bits_withSeed(bytes.data(), bytes.size(), seed);
}

Hash128 hash128(std::span<const std::byte> bytes, std::uint64_t seed) noexcept {
  XXH128_hash_t h = XXH3_128bits_withSeed(bytes.data(), bytes.size(), seed);
  return {h.low64, h.high64};
}

std::uint64_t hash64(std::string_view text, std::uint64_t seed) noexcept {
  return hash64(std::as_bytes(std::span(text.data(), text.size())), seed);
}

Hash128 hash128(std::string_view text, std::uint64_t seed) noexcept {
  return hash128(std::as_bytes(std::span(text.data(), text.size())), seed);
}

CanonicalHasher::CanonicalHasher() : state_(std::make_unique<State>()) {}
CanonicalHasher::~CanonicalHasher() = default;

void CanonicalHasher::append(const void* data, std::size_t size) {
  XXH3_64bits_update(state_->h64, data, size);
  XXH3_128bits_update(state_->h128, data, size);
}

CanonicalHasher& CanonicalHasher::add_uint(std::uint64_t value) {
  unsigned char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(value >> (8 * i));
  append(bytes, sizeof bytes);
  return *this;
}

CanonicalHasher& CanonicalHasher::add_int(std::int64_t value) {
  return add_uint(static_cast<std::uint64_t>(value));
}

CanonicalHasher& CanonicalHasher::add_double(double value) {
  if (value == 0.0) value = 0.0;  // folds -0.0 into +0.0
  if (std::isnan(value)) value = std::numeric_limits<double>::quiet_NaN();
  return add_uint(std::bit_cast<std::uint64_t>(value));
}

CanonicalHasher& CanonicalHasher::add_bool(bool value) {
  const unsigned char byte = value ? 1 : 0;
  append(&byte, 1);
  return *this;
}

CanonicalHasher& CanonicalHasher::add_string(std::string_view text) {
  add_uint(text.size());
  append(text.data(), text.size());
  return *this;
}

CanonicalHasher& CanonicalHasher::add_bytes(std::span<const std::byte> bytes) {
  add_uint(bytes.size());
  append(bytes.data(), bytes.size());
  return *this;
}

std::uint64_t CanonicalHasher::digest64() const noexcept { return XXH3_64bits_digest(state_->h64); }

Hash128 CanonicalHasher::digest128() const noexcept {
  XXH128_hash_t h = XXH3_128bits_digest(state_->h128);
  return {h.low64, h.high64};
}

}  // namespace tunekit::core
