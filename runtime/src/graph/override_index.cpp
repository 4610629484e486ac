// The override lookup: entries grouped by operation; exact entries hashed
// by a canonical key under their schema (which criteria and tensors they
// name, and which tensors carry strides), wildcard entries kept in
// precedence order; validators and engines checked against the context.
#include "tunekit/graph/override_index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <unordered_map>

#include "tunekit/core/excerpt.hpp"
#include "tunekit/core/hash.hpp"
#include "tunekit/core/log.hpp"

namespace tunekit::graph {
namespace {

struct Slot {
  std::size_t file = 0;
  const OverrideEntry* entry = nullptr;
};

// Earlier file first; within a file the earlier entry first, as hipDNN's
// reader takes the first match.
bool precedes(const Slot& a, const Slot& b) {
  return a.file != b.file ? a.file < b.file : a.entry->index < b.entry->index;
}

// Canonical bytes: fixed-width integers and length-prefixed strings, built
// in a per-thread buffer so that a lookup does not allocate.
class KeyBytes {
 public:
  KeyBytes() : bytes_(buffer()) { bytes_.clear(); }
  void add(std::int64_t value) { bytes_.append(reinterpret_cast<const char*>(&value), sizeof value); }
  void add(std::string_view text) {
    add(static_cast<std::int64_t>(text.size()));
    bytes_.append(text.data(), text.size());
  }
  void add(const std::vector<std::int64_t>& values) {
    add(static_cast<std::int64_t>(values.size()));
    for (std::int64_t v : values) add(v);
  }
  std::uint64_t hash() const { return core::hash64(std::string_view(bytes_)); }

 private:
  static std::string& buffer() {
    thread_local std::string bytes;
    return bytes;
  }
  std::string& bytes_;
};

// An entry or a query without the data_type criterion describes a float
// graph (the entries hipDNN writes, and tunekit's float ones, carry none):
// matching reads it as data_type 1, so that a float entry never stands in
// for a bfloat16 graph of the same dims, nor the other way round.
const std::string kDataType(kDataTypeCriterion);
const std::int64_t kFloatDataType = data_type_criterion_code(DataType::FLOAT);

// The value of criterion `name` for matching; nullopt when absent (and not data_type).
std::optional<std::int64_t> criterion(const std::map<std::string, std::int64_t>& criteria, const std::string& name) {
  if (auto it = criteria.find(name); it != criteria.end()) return it->second;
  if (name == kDataType) return kFloatDataType;
  return std::nullopt;
}

// The criteria an entry is matched by, sorted: its own, and data_type when
// it names none.
std::vector<std::string> matched_criteria(const OverrideEntry& entry) {
  std::vector<std::string> names;
  for (const auto& [name, value] : entry.criteria) names.push_back(name);
  if (!entry.criteria.contains(kDataType)) names.insert(std::lower_bound(names.begin(), names.end(), kDataType), kDataType);
  return names;
}

struct TensorShape {
  std::string id;  // empty for positional entries
  bool has_strides = false;
  friend bool operator==(const TensorShape&, const TensorShape&) = default;
};

struct Schema {
  bool positional = false;
  std::vector<std::string> criteria;  // sorted
  std::vector<TensorShape> tensors;   // by id (version 2) or by position (version 1)
  std::unordered_map<std::uint64_t, std::vector<Slot>> exact;

