// Internal: the checker every operation kind's validation uses, so that all
// messages have one shape: "<kind> '<name>': <port> tensor '<t>' (uid N): <problem>".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/core/result.hpp"
#include "tunekit/graph/operation.hpp"

namespace tunekit::graph::detail {

enum class AttributeType { INT, DOUBLE, BOOL, STRING, LIST };

struct AttributeRule {
  std::string_view name;
  AttributeType type;
  bool required = false;
};

class OpCheck {
 public:
  OpCheck(const Operation& operation, std::size_t index) : op_(operation), index_(index) {}

  const Operation& op() const noexcept { return op_; }

  // Required ports must be present, optional ones may be; any other port is an error.
  Error ports(std::initializer_list<std::string_view> required_inputs,
              std::initializer_list<std::string_view> optional_inputs,
              std::initializer_list<std::string_view> required_outputs,
              std::initializer_list<std::string_view> optional_outputs) const;
  // Attributes must be among rules, of the rule's type, and present when required.
  Error attributes(std::initializer_list<AttributeRule> rules) const;

  Error fail(const std::string& problem) const;
  Error fail_port(std::string_view port, const std::string& problem) const;

  // Tensor of a port (input or output); null when absent.
  Tensor tensor(std::string_view port) const;
  const std::vector<std::int64_t>& dims(std::string_view port) const;
  Error rank(std::string_view port, std::size_t expected) const;
  Error rank_at_least(std::string_view port, std::size_t minimum) const;
  Error dims_equal(std::string_view port, const std::vector<std::int64_t>& expected) const;
  Error floating(std::string_view port) const;
  Error same_type(std::string_view port, std::string_view reference) const;

 private:
  const Operation& op_;
  std::size_t index_;
};

std::string dims_text(const std::vector<std::int64_t>& dims);

// One validator per kind or family, each in its own file.
Error validate_matmul(const OpCheck& check);
Error validate_convolution(const OpCheck& check);
Error validate_pointwise(const OpCheck& check);
Error validate_reduction(const OpCheck& check);
Error validate_batchnorm(const OpCheck& check);
Error validate_norm(const OpCheck& check);
Error validate_sdpa(const OpCheck& check);
Error validate_resample(const OpCheck& check);
Error validate_softmax(const OpCheck& check);

// Per-channel shape [1, C, 1, ...] of rank `rank`.
std::vector<std::int64_t> channel_shape(std::size_t rank, std::int64_t channels);

}  // namespace tunekit::graph::detail
