// The persistent calibration cache: UpdateKernelTuningCache merges calibrated
// profiles into the cache file under an inter-process lock and replaces it
// atomically; LoadKernelTuningCache validates every entry alone and publishes
// the compatible ones in one registry generation. Both return reports, never
// throw, and neither starts a calibration.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/store/locked_update.hpp"
#include "tunekit/tuning/kernel_calibration_selection.hpp"
#include "tunekit/tuning/kernel_tuning_cache_file.hpp"
#include "tunekit/tuning/kernel_tuning_registry.hpp"

namespace tunekit::tuning {

// The cache file when no path is given: $TUNEKIT_CACHE_PATH when set and not
// empty, else $XDG_CACHE_HOME/tunekit/kernel_tuning.toml when XDG_CACHE_HOME
// is an absolute path, else $HOME/.cache/tunekit/kernel_tuning.toml.
// INVALID_VALUE naming the variables when none of them is usable.
Result<std::filesystem::path> default_cache_path();

struct KernelTuningCacheOptions {
  // The cache file; unset: default_cache_path().
  std::optional<std::filesystem::path> path;
  // Never write (update reports READ_ONLY) and never lock (a deployment cache
  // may live in a folder the process cannot write to).
  bool read_only = false;
  // Update: a new profile replaces an entry with the same complete key; when
  // false the stored entry is kept and the profile reported as kept.
  bool replace_existing = true;
  // Update: drop stored entries whose library, kernel, implementation,
  // element type and device have a registered schema, but under another
  // tuning ABI and none under theirs.
  bool prune_stale_abi = false;
  // Update: drop stored entries whose execution identity differs from
  // `execution` (the current one when unset).
  bool prune_execution_mismatch = false;
  // Update and export: accept keys without a registered schema, checking only
  // the entry's format. The `tunekit cache` tool, which links no kernels,
  // merges and prunes files this way; libraries keep the default.
  bool allow_unregistered_keys = false;
  // How long to wait for the inter-process lock (update: exclusive, load:
  // shared); the same default as every tunekit file writer.
  std::chrono::milliseconds lock_timeout = store::kWriterLockTimeout;
  // The registry whose schemas validate entries and into which load
  // publishes; null: KernelTuningRegistry::global().
  KernelTuningRegistry* registry = nullptr;
  // The execution that load matches entries against (and that
  // prune_execution_mismatch keeps); unset: detected for this process.
  std::optional<platform::CpuExecutionDescriptor> execution;
  // Load: an entry measured on this processor under this NUMA policy but
  // for another effective thread count loads too, as a calibrated profile
  // for its own execution. Resolution matches exact executions, so only a
  // session created for that thread count (TuningSessionOptions::threads)
  // resolves it: a program that runs at several thread counts loads the
  // calibrations of all of them at once. False: such an entry is
  // INCOMPATIBLE (field "effective_threads"), as an entry of another
  // processor always is.
  bool load_every_thread_count = true;
  // Test hook passed to store::write_file_atomically: runs after the new
  // file is complete and synced, just before it replaces the cache.
  std::function<void()> before_rename;
};

// One entry named in a report.
struct KernelTuningCacheEntryRef {
  KernelTuningCacheEntryKey key;
  std::string name;
  std::string reason;  // why it was kept, pruned, rejected or dropped; empty for written/replaced
  friend bool operator==(const KernelTuningCacheEntryRef&, const KernelTuningCacheEntryRef&) = default;
};

enum class KernelTuningCacheUpdateStatus {
  WRITTEN,    // the file was replaced
  UNCHANGED,  // the merged content equals the file's: nothing was written
  READ_ONLY,  // options.read_only: nothing was written
  REJECTED,   // a profile did not validate: nothing was written
  FAILED,     // no path, lock, read, move-aside or write failure: see `error`
};
std::string_view to_string(KernelTuningCacheUpdateStatus status) noexcept;  // "written", ...

struct KernelTuningCacheUpdateReport {
  std::filesystem::path path;
  KernelTuningCacheUpdateStatus status = KernelTuningCacheUpdateStatus::FAILED;
  Error error;  // FAILED: what went wrong; REJECTED: the first rejection

