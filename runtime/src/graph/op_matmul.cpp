// Matmul: C[..., M, N] = A[..., M, K] x B[..., K, N] with broadcast batch dims.
#include <fmt/format.h>

#include <algorithm>

#include "op_check.hpp"

namespace tunekit::graph::detail {

Error validate_matmul(const OpCheck& check) {
  TUNEKIT_RETURN_IF_ERROR(check.ports({"A", "B"}, {}, {"C"}, {}));
  TUNEKIT_RETURN_IF_ERROR(check.attributes({}));
  TUNEKIT_RETURN_IF_ERROR(check.rank_at_least("A", 2));
  const std::size_t rank = check.dims("A").size();
  TUNEKIT_RETURN_IF_ERROR(check.rank("B", rank));
  TUNEKIT_RETURN_IF_ERROR(check.rank("C", rank));
  for (const char* port : {"A", "B", "C"}) TUNEKIT_RETURN_IF_ERROR(check.floating(port));
  TUNEKIT_RETURN_IF_ERROR(check.same_type("B", "A"));

  const auto& a = check.dims("A");
  const auto& b = check.dims("B");
  const std::int64_t m = a[rank - 2];
  const std::int64_t k = a[rank - 1];
  if (b[rank - 2] != k) {
    return check.fail_port("B", fmt::format("dim {} is {} but A has K = {}", rank - 2, b[rank - 2], k));
  }
  std::vector<std::int64_t> expected(rank);
  for (std::size_t i = 0; i + 2 < rank; ++i) {
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1) {
      return check.fail_port("B", fmt::format("batch dim {} is {}, which does not broadcast with A's {}", i, b[i], a[i]));
    }
    expected[i] = std::max(a[i], b[i]);
  }
  expected[rank - 2] = m;
  expected[rank - 1] = b[rank - 1];
  return check.dims_equal("C", expected);
}

}  // namespace tunekit::graph::detail
