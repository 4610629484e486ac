// Fuzz target of the engine-override file reader. On any bytes: the reader
// returns instead of crashing; every entry index is either loaded or
// rejected, once, in increasing order; and the selection index built from
// what loaded finds, for each loaded entry, a matching entry of the same
// operation when queried with that entry's own shape (wildcards filled in),
// with explain() agreeing with lookup(). A broken invariant traps.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tunekit/core/log.hpp"
#include "tunekit/graph/override_index.hpp"

namespace {

using namespace tunekit;
using namespace tunekit::graph;

void require(bool condition) {
  if (!condition) __builtin_trap();
}

// A query that entry itself describes: -1 becomes 1, absent strides packed.
OverrideQuery query_for(const OverrideEntry& entry) {
  OverrideQuery q;
  q.op = entry.op;
  q.criteria = entry.criteria;
  for (std::size_t i = 0; i < entry.tensors.size(); ++i) {
    const OverrideTensor& t = entry.tensors[i];
    OverrideQueryTensor qt;
    qt.tensor_id = entry.positional ? 'P' + std::to_string(i) : t.tensor_id;
    for (std::int64_t d : t.dims) qt.dims.push_back(d == kOverrideWildcard ? 1 : d);
    qt.strides = t.strides ? *t.strides : TensorAttributes::packed_strides(qt.dims);
    for (std::int64_t& s : qt.strides) s = s == kOverrideWildcard ? 1 : s;
    q.tensors.push_back(std::move(qt));
  }
  return q;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool quiet = [] {
    log::set_level(log::Level::OFF);
    return true;
  }();
  (void)quiet;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<OverrideFile> file = parse_override_file(text, "fuzz");
  if (!file.ok()) {
    require(file.error().code() == ErrorCode::INVALID_VALUE);
    require(file.error().message().rfind("fuzz: ", 0) == 0);
    require(file.error().message().size() < 512);  // values in messages are cut
    return 0;
  }
  require(file->version == 1 || file->version == 2);
  std::size_t next = 0, loaded = 0, rejected = 0;
  while (loaded < file->entries.size() || rejected < file->rejected.size()) {
    const bool is_loaded = loaded < file->entries.size() && file->entries[loaded].index == next;
    const bool is_rejected = rejected < file->rejected.size() && file->rejected[rejected].index == next;
    require(is_loaded != is_rejected);
    if (is_loaded) {
      require(file->entries[loaded].positional == (file->version == 1));
      ++loaded;
    } else {
      require(!file->rejected[rejected].reason.empty());
      ++rejected;
    }
    ++next;
  }

  const std::vector<OverrideEntry> entries = file->entries;
  OverrideIndex index({std::move(file).value()});
  require(index.entry_count() == entries.size());
  for (const OverrideEntry& entry : entries) {
    if (entry.positional) continue;  // positional queries need the kind's port order
    const OverrideQuery query = query_for(entry);
    const auto match = index.lookup(query, {});
    require(match.has_value());
    require(match->entry->op == entry.op);
    require(match->exact || entry.is_wildcard());
    const OverrideExplanation explained = index.explain(query, {});
    require(explained.match && explained.match->entry == match->entry);
    require(explained.misses.size() + 1 == entries.size());
  }
  return 0;
}