  std::vector<KernelTuningCacheEntryRef> written;   // new complete keys
  std::vector<KernelTuningCacheEntryRef> replaced;  // stored entries replaced by a profile
  std::vector<KernelTuningCacheEntryRef> kept;      // stored entries kept (replace_existing false)
  std::vector<KernelTuningCacheEntryRef> pruned;    // stored entries dropped by a prune option
  std::vector<KernelTuningCacheEntryRef> rejected;  // profiles that did not validate
  // Stored entries that could not be carried over: malformed (key unknown:
  // only the reason, with file position) or a later copy of a duplicated
  // complete key (the first copy is kept).
  std::vector<KernelTuningCacheEntryRef> dropped;
  std::size_t preserved = 0;  // stored entries carried over untouched
  // Where the previous file went when it could not be fully parsed; its
  // bytes are unchanged there.
  std::optional<std::filesystem::path> moved_aside;

  bool ok() const noexcept {
    return status == KernelTuningCacheUpdateStatus::WRITTEN || status == KernelTuningCacheUpdateStatus::UNCHANGED;
  }
  // "written /home/u/.cache/tunekit/kernel_tuning.toml: 2 written, 1 replaced, ..."
  std::string summary() const;
};

// Validates every profile against the schema of its key (registered in
// options.registry): a profile without a schema, with invalid parameters or
// with text that cannot be written is rejected, and a single rejection
// rejects the whole update (REJECTED, nothing written), as publication in
// the registry is all or nothing. Two profiles with one complete key: the
// later wins. Then, unless read_only, store::update_file_locked: creates the
// folder, takes the exclusive lock (removing temporary files left by killed
// writers), re-reads the file, merges, and replaces the file atomically. A
// lock held past options.lock_timeout is FAILED with a BAD_STATE error
// naming the file. A stored file that does not fully parse (TOML error, a
// malformed entry, a duplicated complete key) is first moved aside with
// store::move_aside_corrupt, and its well-formed entries (recovered piece by
// piece when the TOML is broken) are written back with the new ones. A file
// of a newer schema version is never touched (FAILED, NOT_SUPPORTED).
//
// A crash at any point leaves the previous file or the new one in place
// (plus possibly a moved-aside copy, or a hidden temporary file that the
// next update removes), never a mixture.
KernelTuningCacheUpdateReport UpdateKernelTuningCache(std::span<const CalibratedKernelProfile> profiles,
                                                      const KernelTuningCacheOptions& options = {});

// The same locked merge for entries taken from other cache files (`tunekit
// cache merge`): each entry keeps its recorded tunekit version. Entries are
// validated against registered schemas as profiles are, or by format alone
// with options.allow_unregistered_keys. With no entries this only prunes.
KernelTuningCacheUpdateReport MergeKernelTuningCacheEntries(std::span<const KernelTuningCacheEntry> entries,
                                                            const KernelTuningCacheOptions& options = {});

enum class KernelTuningCacheFileStatus {
  READ,                 // the file was read and its entries judged
  NOT_FOUND,            // no file: a normal first run, nothing published
  UNREADABLE,           // no usable path, or the file could not be read
  MALFORMED,            // the document as a whole does not parse: nothing published
  UNSUPPORTED_VERSION,  // written by a newer tunekit: nothing published
};
std::string_view to_string(KernelTuningCacheFileStatus status) noexcept;  // "read", "not_found", ...

enum class KernelTuningCacheEntryStatus {
  LOADED,        // published as a calibrated profile
  SKIPPED,       // the selection does not select its key
  INCOMPATIBLE,  // measured on another execution identity (`field` names the first difference)
  STALE_ABI,     // its key is registered only under another tuning ABI
  UNREGISTERED,  // no schema is registered for its key or any ABI of it
  INVALID,       // malformed, or its parameters fail the schema (`reason`)
  DUPLICATE,     // its complete key appears more than once: no copy is loaded
};
std::string_view to_string(KernelTuningCacheEntryStatus status) noexcept;  // "loaded", "stale_abi", ...

struct KernelTuningCacheEntryReport {
  std::size_t index = 0;  // position among the file's entries, from 0
  std::size_t line = 0;   // line of the entry (or of its problem); 0 when unknown
  std::optional<KernelTuningCacheEntryKey> key;  // unset when the entry did not parse
  std::string name;
  KernelTuningCacheEntryStatus status = KernelTuningCacheEntryStatus::INVALID;
  // INCOMPATIBLE: the identity field ("model", "effective_threads", ...);
  // INVALID: the field at fault when known.
  std::string field;
  std::string reason;
  // The effective threads the entry was measured for; 0 when it did not parse.
  std::uint32_t effective_threads = 0;
};

struct KernelTuningCacheLoadReport {
  std::filesystem::path path;
  KernelTuningCacheFileStatus file_status = KernelTuningCacheFileStatus::UNREADABLE;
  std::string file_reason;  // why the file was not read; empty when READ or NOT_FOUND
  // READ only: set when the TOML did not parse as a whole and the entries were
  // recovered piece by piece; why the whole did not ("<source>:<line>:<column>:
  // reason"). The damaged pieces are INVALID entries with their lines.
  std::string salvage_reason;
  std::vector<KernelTuningCacheEntryReport> entries;  // one per entry, in file order
  // Registered, selected keys that received no entry from this file for
  // options.execution (the detected one when unset): sessions for that
  // execution resolve them without a calibration. An entry loaded for
  // another thread count does not make its key present.
  std::vector<KernelTuningKey> missing;
  // The generation that published the loaded entries; nullopt when nothing
  // was published (no entry loaded).
  std::optional<std::uint64_t> published_generation;

