// The double-precision oracle: an engine written to be plainly right, the
// result check's reference for the graphs the rank-2 reference engines do not
// run (batched matmuls, convolutions, normalizations, Softmax, reductions).
// It sums, normalizes and exponentiates in double, in plain loops on one
// thread, and is never a candidate: it stays out of the heuristic order
// (EngineDescriptor::oracle_only), so autotune() never times it and no
// heuristic picks it; a plan made for its id explicitly runs it.
#pragma once

#include <cstdint>

#include "tunekit/core/error.hpp"
#include "tunekit/graph/engine_registry.hpp"

namespace tunekit::engines {

inline constexpr std::int64_t kDoubleOracleEngine = 9010;  // "cpu_double_oracle", no knobs

// Provider "tunekit-oracle" with the one engine.
class OracleEngineProvider final : public graph::EngineProvider {
 public:
  OracleEngineProvider();
  std::string name() const override { return "tunekit-oracle"; }
  std::string catalogue_version() const override { return "oracle-1"; }
  std::vector<std::shared_ptr<const graph::Engine>> engines() const override { return engines_; }

 private:
  std::vector<std::shared_ptr<const graph::Engine>> engines_;
};

}  // namespace tunekit::engines