  bool same_shape(const Schema& other) const {
    return positional == other.positional && criteria == other.criteria && tensors == other.tensors;
  }
};

struct OpGroup {
  std::vector<Schema> schemas;
  std::vector<Slot> wildcards;  // in precedence order
};

// The entry's tensors in key order: by id for version 2, as given for version 1.
std::vector<const OverrideTensor*> key_order(const OverrideEntry& entry) {
  std::vector<const OverrideTensor*> order;
  for (const auto& t : entry.tensors) order.push_back(&t);
  if (!entry.positional) {
    std::sort(order.begin(), order.end(),
              [](const OverrideTensor* a, const OverrideTensor* b) { return a->tensor_id < b->tensor_id; });
  }
  return order;
}

Schema schema_of(const OverrideEntry& entry) {
  Schema schema;
  schema.positional = entry.positional;
  schema.criteria = matched_criteria(entry);
  for (const OverrideTensor* t : key_order(entry)) schema.tensors.push_back({t->tensor_id, t->strides.has_value()});
  return schema;
}

std::uint64_t entry_key(const OverrideEntry& entry) {
  KeyBytes key;
  key.add(entry.op);
  for (const std::string& name : matched_criteria(entry)) {
    key.add(name);
    key.add(*criterion(entry.criteria, name));
  }
  key.add(std::int64_t{entry.positional ? 1 : 2});
  for (const OverrideTensor* t : key_order(entry)) {
    key.add(t->tensor_id);
    key.add(t->dims);
    if (t->strides) key.add(*t->strides);
  }
  return key.hash();
}

const OverrideQueryTensor* find_tensor(const OverrideQuery& query, const std::string& id) {
  for (const auto& t : query.tensors) {
    if (t.tensor_id == id) return &t;
  }
  return nullptr;
}

// The key query would have under schema; nullopt when it lacks a criterion or tensor.
std::optional<std::uint64_t> query_key(const Schema& schema, const OverrideQuery& query) {
  KeyBytes key;
  key.add(query.op);
  for (const std::string& name : schema.criteria) {
    const std::optional<std::int64_t> value = criterion(query.criteria, name);
    if (!value) return std::nullopt;
    key.add(name);
    key.add(*value);
  }
  key.add(std::int64_t{schema.positional ? 1 : 2});
  for (std::size_t i = 0; i < schema.tensors.size(); ++i) {
    const TensorShape& shape = schema.tensors[i];
    const OverrideQueryTensor* t = schema.positional ? (i < query.tensors.size() ? &query.tensors[i] : nullptr)
                                                     : find_tensor(query, shape.id);
    if (!t) return std::nullopt;
    key.add(shape.id);
    key.add(t->dims);
    if (shape.has_strides) key.add(t->strides);
  }
  return key.hash();
}

bool fits(const std::vector<std::int64_t>& pattern, const std::vector<std::int64_t>& actual) {
  if (pattern.size() != actual.size()) return false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != kOverrideWildcard && pattern[i] != actual[i]) return false;
  }
  return true;
}

std::string text(const std::vector<std::int64_t>& values) { return fmt::format("{}", fmt::join(values, "x")); }

// Why entry does not describe query; nullopt when it does. Names from the
// file and the query are quoted through core::excerpt.
std::optional<std::string> mismatch(const OverrideEntry& entry, const OverrideQuery& query) {
  using core::excerpt;
  if (entry.op != query.op) return fmt::format("op '{}' is not '{}'", excerpt(entry.op), excerpt(query.op));
  for (const auto& [name, value] : entry.criteria) {
    const std::optional<std::int64_t> actual = criterion(query.criteria, name);
    if (!actual) return fmt::format("criterion {} is not a criterion of this operation", excerpt(name));
    if (*actual != value) return fmt::format("criterion {} is {}, the operation has {}", excerpt(name), value, *actual);
  }
  if (const std::int64_t type = *criterion(query.criteria, kDataType);
      !entry.criteria.contains(kDataType) && type != kFloatDataType) {
    return fmt::format("criterion data_type is {} (a float graph's: the entry names none), the operation has {}",
                       kFloatDataType, type);
  }
  for (std::size_t i = 0; i < entry.tensors.size(); ++i) {
    const OverrideTensor& t = entry.tensors[i];
    const std::string label =
        entry.positional ? fmt::format("tensor #{}", i) : fmt::format("tensor {}", excerpt(t.tensor_id));
    const OverrideQueryTensor* actual =
        entry.positional ? (i < query.tensors.size() ? &query.tensors[i] : nullptr) : find_tensor(query, t.tensor_id);
    if (!actual) return fmt::format("{} is not a tensor of the operation", label);
    if (!fits(t.dims, actual->dims)) return fmt::format("{} dims {} do not fit {}", label, text(t.dims), text(actual->dims));
    if (t.strides && !fits(*t.strides, actual->strides)) {
      return fmt::format("{} strides {} do not fit {}", label, text(*t.strides), text(actual->strides));
    }
  }
  return std::nullopt;
}

// The dims of a tensor ordered by stride, largest first (ties by position):
// what a change of extents leaves alone.
std::vector<std::size_t> stride_order(const std::vector<std::int64_t>& strides) {
  std::vector<std::size_t> order(strides.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return strides[a] > strides[b]; });
  return order;
}

