// Element counts, buffer spans and descriptions of tensor attributes.
#include "tunekit/graph/tensor.hpp"

#include <fmt/format.h>

namespace tunekit::graph {

std::int64_t TensorAttributes::element_count() const noexcept {
  std::int64_t count = 1;
  for (std::int64_t dim : dims_) count *= dim;
  return count;
}

std::int64_t TensorAttributes::span_elements() const noexcept {
  std::int64_t span = 1;
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i] == 0) return 0;
    const std::int64_t stride = i < strides_.size() ? strides_[i] : 0;
    span += (dims_[i] - 1) * stride;
  }
  return span;
}

std::vector<std::int64_t> TensorAttributes::packed_strides(const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> strides(dims.size(), 1);
  std::int64_t running = 1;
  for (std::size_t i = dims.size(); i-- > 0;) {
    strides[i] = running;
    running *= dims[i] > 0 ? dims[i] : 1;
  }
  return strides;
}

std::string TensorAttributes::describe() const {
  const std::string uid = uid_ ? fmt::format("uid {}", *uid_) : std::string("no uid");
  if (name_.empty()) return fmt::format("({})", uid);
  return fmt::format("'{}' ({})", name_, uid);
}

}  // namespace tunekit::graph
