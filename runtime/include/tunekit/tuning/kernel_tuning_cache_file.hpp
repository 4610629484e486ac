// The calibration cache file as data: one entry per complete key (tuning key
// plus execution identity), the deterministic TOML text entries are written
// as, and a reader that checks every entry on its own so that one malformed
// entry never hides the others. No locking, registry or schema here: see
// kernel_tuning_cache.hpp for the locked update and the validating load.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/tuning/tuning_profile.hpp"

namespace tunekit::tuning {

// The version this build reads and writes. A file with a higher version is
// refused as a whole (NOT_SUPPORTED), never rewritten.
inline constexpr std::int64_t kKernelTuningCacheSchemaVersion = 1;

// What identifies an entry: two entries with equal complete keys describe the
// same measurement and a file holds at most one of them.
struct KernelTuningCacheEntryKey {
  KernelTuningKey key;
  std::string execution_identity;  // platform::execution_identity_string
  // "tunekit_cpu/Gemm/blocked/float/cpu/abi1 @ x86_64|AMD|...|threads=8|numa=default"
  std::string to_string() const;
  friend bool operator==(const KernelTuningCacheEntryKey&, const KernelTuningCacheEntryKey&) = default;
  friend std::strong_ordering operator<=>(const KernelTuningCacheEntryKey&, const KernelTuningCacheEntryKey&) = default;
};

struct KernelTuningCacheEntry {
  std::string name;  // the calibrated profile's name; may be empty (the registry generates one)
  KernelTuningParameters parameters;
  platform::CpuExecutionDescriptor execution;  // identity fields plus recorded diagnostics
  std::string report_digest;
  std::string library_version;
  std::string tunekit_version;  // the tunekit that wrote the entry

  KernelTuningCacheEntryKey complete_key() const;
  CalibratedKernelProfile to_profile() const;
  // An entry for `profile`, stamped with this tunekit's version.
  static KernelTuningCacheEntry from_profile(const CalibratedKernelProfile& profile);

  friend bool operator==(const KernelTuningCacheEntry&, const KernelTuningCacheEntry&) = default;
};

// An entry the reader could not turn into a KernelTuningCacheEntry.
struct KernelTuningCacheEntryError {
  std::size_t index = 0;  // position among the file's entries, from 0
  std::string field;      // "entries[2].execution.effective_threads"
  std::string message;    // "-4 is outside 1..4294967295"
  std::size_t line = 0;   // 1-based source position; 0 when unknown
  std::size_t column = 0;
  // "<source>:12:3: entries[2].execution.effective_threads: -4 is outside 1..4294967295"
  std::string describe(std::string_view source) const;
};

struct ParsedKernelTuningCache {
  struct Item {
    std::size_t index = 0;  // position among the file's entries, from 0
    std::size_t line = 0;   // line of the entry's [[entries]] header
    KernelTuningCacheEntry entry;
  };
  std::string source;  // the file name used in messages
  std::int64_t schema_version = kKernelTuningCacheSchemaVersion;
  std::vector<Item> entries;                          // well-formed entries, in file order
  std::vector<KernelTuningCacheEntryError> malformed;  // the others, in file order
  // True when the document as a whole did not parse and the entries were
  // recovered piece by piece (salvage_kernel_tuning_cache only).
  bool salvaged = false;
  std::string document_error;  // why the whole document did not parse (salvaged only)
};

// Reads a whole cache document, strictly: the check that a file is intact
// (tests, the round trip of what was written). The result is an error
// (INVALID_VALUE, the message "<source>:<line>:<column>: <reason>") when the
// text is beyond store::TomlLimits (16 MiB, 64 parts per key, 64 nesting
// levels; checked before toml++ sees it), the TOML does not parse,
// `schema_version` is missing or not a positive integer, or `entries` is not
// an array of tables; NOT_SUPPORTED when schema_version is newer than this
// build's. Every entry is then checked on its own: types, ranges, known data
// type, device, CPU features and NUMA policy, unknown fields, and parameter
// values of the four scalar types. A bad entry goes to `malformed`; the
// others are returned. Schemas are not consulted.
Result<ParsedKernelTuningCache> parse_kernel_tuning_cache(std::string_view text, std::string source);

// The reader of cache files: the loader, the updater, export and every
// `tunekit cache` command read through it, so all of them recover the same
// entries from a damaged file and name the same damaged parts. As
// parse_kernel_tuning_cache, but when the document does not parse as TOML
// (or a part of it is beyond the key and nesting limits) it is cut before
// every line that starts with `[[entries]]` and each piece is checked and
// parsed alone, so a truncated or partly overwritten file still yields its
// intact entries (`salvaged` is then true; the pieces that fail are
// `malformed`, with the position in the whole file). The header piece must
// still parse and carry a supported schema_version, and the file must be
// within the size limit, otherwise nothing is recovered and the result is an
// error.
Result<ParsedKernelTuningCache> salvage_kernel_tuning_cache(std::string_view text, std::string source);

// The TOML text of `entries`, byte-identical for equal inputs: entries sorted
// by complete key, fields in a fixed order, parameters sorted by name, floats
// in shortest round-trip form that always reads back as a float (2.0).
// Callers pass at most one entry per complete key and only valid UTF-8 text.
std::string format_kernel_tuning_cache(std::vector<KernelTuningCacheEntry> entries);

// OK when the key fields are not empty, the thread counts are at least 1 and
// every text field (names, versions, digest, key fields, string values) is
// valid UTF-8; otherwise INVALID_VALUE naming the first offending field
// ("execution.effective_threads: must be at least 1, not 0").
Error check_writable(const KernelTuningCacheEntry& entry);

}  // namespace tunekit::tuning
