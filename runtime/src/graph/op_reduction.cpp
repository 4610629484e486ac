// Reduction: Y has X's rank; every dim of Y is X's dim (kept) or 1 (reduced).
#include <fmt/format.h>

#include "op_check.hpp"

namespace tunekit::graph::detail {

Error validate_reduction(const OpCheck& check) {
  TUNEKIT_RETURN_IF_ERROR(check.ports({"X"}, {}, {"Y"}, {}));
  TUNEKIT_RETURN_IF_ERROR(check.attributes({{"mode", AttributeType::STRING, true}}));
  const std::string mode = *check.op().string_attribute("mode");
  if (!parse_reduction_mode(mode)) return check.fail(fmt::format("unknown reduction mode '{}'", mode));
  TUNEKIT_RETURN_IF_ERROR(check.rank_at_least("X", 1));
  const auto& x = check.dims("X");
  TUNEKIT_RETURN_IF_ERROR(check.rank("Y", x.size()));
  const auto& y = check.dims("Y");
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (y[i] != x[i] && y[i] != 1) {
      return check.fail_port("Y", fmt::format("dim {} is {}; a reduction keeps X's {} or reduces it to 1", i, y[i], x[i]));
    }
  }
  return Error::ok();
}

}  // namespace tunekit::graph::detail
