// Sizes of the buffers a built graph needs, the memory-budget check over all
// of them, and their allocation once the check passed.
#include "tunekit/graph/graph_buffers.hpp"

#include <fmt/format.h>

#include <limits>
#include <string>

#include "tunekit/core/checked_math.hpp"

namespace tunekit::graph {

Result<std::vector<BufferSize>> graph_buffer_sizes(const OperationGraph& graph, std::int64_t workspace_bytes) {
  if (workspace_bytes < 0) {
    return Error(ErrorCode::INVALID_VALUE, fmt::format("the workspace size {} is negative", workspace_bytes));
  }
  std::vector<BufferSize> sizes;
  for (const Tensor& t : graph.tensors()) {
    if (t->get_is_virtual()) continue;
    Result<std::int64_t> bytes = t->span_bytes();
    if (!bytes.ok()) return bytes.error();
    sizes.push_back({"tensor " + t->describe(), t->get_uid(), *bytes});
  }
  if (workspace_bytes > 0) sizes.push_back({"the workspace", std::nullopt, workspace_bytes});
  return sizes;
}

Error check_memory_budget(std::span<const BufferSize> sizes, std::int64_t budget_bytes) {
  if (budget_bytes < 0) {
    return {ErrorCode::INVALID_VALUE, fmt::format("memory budget: {} bytes is negative", budget_bytes)};
  }
  std::int64_t total = 0;
  for (const BufferSize& size : sizes) {
    const std::optional<std::int64_t> with_this = core::checked_add(total, size.bytes);
    if (with_this && *with_this <= budget_bytes) {
      total = *with_this;
      continue;
    }
    if (total == 0 || size.bytes > budget_bytes) {
      return {ErrorCode::INVALID_VALUE, fmt::format("memory budget: {} needs {} bytes, above the budget of {} bytes",
                                                    size.what, size.bytes, budget_bytes)};
    }
    const std::string together = with_this ? std::to_string(*with_this)
                                           : "more than " + std::to_string(std::numeric_limits<std::int64_t>::max());
    return {ErrorCode::INVALID_VALUE,
            fmt::format("memory budget: {} needs {} bytes, {} with the buffers before it, above the budget of {} bytes",
                        size.what, size.bytes, together, budget_bytes)};
  }
  return Error::ok();
}

Result<GraphBuffers> allocate_graph_buffers(const OperationGraph& graph, platform::Device& device,
                                            std::int64_t workspace_bytes, std::int64_t budget_bytes) {
  Result<std::vector<BufferSize>> sizes = graph_buffer_sizes(graph, workspace_bytes);
  if (!sizes.ok()) return sizes.error();
  TUNEKIT_RETURN_IF_ERROR(check_memory_budget(*sizes, budget_bytes));
  GraphBuffers buffers;
  for (const BufferSize& size : *sizes) {
    Result<platform::DeviceBuffer> buffer = device.allocate(static_cast<std::size_t>(size.bytes));
    if (!buffer.ok()) return buffer.error();
    if (size.uid) {
      buffers.pack[*size.uid] = buffer->data();
    } else {
      buffers.workspace = buffer->data();
      buffers.workspace_size = size.bytes;
    }
    buffers.memory.push_back(std::move(buffer).value());
  }
  return buffers;
}

}  // namespace tunekit::graph
