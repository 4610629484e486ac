// Tensor attributes of an operation graph: uid, name, dims, strides, element
// type and whether the tensor is virtual (an intermediate that never leaves
// the graph, so it needs no buffer in the variant pack).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tunekit/core/data_type.hpp"
#include "tunekit/core/result.hpp"

namespace tunekit::graph {

class TensorAttributes {
 public:
  TensorAttributes() = default;

  // Fluent setters, so a tensor is described in one expression.
  TensorAttributes& set_uid(std::int64_t uid) { uid_ = uid; return *this; }
  TensorAttributes& set_name(std::string name) { name_ = std::move(name); return *this; }
  TensorAttributes& set_dim(std::vector<std::int64_t> dims) { dims_ = std::move(dims); return *this; }
  TensorAttributes& set_stride(std::vector<std::int64_t> strides) { strides_ = std::move(strides); return *this; }
  TensorAttributes& set_data_type(DataType type) { data_type_ = type; return *this; }
  TensorAttributes& set_is_virtual(bool is_virtual) { virtual_ = is_virtual; return *this; }
  // A graph output is a non-virtual tensor (the caller supplies its buffer).
  TensorAttributes& set_output(bool output) { virtual_ = !output; return *this; }

  bool has_uid() const noexcept { return uid_.has_value(); }
  std::int64_t get_uid() const noexcept { return uid_.value_or(-1); }
  const std::string& get_name() const noexcept { return name_; }
  const std::vector<std::int64_t>& get_dim() const noexcept { return dims_; }
  const std::vector<std::int64_t>& get_stride() const noexcept { return strides_; }
  // The element type, or nullopt when the graph's io data type applies.
  std::optional<DataType> get_data_type() const noexcept { return data_type_; }
  bool get_is_virtual() const noexcept { return virtual_; }

  // Sizes of a tensor with positive dims and strides, computed without
  // overflow: each is an INVALID_VALUE error naming the tensor and its dims
  // when the exact value does not fit in int64. validate() rejects such
  // tensors, so on a validated tensor all three succeed.
  //
  // Number of elements (product of dims; 1 for a rank-0 tensor).
  Result<std::int64_t> element_count() const;
  // Smallest buffer, in elements, that holds every addressed element:
  // 1 + sum((dim - 1) * stride). 0 when a dim is 0.
  Result<std::int64_t> span_elements() const;
  // span_elements() times the size of the data type, in bytes; an error
  // also when the data type is unset.
  Result<std::int64_t> span_bytes() const;

  // Row-major packed strides for dims (last dim has stride 1). A stride whose
  // product does not fit saturates at INT64_MAX (element_count() fails there).
  static std::vector<std::int64_t> packed_strides(const std::vector<std::int64_t>& dims);

  // "'name' (uid 3)" or "(uid 3)" for an unnamed tensor; used in messages.
  std::string describe() const;

 private:
  std::optional<std::int64_t> uid_;
  std::string name_;
  std::vector<std::int64_t> dims_;
  std::vector<std::int64_t> strides_;
  std::optional<DataType> data_type_;
  bool virtual_ = false;
};

using Tensor = std::shared_ptr<TensorAttributes>;

}  // namespace tunekit::graph