// How far the exact entry's tensors are from the query's (the header's
// distance); nullopt when the entry cannot stand in for the query.
std::optional<double> shape_distance(const OverrideEntry& entry, const OverrideQuery& query) {
  if (entry.is_wildcard() || entry.op != query.op) return std::nullopt;
  for (const auto& [name, value] : entry.criteria) {
    if (criterion(query.criteria, name) != value) return std::nullopt;
  }
  if (!entry.criteria.contains(kDataType) && *criterion(query.criteria, kDataType) != kFloatDataType) return std::nullopt;
  double distance = 0;
  for (std::size_t i = 0; i < entry.tensors.size(); ++i) {
    const OverrideTensor& t = entry.tensors[i];
    const OverrideQueryTensor* actual =
        entry.positional ? (i < query.tensors.size() ? &query.tensors[i] : nullptr) : find_tensor(query, t.tensor_id);
    if (!actual || actual->dims.size() != t.dims.size()) return std::nullopt;
    if (t.strides && (actual->strides.size() != t.strides->size() || stride_order(*t.strides) != stride_order(actual->strides))) {
      return std::nullopt;
    }
    for (std::size_t d = 0; d < t.dims.size(); ++d) {
      if (t.dims[d] <= 0 || actual->dims[d] <= 0) return std::nullopt;
      distance += std::fabs(std::log2(static_cast<double>(actual->dims[d]) / static_cast<double>(t.dims[d])));
    }
  }
  return distance;
}

}  // namespace

struct OverrideIndex::Impl {
  std::vector<OverrideFile> files;
  std::unordered_map<std::string, OpGroup> ops;
  std::size_t count = 0;

  // Resolves the engine and checks validators; the reason when the entry misses.
  std::optional<std::string> check(const Slot& slot, const OverrideLookupContext& context, OverrideMatch& match) const {
    const OverrideEntry& e = *slot.entry;
    match.engine_id = e.engine_id.value_or(-1);
    match.engine_name = e.engine_name.value_or("");
    const Engine* engine = nullptr;
    if (context.registry) {
      engine = e.engine_name ? context.registry->find(*e.engine_name) : context.registry->find(*e.engine_id);
      if (!engine) return fmt::format("engine {} is not registered", e.describe_engine());
      if (e.engine_name && e.engine_id && engine->descriptor().id != *e.engine_id) {
        return fmt::format("engine '{}' has id {} here, the entry says {}", *e.engine_name, engine->descriptor().id,
                           *e.engine_id);
      }
      match.engine_id = engine->descriptor().id;
      match.engine_name = engine->descriptor().name;
    }
    if (!e.validators) return std::nullopt;
    const OverrideValidators& v = *e.validators;
    const std::string& file = files[slot.file].source;
    if (context.device_signature && !v.device_signature.empty() && v.device_signature != *context.device_signature) {
      log::debug("overrides: entry {} of {}: device signature mismatch: expected '{}', actual '{}'", e.index, file,
                 v.device_signature, *context.device_signature);
      return fmt::format("validated for device '{}' ({}), this device is '{}'", v.device_signature,
                         v.device_name.empty() ? "unnamed" : v.device_name, *context.device_signature);
    }
    if (engine && !v.engine_catalogue_version.empty()) {
      const EngineOrigin* origin = context.registry->origin(engine->descriptor().id);
      const std::string actual = origin ? origin->catalogue_version : std::string();
      if (actual != v.engine_catalogue_version) {
        log::debug("overrides: entry {} of {}: engine catalogue mismatch for '{}': expected '{}', actual '{}'", e.index,
                   file, engine->descriptor().name, v.engine_catalogue_version, actual);
        return fmt::format("validated for engine catalogue '{}', the registered catalogue is '{}'",
                           v.engine_catalogue_version, actual);
      }
    }
    return std::nullopt;
  }

  OverrideMatch make(const Slot& slot, bool exact, OverrideMatch match) const {
    match.entry = slot.entry;
    match.file_index = slot.file;
    match.file = files[slot.file].source;
    match.exact = exact;
    return match;
  }
};

OverrideIndex::OverrideIndex(std::vector<OverrideFile> files) : impl_(std::make_unique<Impl>()) {
  impl_->files = std::move(files);
  for (std::size_t f = 0; f < impl_->files.size(); ++f) {
    for (const OverrideEntry& entry : impl_->files[f].entries) {
      ++impl_->count;
      OpGroup& group = impl_->ops[entry.op];
      const Slot slot{f, &entry};
      if (entry.is_wildcard()) {
        group.wildcards.push_back(slot);
        continue;
      }
      Schema schema = schema_of(entry);
      auto found = std::find_if(group.schemas.begin(), group.schemas.end(),
                                [&](const Schema& s) { return s.same_shape(schema); });
      if (found == group.schemas.end()) {
        group.schemas.push_back(std::move(schema));
        found = group.schemas.end() - 1;
      }
      found->exact[entry_key(entry)].push_back(slot);
    }
  }
  for (auto& [op, group] : impl_->ops) {
    std::stable_sort(group.wildcards.begin(), group.wildcards.end(), precedes);
    for (Schema& schema : group.schemas) {
      for (auto& [key, slots] : schema.exact) std::stable_sort(slots.begin(), slots.end(), precedes);
    }
  }
}

