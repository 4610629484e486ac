// Layer and RMS normalization (and RMS backward): X is [N, ...], normalized
// over every dim but the first; SCALE and BIAS are [1, ...] and the saved
// statistics [N, 1, ...].
#include <fmt/format.h>

#include "op_check.hpp"

namespace tunekit::graph::detail {

Error validate_norm(const OpCheck& check) {
  const OperationKind kind = check.op().kind;
  if (kind == OperationKind::LAYERNORM) {
    TUNEKIT_RETURN_IF_ERROR(check.ports({"X", "SCALE", "BIAS"}, {}, {"Y"}, {"MEAN", "INV_VARIANCE"}));
    TUNEKIT_RETURN_IF_ERROR(check.attributes({{"epsilon", AttributeType::DOUBLE, true}}));
  } else if (kind == OperationKind::RMSNORM) {
    TUNEKIT_RETURN_IF_ERROR(check.ports({"X", "SCALE"}, {}, {"Y"}, {"INV_RMS"}));
    TUNEKIT_RETURN_IF_ERROR(check.attributes({{"epsilon", AttributeType::DOUBLE, true}}));
  } else {
    TUNEKIT_RETURN_IF_ERROR(check.ports({"DY", "X", "SCALE", "INV_RMS"}, {}, {"DX", "DSCALE"}, {}));
    TUNEKIT_RETURN_IF_ERROR(check.attributes({}));
  }
  TUNEKIT_RETURN_IF_ERROR(check.rank_at_least("X", 2));
  TUNEKIT_RETURN_IF_ERROR(check.floating("X"));
  if (auto epsilon = check.op().double_attribute("epsilon"); epsilon && !(*epsilon > 0.0)) {
    return check.fail(fmt::format("attribute 'epsilon' must be positive, got {}", *epsilon));
  }
  const auto& x = check.dims("X");
  std::vector<std::int64_t> parameter = x;
  parameter[0] = 1;
  std::vector<std::int64_t> statistics(x.size(), 1);
  statistics[0] = x[0];

  for (const char* port : {"Y", "DY", "DX"}) {
    if (check.tensor(port)) TUNEKIT_RETURN_IF_ERROR(check.dims_equal(port, x));
  }
  for (const char* port : {"SCALE", "BIAS", "DSCALE"}) {
    if (check.tensor(port)) TUNEKIT_RETURN_IF_ERROR(check.dims_equal(port, parameter));
  }
  for (const char* port : {"MEAN", "INV_VARIANCE", "INV_RMS"}) {
    if (check.tensor(port)) TUNEKIT_RETURN_IF_ERROR(check.dims_equal(port, statistics));
  }
  return Error::ok();
}

}  // namespace tunekit::graph::detail
