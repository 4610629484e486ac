// Pointwise operations: one or two inputs (by mode), each broadcast to the
// output's dims (same rank, every dim equal or 1).
#include <fmt/format.h>

#include "op_check.hpp"

namespace tunekit::graph::detail {
namespace {

Error broadcasts(const OpCheck& check, const char* port, const std::vector<std::int64_t>& out) {
  const auto& in = check.dims(port);
  if (in.size() != out.size()) {
    return check.fail_port(port, fmt::format("rank {} differs from OUT_0's rank {}", in.size(), out.size()));
  }
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != out[i] && in[i] != 1) {
      return check.fail_port(port, fmt::format("dim {} is {}, which does not broadcast to OUT_0's {}", i, in[i], out[i]));
    }
  }
  return Error::ok();
}

}  // namespace

Error validate_pointwise(const OpCheck& check) {
  TUNEKIT_RETURN_IF_ERROR(check.attributes({{"mode", AttributeType::STRING, true}}));
  const std::string mode_name = *check.op().string_attribute("mode");
  const auto mode = parse_pointwise_mode(mode_name);
  if (!mode) return check.fail(fmt::format("unknown pointwise mode '{}'", mode_name));
  if (arity(*mode) == 2) {
    TUNEKIT_RETURN_IF_ERROR(check.ports({"IN_0", "IN_1"}, {}, {"OUT_0"}, {}));
  } else {
    if (check.op().inputs.count("IN_1") != 0) {
      return check.fail(fmt::format("mode '{}' takes one input but IN_1 is set", mode_name));
    }
    TUNEKIT_RETURN_IF_ERROR(check.ports({"IN_0"}, {}, {"OUT_0"}, {}));
  }
  TUNEKIT_RETURN_IF_ERROR(check.rank_at_least("OUT_0", 1));
  const auto& out = check.dims("OUT_0");
  TUNEKIT_RETURN_IF_ERROR(broadcasts(check, "IN_0", out));
  if (arity(*mode) == 2) TUNEKIT_RETURN_IF_ERROR(broadcasts(check, "IN_1", out));
  return Error::ok();
}

}  // namespace tunekit::graph::detail