OverrideIndex::~OverrideIndex() = default;

const std::vector<OverrideFile>& OverrideIndex::files() const noexcept { return impl_->files; }
std::size_t OverrideIndex::entry_count() const noexcept { return impl_->count; }

std::optional<OverrideMatch> OverrideIndex::lookup(const OverrideQuery& query,
                                                   const OverrideLookupContext& context) const {
  auto group = impl_->ops.find(query.op);
  if (group == impl_->ops.end()) return std::nullopt;
  std::optional<Slot> best;
  OverrideMatch best_match;
  for (const Schema& schema : group->second.schemas) {
    const std::optional<std::uint64_t> key = query_key(schema, query);
    if (!key) continue;
    auto hit = schema.exact.find(*key);
    if (hit == schema.exact.end()) continue;
    for (const Slot& slot : hit->second) {
      if (best && !precedes(slot, *best)) break;
      if (mismatch(*slot.entry, query)) continue;  // a hash collision
      OverrideMatch match;
      if (impl_->check(slot, context, match)) continue;
      best = slot;
      best_match = std::move(match);
      break;
    }
  }
  if (best) return impl_->make(*best, true, std::move(best_match));
  for (const Slot& slot : group->second.wildcards) {
    if (mismatch(*slot.entry, query)) continue;
    OverrideMatch match;
    if (impl_->check(slot, context, match)) continue;
    return impl_->make(slot, false, std::move(match));
  }
  if (!(context.nearest_limit > 0)) return std::nullopt;
  double best_distance = 0;
  for (const Schema& schema : group->second.schemas) {
    for (const auto& [key, slots] : schema.exact) {
      for (const Slot& slot : slots) {
        const std::optional<double> distance = shape_distance(*slot.entry, query);
        if (!distance || *distance > context.nearest_limit) continue;
        if (best && (*distance > best_distance || (*distance == best_distance && !precedes(slot, *best)))) continue;
        OverrideMatch match;
        if (impl_->check(slot, context, match)) continue;
        best = slot;
        best_distance = *distance;
        best_match = std::move(match);
      }
    }
  }
  if (!best) return std::nullopt;
  best_match.nearest_distance = best_distance;
  return impl_->make(*best, false, std::move(best_match));
}

OverrideExplanation OverrideIndex::explain(const OverrideQuery& query, const OverrideLookupContext& context) const {
  OverrideExplanation out;
  out.match = lookup(query, context);
  for (std::size_t f = 0; f < impl_->files.size(); ++f) {
    for (const OverrideEntry& entry : impl_->files[f].entries) {
      if (out.match && out.match->entry == &entry) continue;
      OverrideMiss miss{impl_->files[f].source, entry.index, {}};
      OverrideMatch ignored;
      if (auto reason = mismatch(entry, query)) {
        miss.reason = *reason;
        // Why its shape did not stand in, when the nearest shape was sought.
        const bool sought = context.nearest_limit > 0 && (!out.match || out.match->nearest_distance);
        const std::optional<double> distance = sought ? shape_distance(entry, query) : std::nullopt;
        if (distance && *distance > context.nearest_limit) {
          miss.reason += fmt::format("; its tuned shape is at distance {:.3g}, beyond the limit of {:.3g}", *distance,
                                     context.nearest_limit);
        } else if (distance) {
          OverrideMatch ignored;
          if (auto invalid = impl_->check(Slot{f, &entry}, context, ignored)) {
            miss.reason += fmt::format("; its tuned shape is at distance {:.3g}, but it is {}", *distance, *invalid);
          } else {
            miss.reason += fmt::format("; its tuned shape is at distance {:.3g}, and entry {} of {} is nearer or takes "
                                       "precedence",
                                       *distance, out.match->entry->index, out.match->file);
          }
        }
      } else if (auto invalid = impl_->check(Slot{f, &entry}, context, ignored)) {
        miss.reason = *invalid;
      } else if (out.match) {
        const char* why = out.match->exact && entry.is_wildcard() ? "an exact entry beats a wildcard entry"
                          : out.match->file_index != f             ? "an earlier file takes precedence"
                                                                   : "an earlier entry of the file takes precedence";
        miss.reason = fmt::format("matches, but entry {} of {} wins: {}", out.match->entry->index, out.match->file, why);
      } else {
        miss.reason = "matches";  // unreachable: lookup would have returned it
      }
      out.misses.push_back(std::move(miss));
    }
  }
  return out;
}

}  // namespace tunekit::graph