  std::vector<const KernelTuningCacheEntryReport*> with_status(KernelTuningCacheEntryStatus status) const;
  std::size_t count(KernelTuningCacheEntryStatus status) const;
  // "read /path: 3 loaded (2 for 1 thread, 1 for 2 threads), 1 incompatible,
  // ...; 2 registered keys missing"
  std::string summary() const;
};

// Reads the cache under a shared lock (reading without it when the lock
// cannot be taken: writers replace the file by rename, so a read sees one
// whole version) through salvage_kernel_tuning_cache, as the updater and
// `tunekit cache` do, so the intact entries of a damaged file still load
// (`salvage_reason` says why the whole did not parse). A header that does not
// parse, or a file beyond the size limit, is MALFORMED and loads nothing.
// Every entry is judged alone, in this order: malformed or damaged →
// INVALID; not selected → SKIPPED; complete key repeated → DUPLICATE (every
// copy); key registered only under another ABI → STALE_ABI; no schema →
// UNREGISTERED; parameters failing the schema, or a name already used by
// another registered profile → INVALID; execution identity different from
// options.execution (or the detected one) → INCOMPATIBLE, where with
// options.load_every_thread_count (the default) the effective thread count
// is left out of the comparison. Diagnostics (cache sizes, core counts,
// affinity, quota) never make an entry incompatible. The LOADED entries are
// published together in one new generation of the registry, each whole and
// for the execution it was measured for; when publication fails they are
// reported INVALID with the registry's reason and nothing is published.
KernelTuningCacheLoadReport LoadKernelTuningCache(const KernelCalibrationSelection& selection = {},
                                                  const KernelTuningCacheOptions& options = {});

// The judging and publication of LoadKernelTuningCache on text already read
// (a deployment cache embedded in a program, tests, fuzzing); `source` names
// it in messages and in the report's path.
KernelTuningCacheLoadReport LoadKernelTuningCacheText(std::string_view text, std::string source,
                                                      const KernelCalibrationSelection& selection = {},
                                                      const KernelTuningCacheOptions& options = {});

}  // namespace tunekit::tuning
