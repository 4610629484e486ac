// Buffers to execute a built graph outside an application (the tune driver,
// tests): one per non-virtual tensor, as many bytes as its dims and strides
// reach, and the workspace. Every size is checked against a memory budget
// before anything is allocated, so a graph with huge dims is refused with a
// message naming the tensor instead of exhausting the machine's memory.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tunekit/core/result.hpp"
#include "tunekit/graph/engine.hpp"
#include "tunekit/graph/operation_graph.hpp"
#include "tunekit/platform/device.hpp"

namespace tunekit::graph {

struct BufferSize {
  std::string what;                 // "tensor 'A' (uid 1)" or "the workspace"
  std::optional<std::int64_t> uid;  // the tensor's uid; nullopt for the workspace
  std::int64_t bytes = 0;
};

// The buffers that executing `graph` needs: its non-virtual tensors in the
// graph's order, then the workspace when workspace_bytes > 0. INVALID_VALUE
// when workspace_bytes is negative or a tensor's size does not fit in int64
// (never for a validated graph).
Result<std::vector<BufferSize>> graph_buffer_sizes(const OperationGraph& graph, std::int64_t workspace_bytes);

// The budget covers all the buffers together. INVALID_VALUE naming the first
// buffer that does not fit with the buffers before it, e.g.
//   "memory budget: tensor 'A' (uid 1) needs 1049600 bytes, above the budget of 1048576 bytes"
//   "memory budget: tensor 'B' (uid 2) needs 4096 bytes, 1052672 with the buffers before it,
//    above the budget of 1048576 bytes"
// and when budget_bytes is negative.
Error check_memory_budget(std::span<const BufferSize> sizes, std::int64_t budget_bytes);

struct GraphBuffers {
  std::vector<platform::DeviceBuffer> memory;  // owns every buffer below
  VariantPack pack;                            // uid -> buffer of each non-virtual tensor
  void* workspace = nullptr;                   // null when no workspace was asked for
  std::int64_t workspace_size = 0;
};

// graph_buffer_sizes and check_memory_budget, then one allocation per
// buffer: nothing is allocated when a check fails. The contents are whatever
// the device returns (the caller fills them); an allocation failure is the
// device's error.
Result<GraphBuffers> allocate_graph_buffers(const OperationGraph& graph, platform::Device& device,
                                            std::int64_t workspace_bytes, std::int64_t budget_bytes);

}  // namespace tunekit::graph
