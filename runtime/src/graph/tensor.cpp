// Element counts, buffer spans and descriptions of tensor attributes. Sizes
// come from user input (graph files), so every product and sum is checked.
#include "tunekit/graph/tensor.hpp"

#include <fmt/format.h>

#include <limits>

#include "tunekit/core/checked_math.hpp"

namespace tunekit::graph {
namespace {

constexpr std::int64_t kLimit = std::numeric_limits<std::int64_t>::max();

Error too_large(const TensorAttributes& tensor, const std::string& problem) {
  return {ErrorCode::INVALID_VALUE, fmt::format("tensor {}: {}", tensor.describe(), problem)};
}

std::string strided(const TensorAttributes& tensor) {
  return fmt::format("dims [{}] with strides [{}]", fmt::join(tensor.get_dim(), ", "),
                     fmt::join(tensor.get_stride(), ", "));
}

}  // namespace

Result<std::int64_t> TensorAttributes::element_count() const {
  std::optional<std::int64_t> count = 1;
  for (std::int64_t dim : dims_) {
    if (dim == 0) return std::int64_t{0};  // exact even where the dims before it overflow
    if (count) count = core::checked_mul(*count, dim);
  }
  if (!count) {
    return too_large(*this, fmt::format("dims [{}] hold more than {} elements", fmt::join(dims_, ", "), kLimit));
  }
  return *count;
}

Result<std::int64_t> TensorAttributes::span_elements() const {
  std::optional<std::int64_t> span = 1;
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i] == 0) return std::int64_t{0};
    const std::int64_t stride = i < strides_.size() ? strides_[i] : 0;
    if (span) {
      const std::optional<std::int64_t> last = core::checked_sub(dims_[i], 1);
      const std::optional<std::int64_t> reach = last ? core::checked_mul(*last, stride) : std::nullopt;
      span = reach ? core::checked_add(*span, *reach) : std::nullopt;
    }
  }
  if (!span) return too_large(*this, fmt::format("{} span more than {} elements", strided(*this), kLimit));
  return *span;
}

Result<std::int64_t> TensorAttributes::span_bytes() const {
  Result<std::int64_t> span = span_elements();
  if (!span.ok()) return span.error();
  if (!data_type_) return too_large(*this, "the data type is not set, so its size in bytes is unknown");
  const std::optional<std::int64_t> bytes =
      core::checked_mul(*span, static_cast<std::int64_t>(core::size_of(*data_type_)));
  if (!bytes) {
    return too_large(*this, fmt::format("{} span {} elements of {}, more than {} bytes", strided(*this), *span,
                                        to_string(*data_type_), kLimit));
  }
  return *bytes;
}

std::vector<std::int64_t> TensorAttributes::packed_strides(const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> strides(dims.size(), 1);
  std::int64_t running = 1;
  for (std::size_t i = dims.size(); i-- > 0;) {
    strides[i] = running;
    running = core::checked_mul(running, dims[i] > 0 ? dims[i] : 1).value_or(kLimit);
  }
  return strides;
}

std::string TensorAttributes::describe() const {
  const std::string uid = uid_ ? fmt::format("uid {}", *uid_) : std::string("no uid");
  if (name_.empty()) return fmt::format("({})", uid);
  return fmt::format("'{}' ({})", name_, uid);
}

}  // namespace tunekit::graph
