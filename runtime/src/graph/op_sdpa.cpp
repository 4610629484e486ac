// Scaled dot-product attention, forward and backward: Q [B, H, Sq, D],
// K [B, H, Skv, D], V [B, H, Skv, Dv], O [B, H, Sq, Dv], STATS [B, H, Sq, 1].
#include <fmt/format.h>

#include "op_check.hpp"

namespace tunekit::graph::detail {

Error validate_sdpa(const OpCheck& check) {
  const bool backward = check.op().kind == OperationKind::SDPA_BWD;
  if (backward) {
    TUNEKIT_RETURN_IF_ERROR(check.ports({"Q", "K", "V", "O", "DO", "STATS"}, {}, {"DQ", "DK", "DV"}, {}));
  } else {
    TUNEKIT_RETURN_IF_ERROR(check.ports({"Q", "K", "V"}, {}, {"O"}, {"STATS"}));
  }
  TUNEKIT_RETURN_IF_ERROR(check.attributes({{"scale", AttributeType::DOUBLE}, {"causal", AttributeType::BOOL}}));
  for (const char* port : {"Q", "K", "V"}) {
    TUNEKIT_RETURN_IF_ERROR(check.rank(port, 4));
    TUNEKIT_RETURN_IF_ERROR(check.floating(port));
  }
  const auto& q = check.dims("Q");
  const auto& k = check.dims("K");
  const auto& v = check.dims("V");
  if (k[0] != q[0] || k[1] != q[1] || k[3] != q[3]) {
    return check.fail_port("K", fmt::format("dims {} do not match Q {} in batch, heads and head size",
                                            dims_text(k), dims_text(q)));
  }
  if (v[0] != q[0] || v[1] != q[1] || v[2] != k[2]) {
    return check.fail_port("V", fmt::format("dims {} do not match Q's batch and heads and K's sequence length",
                                            dims_text(v)));
  }
  const std::vector<std::int64_t> o{q[0], q[1], q[2], v[3]};
  const std::vector<std::int64_t> stats{q[0], q[1], q[2], 1};
  TUNEKIT_RETURN_IF_ERROR(check.dims_equal("O", o));
  if (check.tensor("STATS")) TUNEKIT_RETURN_IF_ERROR(check.dims_equal("STATS", stats));
  if (backward) {
    TUNEKIT_RETURN_IF_ERROR(check.dims_equal("DO", o));
    TUNEKIT_RETURN_IF_ERROR(check.dims_equal("DQ", q));
    TUNEKIT_RETURN_IF_ERROR(check.dims_equal("DK", k));
    TUNEKIT_RETURN_IF_ERROR(check.dims_equal("DV", v));
  }
  return Error::ok();
}

}  // namespace tunekit::graph::detail
