// Registration with uniqueness and knob checks; lookup by id and by name.
#include "tunekit/graph/engine_registry.hpp"

#include <fmt/format.h>

#include <set>

#include "tunekit/core/hash.hpp"

namespace tunekit::graph {

std::string derive_catalogue_version(const std::vector<std::shared_ptr<const Engine>>& engines) {
  core::CanonicalHasher hasher;
  hasher.add_uint(engines.size());
  for (const auto& engine : engines) {
    if (!engine) continue;
    const EngineDescriptor& d = engine->descriptor();
    hasher.add_int(d.id).add_string(d.name).add_uint(d.knobs.size());
    for (const Knob& knob : d.knobs) {
      hasher.add_string(knob.id).add_string(to_string(knob.type)).add_string(knob.default_value.to_text());
      hasher.add_string(knob.min_value ? knob.min_value->to_text() : "");
      hasher.add_string(knob.max_value ? knob.max_value->to_text() : "");
      hasher.add_int(knob.step.value_or(0)).add_uint(knob.allowed_values.size());
      for (const KnobValue& value : knob.allowed_values) hasher.add_string(value.to_text());
    }
  }
  return "derived:" + core::to_hex(hasher.digest64());
}

Error EngineRegistry::check(const std::vector<std::shared_ptr<const Engine>>& candidates) const {
  std::set<std::int64_t> ids;
  std::set<std::string, std::less<>> names;
  for (const auto& engine : engines_) {
    ids.insert(engine->descriptor().id);
    names.insert(engine->descriptor().name);
  }
  for (const auto& engine : candidates) {
    if (!engine) return {ErrorCode::INVALID_VALUE, "engine registry: a provider returned a null engine"};
    const EngineDescriptor& d = engine->descriptor();
    if (d.id < 0) return {ErrorCode::INVALID_VALUE, fmt::format("engine registry: engine '{}' has a negative id {}", d.name, d.id)};
    if (d.name.empty()) return {ErrorCode::INVALID_VALUE, fmt::format("engine registry: engine id {} has an empty name", d.id)};
    if (!ids.insert(d.id).second) {
      return {ErrorCode::INVALID_VALUE, fmt::format("engine registry: engine id {} ('{}') is already registered", d.id, d.name)};
    }
    if (!names.insert(d.name).second) {
      return {ErrorCode::INVALID_VALUE, fmt::format("engine registry: engine name '{}' is already registered", d.name)};
    }
    std::set<std::string> knob_ids;
    for (const auto& knob : d.knobs) {
      if (Error error = validate_knob(knob); error.is_bad()) {
        return {ErrorCode::INVALID_VALUE, fmt::format("engine registry: engine '{}': {}", d.name, error.message())};
      }
      if (!knob_ids.insert(knob.id).second) {
        return {ErrorCode::INVALID_VALUE, fmt::format("engine registry: engine '{}' declares knob '{}' twice", d.name, knob.id)};
      }
    }
  }
  return Error::ok();
}

Error EngineRegistry::add_provider(const EngineProvider& provider) {
  std::vector<std::shared_ptr<const Engine>> engines = provider.engines();
  TUNEKIT_RETURN_IF_ERROR(check(engines));
  std::string version = provider.catalogue_version();
  if (version.empty()) version = derive_catalogue_version(engines);
  engines_.insert(engines_.end(), engines.begin(), engines.end());
  origins_.resize(engines_.size(), EngineOrigin{provider.name(), version});
  return Error::ok();
}

Error EngineRegistry::add_engine(std::shared_ptr<const Engine> engine) {
  TUNEKIT_RETURN_IF_ERROR(check({engine}));
  origins_.push_back(EngineOrigin{"", derive_catalogue_version({engine})});
  engines_.push_back(std::move(engine));
  return Error::ok();
}

const Engine* EngineRegistry::find(std::int64_t id) const noexcept {
  for (const auto& engine : engines_) {
    if (engine->descriptor().id == id) return engine.get();
  }
  return nullptr;
}

const EngineOrigin* EngineRegistry::origin(std::int64_t id) const noexcept {
  for (std::size_t i = 0; i < engines_.size(); ++i) {
    if (engines_[i]->descriptor().id == id) return &origins_[i];
  }
  return nullptr;
}

const Engine* EngineRegistry::find(std::string_view name) const noexcept {
  for (const auto& engine : engines_) {
    if (engine->descriptor().name == name) return engine.get();
  }
  return nullptr;
}

}  // namespace tunekit::graph
