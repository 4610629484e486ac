// Softmax: Y = exp(X) / sum of exp(X) along one dim (`axis`, default the
// last; a negative axis counts from the end), Y with X's dims and type.
#include <fmt/format.h>

#include "op_check.hpp"

namespace tunekit::graph::detail {

Error validate_softmax(const OpCheck& check) {
  TUNEKIT_RETURN_IF_ERROR(check.ports({"X"}, {}, {"Y"}, {}));
  TUNEKIT_RETURN_IF_ERROR(check.attributes({{"axis", AttributeType::INT, false}}));
  TUNEKIT_RETURN_IF_ERROR(check.rank_at_least("X", 1));
  TUNEKIT_RETURN_IF_ERROR(check.floating("X"));
  const auto& x = check.dims("X");
  const auto rank = static_cast<std::int64_t>(x.size());
  if (auto axis = check.op().int_attribute("axis"); axis && (*axis < -rank || *axis >= rank)) {
    return check.fail(fmt::format("attribute 'axis' is {}; X has rank {}, so it must lie in [{}, {}]", *axis, rank,
                                  -rank, rank - 1));
  }
  TUNEKIT_RETURN_IF_ERROR(check.dims_equal("Y", x));
  return check.same_type("Y", "X");
}

}  // namespace tunekit::graph::detail
