// The engines a handle can choose from, gathered from providers. Ids and
// names are unique across the registry, and every engine's knobs are checked
// when it is registered, so lookups later never meet an incoherent engine.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/graph/engine.hpp"

namespace tunekit::graph {

// Where a registered engine came from: its provider and that provider's
// catalogue version (declared, or derived from the descriptors as
// "derived:<xxh3 hex>"). Engines added alone have provider "".
struct EngineOrigin {
  std::string provider;
  std::string catalogue_version;
};

// "derived:<16 hex digits>" over the ids, names and knobs of engines.
std::string derive_catalogue_version(const std::vector<std::shared_ptr<const Engine>>& engines);

class EngineRegistry {
 public:
  // Registers every engine of provider, or none: INVALID_VALUE when an id or
  // a name is already taken (by this provider or an earlier one), when an id
  // is negative, a name is empty, or a knob is incoherent or declared twice.
  Error add_provider(const EngineProvider& provider);
  Error add_engine(std::shared_ptr<const Engine> engine);

  // In registration order.
  const std::vector<std::shared_ptr<const Engine>>& engines() const noexcept { return engines_; }
  const Engine* find(std::int64_t id) const noexcept;
  const Engine* find(std::string_view name) const noexcept;
  std::size_t size() const noexcept { return engines_.size(); }
  // The origin of a registered engine; null when the id is not registered.
  const EngineOrigin* origin(std::int64_t id) const noexcept;

 private:
  Error check(const std::vector<std::shared_ptr<const Engine>>& candidates) const;
  std::vector<std::shared_ptr<const Engine>> engines_;
  std::vector<EngineOrigin> origins_;  // parallel to engines_
};

}  // namespace tunekit::graph
