#include "tunekit/platform/cpu_device.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>

namespace tunekit::platform {
namespace {

TEST(CpuDevice, AllocatesAlignedWritableMemory) {
  CpuDevice device;
  for (std::size_t alignment : {1u, 8u, 16u, 32u, 64u}) {
    auto buffer = device.allocate(1000, alignment);
    ASSERT_TRUE(buffer.ok()) << buffer.error().describe();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer->data()) % alignment, 0u);
    EXPECT_EQ(buffer->size(), 1000u);
    std::memset(buffer->data(), 0xA5, buffer->size());
  }
}

TEST(CpuDevice, RejectsBadAlignments) {
  CpuDevice device;
  auto bad = device.allocate(64, 48);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::INVALID_VALUE);
  EXPECT_NE(bad.error().message().find("48"), std::string::npos);
  EXPECT_FALSE(device.allocate(64, 0).ok());
  EXPECT_FALSE(device.allocate(64, 128).ok());
}

TEST(CpuDevice, BuffersMoveWithoutDoubleFree) {
  CpuDevice device;
  auto a = device.allocate(32);
  ASSERT_TRUE(a.ok());
  DeviceBuffer first = std::move(a).value();
  void* data = first.data();
  DeviceBuffer second = std::move(first);
  EXPECT_EQ(second.data(), data);
  EXPECT_EQ(first.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
}

TEST(CpuDevice, TimerMeasuresASleep) {
  CpuDevice device;
  auto stream = device.create_stream();
  ASSERT_TRUE(stream.ok());
  auto timer = device.create_timer(**stream);
  ASSERT_TRUE(timer.ok());
  EXPECT_TRUE((*timer)->start().is_good());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE((*timer)->stop().is_good());
  EXPECT_TRUE((*stream)->synchronize().is_good());
  auto elapsed = (*timer)->elapsed_ms();
  ASSERT_TRUE(elapsed.ok());
  EXPECT_GE(*elapsed, 19.0);
  EXPECT_LT(*elapsed, 2000.0);
  EXPECT_GT((*timer)->resolution_ms(), 0.0);
  EXPECT_LT((*timer)->resolution_ms(), 1.0);
}

TEST(CpuDevice, TimerReadBeforeStopIsABadState) {
  CpuDevice device;
  auto stream = device.create_stream();
  auto timer = device.create_timer(**stream);
  EXPECT_EQ((*timer)->elapsed_ms().error().code(), ErrorCode::BAD_STATE);
  EXPECT_EQ((*timer)->stop().code(), ErrorCode::BAD_STATE);
}

TEST(CpuDevice, SignatureFollowsTheExecutionIdentity) {
  CpuExecutionDescriptor e;
  e.processor.architecture = "x86_64";
  e.effective_threads = 4;
  CpuDevice four(e);
  e.effective_threads = 2;
  CpuDevice two(e);
  EXPECT_EQ(four.kind(), DeviceKind::CPU);
  EXPECT_EQ(four.signature().rfind("cpu:", 0), 0u);
  EXPECT_EQ(four.signature().size(), 4u + 16u);
  EXPECT_NE(four.signature(), two.signature());
  EXPECT_NE(four.name().find("4 threads"), std::string::npos);
}

}  // namespace
}  // namespace tunekit::platform
