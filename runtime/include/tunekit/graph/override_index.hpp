// The selection lookup over loaded override files. An exact entry (no -1 in
// dims or strides) beats a wildcard entry whatever their order; among
// equals the earlier file wins, then the earlier entry of that file. Exact
// entries are found by a hash of a canonical key (operation, criteria,
// tensors), so a lookup does not scan the files; wildcard entries of the
// operation are scanned in precedence order. An entry whose validators or
// engine do not fit the context is a miss for that entry only.
//
// Nearest tuned shape: when no entry matches and the context allows it, the
// exact entry of the same operation, criteria, tensor ids, ranks and stride
// order (each tensor's dims ordered by stride, largest first) nearest to the
// query stands in, if its distance is at most the context's limit. The
// distance is the sum over the entry's tensors' dims of |log2(query dim /
// entry dim)|: 1 for one dim twice or half the tuned one, 2 for one dim four
// times or two dims twice it. The smallest distance wins, among equals the
// entry that takes precedence.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tunekit/graph/engine_registry.hpp"
#include "tunekit/graph/override_file.hpp"
#include "tunekit/graph/override_query.hpp"

namespace tunekit::graph {

struct OverrideLookupContext {
  // When set, the entry's engine must be registered here (by name, else by
  // id) and its catalogue version must equal the entry's validator.
  const EngineRegistry* registry = nullptr;
  // When set, an entry validated for another device signature misses.
  std::optional<std::string> device_signature;
  // The largest distance at which the nearest tuned shape stands in; 0:
  // exact and wildcard entries only.
  double nearest_limit = 0;
};

struct OverrideMatch {
  const OverrideEntry* entry = nullptr;
  std::size_t file_index = 0;
  std::string file;
  bool exact = false;
  std::int64_t engine_id = -1;  // resolved in the registry, else the entry's id, else -1
  std::string engine_name;      // resolved in the registry, else the entry's name
  // Set when no entry matched and this entry is the nearest tuned shape: its
  // distance from the query (the tuned shape is entry->tensors).
  std::optional<double> nearest_distance;
};

struct OverrideMiss {
  std::string file;
  std::size_t entry_index = 0;
  std::string reason;
};

struct OverrideExplanation {
  std::optional<OverrideMatch> match;
  std::vector<OverrideMiss> misses;  // every entry that did not match, with why
};

class OverrideIndex {
 public:
  // files: earlier first (earlier files take precedence).
  explicit OverrideIndex(std::vector<OverrideFile> files);
  ~OverrideIndex();
  OverrideIndex(const OverrideIndex&) = delete;
  OverrideIndex& operator=(const OverrideIndex&) = delete;

  // The winning entry or nullopt. Validator misses are logged at debug level
  // with the expected and actual values.
  std::optional<OverrideMatch> lookup(const OverrideQuery& query, const OverrideLookupContext& context) const;
  // As lookup, and the reason every other entry missed (a scan: for tools).
  OverrideExplanation explain(const OverrideQuery& query, const OverrideLookupContext& context) const;

  const std::vector<OverrideFile>& files() const noexcept;
  std::size_t entry_count() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tunekit::graph
