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

 private:
  Error check(const std::vector<std::shared_ptr<const Engine>>& candidates) const;
  std::vector<std::shared_ptr<const Engine>> engines_;
};

}  // namespace tunekit::graph
