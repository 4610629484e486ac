// Buffers for a built graph: sizes from dims and strides, the memory budget
// over all of them (exact messages at and just past the limit), and nothing
// allocated when the budget refuses.
#include "tunekit/graph/graph_buffers.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <new>

namespace tunekit::graph {
namespace {

// Counts allocations and hands out host memory.
class CountingDevice final : public platform::Device {
 public:
  platform::DeviceKind kind() const override { return platform::DeviceKind::CPU; }
  std::string name() const override { return "counting"; }
  std::string signature() const override { return "counting:0"; }
  Result<platform::DeviceBuffer> allocate(std::size_t bytes, std::size_t) override {
    ++allocations;
    void* data = ::operator new(bytes == 0 ? 1 : bytes);
    return platform::DeviceBuffer(data, bytes, [](void* p) noexcept { ::operator delete(p); });
  }
  Result<std::unique_ptr<platform::Stream>> create_stream() override {
    return Error(ErrorCode::NOT_SUPPORTED, "no streams");
  }
  Result<std::unique_ptr<platform::Timer>> create_timer(platform::Stream&) override {
    return Error(ErrorCode::NOT_SUPPORTED, "no timers");
  }
  Error synchronize() override { return Error::ok(); }
  int allocations = 0;
};

Tensor tensor(std::string name, std::int64_t uid, std::vector<std::int64_t> dims, std::vector<std::int64_t> strides,
              bool is_virtual = false) {
  auto t = std::make_shared<TensorAttributes>();
  t->set_name(std::move(name)).set_uid(uid).set_dim(std::move(dims)).set_stride(std::move(strides));
  t->set_data_type(DataType::FLOAT).set_is_virtual(is_virtual);
  return t;
}

// A [m, k] x B [k, 1] -> H (virtual) -> relu -> C [m, 1]; A has a padded row stride.
OperationGraph matmul_relu(std::int64_t m, std::int64_t k, std::int64_t a_row_stride) {
  Tensor a = tensor("A", 1, {m, k}, {a_row_stride, 1});
  Tensor b = tensor("B", 2, {k, 1}, {1, 1});
  Tensor h = tensor("H", 3, {m, 1}, {1, 1}, true);
  Tensor c = tensor("C", 4, {m, 1}, {1, 1});
  Operation mm{OperationKind::MATMUL, "mm", {{"A", a}, {"B", b}}, {{"C", h}}, {}, {}};
  Operation relu{OperationKind::POINTWISE, "relu", {{"IN_0", h}}, {{"OUT_0", c}}, {{"mode", Value("relu")}}, {}};
  return OperationGraph("g", {mm, relu}, {a, b, h, c}, DataType::FLOAT);
}

TEST(GraphBuffers, SizesCoverWhatTheStridesReachSkipVirtualTensorsAndEndWithTheWorkspace) {
  Result<std::vector<BufferSize>> sizes = graph_buffer_sizes(matmul_relu(4, 3, 5), 100);
  ASSERT_TRUE(sizes.ok()) << sizes.error().message();
  ASSERT_EQ(sizes->size(), 4u);
  EXPECT_EQ((*sizes)[0].what, "tensor 'A' (uid 1)");
  EXPECT_EQ((*sizes)[0].uid, 1);
  EXPECT_EQ((*sizes)[0].bytes, (3 * 5 + 2 + 1) * 4);  // 1 + 3 * 5 + 2 * 1 elements
  EXPECT_EQ((*sizes)[1].bytes, 3 * 4);
  EXPECT_EQ((*sizes)[2].what, "tensor 'C' (uid 4)");
  EXPECT_EQ((*sizes)[2].bytes, 4 * 4);
  EXPECT_EQ((*sizes)[3].what, "the workspace");
  EXPECT_EQ((*sizes)[3].uid, std::nullopt);
  EXPECT_EQ((*sizes)[3].bytes, 100);
  EXPECT_EQ(graph_buffer_sizes(matmul_relu(4, 3, 5), 0)->size(), 3u);
  EXPECT_EQ(graph_buffer_sizes(matmul_relu(4, 3, 5), -1).error().message(), "the workspace size -1 is negative");
}

TEST(GraphBuffers, TheBudgetCoversAllBuffersTogetherUpToAndIncludingTheLimit) {
  const std::vector<BufferSize> sizes{{"tensor 'A' (uid 1)", 1, 1048576}, {"tensor 'B' (uid 2)", 2, 4096}};
  EXPECT_TRUE(check_memory_budget(sizes, 1048576 + 4096).is_good());
  EXPECT_EQ(check_memory_budget(sizes, 1048576 + 4095).message(),
            "memory budget: tensor 'B' (uid 2) needs 4096 bytes, 1052672 with the buffers before it, above the budget "
            "of 1052671 bytes");
  EXPECT_EQ(check_memory_budget(sizes, 1048575).message(),
            "memory budget: tensor 'A' (uid 1) needs 1048576 bytes, above the budget of 1048575 bytes");
  EXPECT_EQ(check_memory_budget(sizes, 4095).message(),
            "memory budget: tensor 'A' (uid 1) needs 1048576 bytes, above the budget of 4095 bytes");
  EXPECT_TRUE(check_memory_budget({}, 0).is_good());
  EXPECT_EQ(check_memory_budget(sizes, -1).message(), "memory budget: -1 bytes is negative");
}

TEST(GraphBuffers, TotalsPastSixtyFourBitsAreAboveAnyBudget) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  const std::vector<BufferSize> sizes{{"tensor 'A' (uid 1)", 1, kMax - 10}, {"the workspace", std::nullopt, 11}};
  EXPECT_TRUE(check_memory_budget({sizes.data(), 1}, kMax).is_good());
  EXPECT_EQ(check_memory_budget(sizes, kMax).message(),
            "memory budget: the workspace needs 11 bytes, more than 9223372036854775807 with the buffers before it, "
            "above the budget of 9223372036854775807 bytes");
}

TEST(GraphBuffers, AllocatesEveryBufferWhenTheBudgetAllowsAndNoneWhenItRefuses) {
  CountingDevice device;
  Result<GraphBuffers> buffers = allocate_graph_buffers(matmul_relu(4, 3, 5), device, 64, 1 << 20);
  ASSERT_TRUE(buffers.ok()) << buffers.error().message();
  EXPECT_EQ(device.allocations, 4);
  ASSERT_EQ(buffers->memory.size(), 4u);
  EXPECT_EQ(buffers->pack.size(), 3u);
  EXPECT_EQ(buffers->pack.at(1), buffers->memory[0].data());
  EXPECT_EQ(buffers->memory[0].size(), 72u);
  EXPECT_EQ(buffers->pack.at(4), buffers->memory[2].data());
  EXPECT_EQ(buffers->workspace, buffers->memory[3].data());
  EXPECT_EQ(buffers->workspace_size, 64);

  // 2^32 x 1 floats: 16 GiB, refused before any allocation.
  CountingDevice refusing;
  Result<GraphBuffers> huge = allocate_graph_buffers(matmul_relu(std::int64_t{1} << 32, 1, 1), refusing, 0, 1 << 20);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(huge.error().message(),
            "memory budget: tensor 'A' (uid 1) needs 17179869184 bytes, above the budget of 1048576 bytes");
  EXPECT_EQ(refusing.allocations, 0);
}

}  // namespace
}  // namespace tunekit::graph
