// Resample (pooling and interpolation) forward: X [N, C, spatial...] to
// Y [N, C, out...] with out = (in + 2 * padding - window) / stride + 1.
#include <fmt/format.h>

#include "op_check.hpp"
#include "tunekit/core/checked_math.hpp"

namespace tunekit::graph::detail {

Error validate_resample(const OpCheck& check) {
  TUNEKIT_RETURN_IF_ERROR(check.ports({"X"}, {}, {"Y"}, {}));
  TUNEKIT_RETURN_IF_ERROR(check.attributes({{"mode", AttributeType::STRING, true},
                                            {"window", AttributeType::LIST, true},
                                            {"stride", AttributeType::LIST},
                                            {"padding", AttributeType::LIST}}));
  const std::string mode = *check.op().string_attribute("mode");
  if (!parse_resample_mode(mode)) return check.fail(fmt::format("unknown resample mode '{}'", mode));
  TUNEKIT_RETURN_IF_ERROR(check.rank_at_least("X", 3));
  TUNEKIT_RETURN_IF_ERROR(check.floating("X"));
  const auto& x = check.dims("X");
  const std::size_t spatial = x.size() - 2;
  const auto& window = *check.op().list_attribute("window");
  const auto* stride = check.op().list_attribute("stride");
  const auto* padding = check.op().list_attribute("padding");
  for (const auto& [name, list] : {std::pair{"window", &window}, std::pair{"stride", stride}, std::pair{"padding", padding}}) {
    if (list && list->size() != spatial) {
      return check.fail(fmt::format("attribute '{}' has {} entries, expected {} (one per spatial dim)", name,
                                    list->size(), spatial));
    }
  }
  std::vector<std::int64_t> expected{x[0], x[1]};
  for (std::size_t s = 0; s < spatial; ++s) {
    const std::int64_t w = window[s];
    const std::int64_t st = stride ? (*stride)[s] : 1;
    const std::int64_t p = padding ? (*padding)[s] : 0;
    if (w < 1 || st < 1 || p < 0) {
      return check.fail(fmt::format("spatial dim {}: window {} and stride {} must be positive, padding {} not negative",
                                    s, w, st, p));
    }
    // extent = input + 2 * padding - window, checked: padding comes from the file.
    const auto twice_padding = core::checked_mul(2, p);
    const auto padded = twice_padding ? core::checked_add(x[s + 2], *twice_padding) : std::nullopt;
    if (!padded) return check.fail(fmt::format("spatial dim {}: padding {} overflows 64-bit sizes", s, p));
    const std::int64_t extent = *padded - w;  // both positive: cannot overflow
    if (extent < 0) return check.fail_port("X", fmt::format("spatial dim {} is smaller than the window {}", s, w));
    expected.push_back(extent / st + 1);
  }
  return check.dims_equal("Y", expected);
}

}  // namespace tunekit::graph::detail
