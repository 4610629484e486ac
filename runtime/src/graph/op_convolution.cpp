// Convolutions: forward (X, W -> Y), data gradient (DY, W -> DX) and weight
// gradient (X, DY -> DW), NC + spatial layout, with padding, stride, dilation
// and groups: `groups` independent convolutions side by side, each of C /
// groups input and K / groups output channels, so W is [K, C / groups, ...].
#include <fmt/format.h>

#include "op_check.hpp"
#include "tunekit/core/checked_math.hpp"

namespace tunekit::graph::detail {
namespace {

// A list attribute with one entry per spatial dim, or `fill` repeated.
Result<std::vector<std::int64_t>> spatial_list(const OpCheck& check, const char* name, std::size_t spatial,
                                               std::int64_t fill, std::int64_t minimum) {
  const auto* list = check.op().list_attribute(name);
  if (!list) return std::vector<std::int64_t>(spatial, fill);
  if (list->size() != spatial) {
    return check.fail(fmt::format("attribute '{}' has {} entries, expected {} (one per spatial dim)", name,
                                  list->size(), spatial));
  }
  for (std::int64_t v : *list) {
    if (v < minimum) return check.fail(fmt::format("attribute '{}' has {}, below the minimum {}", name, v, minimum));
  }
  return *list;
}

}  // namespace

Error validate_convolution(const OpCheck& check) {
  const OperationKind kind = check.op().kind;
  const char* x = kind == OperationKind::CONV_DGRAD ? "DX" : "X";
  const char* w = kind == OperationKind::CONV_WGRAD ? "DW" : "W";
  const char* y = kind == OperationKind::CONV_FPROP ? "Y" : "DY";
  if (kind == OperationKind::CONV_FPROP) TUNEKIT_RETURN_IF_ERROR(check.ports({"X", "W"}, {}, {"Y"}, {}));
  if (kind == OperationKind::CONV_DGRAD) TUNEKIT_RETURN_IF_ERROR(check.ports({"DY", "W"}, {}, {"DX"}, {}));
  if (kind == OperationKind::CONV_WGRAD) TUNEKIT_RETURN_IF_ERROR(check.ports({"X", "DY"}, {}, {"DW"}, {}));
  TUNEKIT_RETURN_IF_ERROR(check.attributes({{"padding", AttributeType::LIST},
                                            {"stride", AttributeType::LIST},
                                            {"dilation", AttributeType::LIST},
                                            {"groups", AttributeType::INT, false}}));
  TUNEKIT_RETURN_IF_ERROR(check.rank_at_least(x, 3));
  const std::size_t rank = check.dims(x).size();
  TUNEKIT_RETURN_IF_ERROR(check.rank(w, rank));
  TUNEKIT_RETURN_IF_ERROR(check.rank(y, rank));
  for (const char* port : {x, w, y}) TUNEKIT_RETURN_IF_ERROR(check.floating(port));
  TUNEKIT_RETURN_IF_ERROR(check.same_type(w, x));

  const std::size_t spatial = rank - 2;
  auto padding = spatial_list(check, "padding", spatial, 0, 0);
  if (!padding.ok()) return padding.error();
  auto stride = spatial_list(check, "stride", spatial, 1, 1);
  if (!stride.ok()) return stride.error();
  auto dilation = spatial_list(check, "dilation", spatial, 1, 1);
  if (!dilation.ok()) return dilation.error();

  const auto& xd = check.dims(x);
  const auto& wd = check.dims(w);
  const std::int64_t groups = check.op().int_attribute("groups").value_or(1);
  if (groups < 1) return check.fail(fmt::format("attribute 'groups' is {}; it must be at least 1", groups));
  if (xd[1] % groups != 0 || wd[0] % groups != 0) {
    return check.fail(fmt::format("attribute 'groups' is {}: it must divide both {}'s {} channels and {}'s {} filters",
                                  groups, x, xd[1], w, wd[0]));
  }
  if (wd[1] * groups != xd[1]) {
    if (groups == 1) return check.fail_port(w, fmt::format("has {} input channels but {} has {}", wd[1], x, xd[1]));
    return check.fail_port(w, fmt::format("has {} input channels per group but {} has {} in {} groups ({} each)",
                                          wd[1], x, xd[1], groups, xd[1] / groups));
  }
  std::vector<std::int64_t> expected{xd[0], wd[0]};
  for (std::size_t s = 0; s < spatial; ++s) {
    // extent = input + 2 * padding - dilation * (filter - 1) - 1, checked:
    // padding and dilation come from the file and may be huge.
    const auto twice_padding = core::checked_mul(2, (*padding)[s]);
    const auto padded = twice_padding ? core::checked_add(xd[s + 2], *twice_padding) : std::nullopt;
    const auto reach = core::checked_mul((*dilation)[s], wd[s + 2] - 1);
    const auto extent = padded && reach ? core::checked_sub(*padded, *reach) : std::nullopt;
    if (!extent) {
      return check.fail(fmt::format("spatial dim {}: padding {} and dilation {} overflow 64-bit sizes", s,
                                    (*padding)[s], (*dilation)[s]));
    }
    if (*extent - 1 < 0) {
      return check.fail_port(w, fmt::format("spatial dim {} of the filter ({}) is larger than the padded input ({})", s,
                                            wd[s + 2], *padded));
    }
    expected.push_back((*extent - 1) / (*stride)[s] + 1);
  }
  return check.dims_equal(y, expected);
}

}  // namespace tunekit::graph::detail
