// Batch normalization: training, inference and backward. X is [N, C, ...];
// per-channel tensors are [1, C, 1, ...].
#include <fmt/format.h>

#include "op_check.hpp"

namespace tunekit::graph::detail {

Error validate_batchnorm(const OpCheck& check) {
  const OperationKind kind = check.op().kind;
  const char* data = kind == OperationKind::BATCHNORM_BACKWARD ? "DY" : "X";
  std::vector<const char*> same_as_x;
  std::vector<const char*> per_channel;
  if (kind == OperationKind::BATCHNORM_TRAINING) {
    TUNEKIT_RETURN_IF_ERROR(check.ports({"X", "SCALE", "BIAS"}, {}, {"Y", "MEAN", "INV_VARIANCE"}, {}));
    TUNEKIT_RETURN_IF_ERROR(check.attributes({{"epsilon", AttributeType::DOUBLE, true},
                                              {"momentum", AttributeType::DOUBLE}}));
    same_as_x = {"Y"};
    per_channel = {"SCALE", "BIAS", "MEAN", "INV_VARIANCE"};
  } else if (kind == OperationKind::BATCHNORM_INFERENCE) {
    TUNEKIT_RETURN_IF_ERROR(check.ports({"X", "MEAN", "INV_VARIANCE", "SCALE", "BIAS"}, {}, {"Y"}, {}));
    TUNEKIT_RETURN_IF_ERROR(check.attributes({}));
    same_as_x = {"Y"};
    per_channel = {"MEAN", "INV_VARIANCE", "SCALE", "BIAS"};
  } else {
    TUNEKIT_RETURN_IF_ERROR(check.ports({"DY", "X", "SCALE", "MEAN", "INV_VARIANCE"}, {}, {"DX", "DSCALE", "DBIAS"}, {}));
    TUNEKIT_RETURN_IF_ERROR(check.attributes({}));
    same_as_x = {"X", "DX"};
    per_channel = {"SCALE", "MEAN", "INV_VARIANCE", "DSCALE", "DBIAS"};
  }
  TUNEKIT_RETURN_IF_ERROR(check.rank_at_least(data, 2));
  TUNEKIT_RETURN_IF_ERROR(check.floating(data));
  const auto& x = check.dims(data);
  if (auto epsilon = check.op().double_attribute("epsilon"); epsilon && !(*epsilon > 0.0)) {
    return check.fail(fmt::format("attribute 'epsilon' must be positive, got {}", *epsilon));
  }
  for (const char* port : same_as_x) TUNEKIT_RETURN_IF_ERROR(check.dims_equal(port, x));
  const auto channel = channel_shape(x.size(), x[1]);
  for (const char* port : per_channel) {
    TUNEKIT_RETURN_IF_ERROR(check.dims_equal(port, channel));
    TUNEKIT_RETURN_IF_ERROR(check.floating(port));
  }
  return Error::ok();
}

}  // namespace tunekit::graph::detail
