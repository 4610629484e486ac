// The HIP device on any machine: the probe always answers (devices or a
// reason), open_hip_device agrees with it, signatures follow the properties,
// and on a machine with a GPU the device's memory, copies, streams and event
// timer work (skipped, with the probe's reason, without one).
#include "tunekit/platform/hip_device.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

#include "tunekit/platform/cpu_device.hpp"

namespace tunekit::platform {
namespace {

HipDeviceProperties mi210() {
  HipDeviceProperties p;
  p.name = "AMD Instinct MI210";
  p.architecture = "gfx90a";
  p.target = "gfx90a:sramecc+:xnack-";
  p.compute_units = 104;
  p.memory_bytes = std::int64_t{64} << 30;
  p.l2_bytes = 8 << 20;
  p.warp_size = 64;
  p.clock_mhz = 1700;
  p.runtime_version = 50221153;
  return p;
}

TEST(HipDevice, SignatureFollowsWhatMakesResultsTransferable) {
  const HipDeviceProperties base = mi210();
  const std::string signature = hip_device_signature(base);
  EXPECT_EQ(signature.rfind("hip:", 0), 0u);
  EXPECT_EQ(signature.size(), 4u + 16u);
  EXPECT_EQ(hip_device_signature(base), signature) << "deterministic";

  HipDeviceProperties other_index = base;
  other_index.index = 3;
  other_index.name = "another name";
  EXPECT_EQ(hip_device_signature(other_index), signature) << "the ordinal and name do not change results";

  auto changed = [&](auto edit) {
    HipDeviceProperties p = base;
    edit(p);
    return hip_device_signature(p);
  };
  EXPECT_NE(changed([](auto& p) { p.architecture = "gfx1030"; }), signature);
  EXPECT_NE(changed([](auto& p) { p.compute_units = 110; }), signature);
  EXPECT_NE(changed([](auto& p) { p.memory_bytes /= 2; }), signature);
  EXPECT_NE(changed([](auto& p) { p.l2_bytes /= 2; }), signature);
  EXPECT_NE(changed([](auto& p) { p.runtime_version += 1; }), signature);
}

TEST(HipDevice, DescriptionNamesArchitectureUnitsAndMemory) {
  EXPECT_EQ(describe_hip_device(mi210()), "hip:0: AMD Instinct MI210 (gfx90a, 104 CUs, 65536 MiB)");
}

TEST(HipDevice, ProbeAnswersAndOpenAgreesWithIt) {
  const HipProbe probe = probe_hip_devices();
  if (probe.devices.empty()) {
    EXPECT_FALSE(probe.reason.empty()) << "no devices and no reason";
    Result<std::unique_ptr<Device>> device = open_hip_device(0);
    ASSERT_FALSE(device.ok());
    EXPECT_EQ(device.error().code(), ErrorCode::NOT_SUPPORTED);
    EXPECT_EQ(device.error().message(), probe.reason);
    std::cout << "no HIP device here: " << probe.reason << '\n';
    return;
  }
  EXPECT_TRUE(probe.reason.empty());
  for (const HipDeviceProperties& d : probe.devices) {
    EXPECT_FALSE(d.architecture.empty());
    EXPECT_EQ(d.architecture.find(':'), std::string::npos) << d.target;
    EXPECT_GT(d.compute_units, 0);
    EXPECT_GT(d.memory_bytes, 0);
  }
  Result<std::unique_ptr<Device>> beyond = open_hip_device(static_cast<int>(probe.devices.size()));
  ASSERT_FALSE(beyond.ok());
  EXPECT_EQ(beyond.error().code(), ErrorCode::INVALID_VALUE);
}

TEST(HipDevice, BuiltWithHipLoadsTheRuntimeOfItsMajorVersion) {
  const HipProbe probe = probe_hip_devices();
  if (!probe.compiled) GTEST_SKIP() << probe.reason;
  if (std::getenv(kHipLibraryVariable) == nullptr) {
    EXPECT_EQ(probe.library.rfind("libamdhip64.so.", 0), 0u) << probe.library;
  }
}

// The device's copies, memory and timer, on a GPU.
TEST(HipDevice, CopiesRoundTripAndEventsTimeOnTheGpu) {
  const HipProbe probe = probe_hip_devices();
  if (probe.devices.empty()) GTEST_SKIP() << probe.reason;
  Result<std::unique_ptr<Device>> opened = open_hip_device(0);
  ASSERT_TRUE(opened.ok()) << opened.error().describe();
  Device& device = **opened;
  EXPECT_EQ(device.kind(), DeviceKind::HIP);
  EXPECT_FALSE(device.host_addressable());
  EXPECT_EQ(device.signature(), hip_device_signature(probe.devices[0]));

  std::vector<float> sent(1 << 20);
  std::mt19937 random(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& x : sent) x = uniform(random);
  Result<DeviceBuffer> buffer = device.allocate(sent.size() * sizeof(float));
  ASSERT_TRUE(buffer.ok()) << buffer.error().describe();
  ASSERT_TRUE(device.copy_to_device(buffer->data(), sent.data(), buffer->size()).is_good());
  std::vector<float> back(sent.size(), std::nanf(""));
  ASSERT_TRUE(device.copy_to_host(back.data(), buffer->data(), buffer->size()).is_good());
  EXPECT_EQ(std::memcmp(sent.data(), back.data(), buffer->size()), 0);

  Result<std::unique_ptr<Stream>> stream = device.create_stream();
  ASSERT_TRUE(stream.ok()) << stream.error().describe();
  EXPECT_NE((*stream)->native_handle(), nullptr);
  Result<std::unique_ptr<Timer>> timer = device.create_timer(**stream);
  ASSERT_TRUE(timer.ok()) << timer.error().describe();
  EXPECT_FALSE((*timer)->elapsed_ms().ok()) << "read before it was started";
  ASSERT_TRUE((*timer)->start().is_good());
  ASSERT_TRUE((*timer)->stop().is_good());
  Result<double> elapsed = (*timer)->elapsed_ms();
  ASSERT_TRUE(elapsed.ok()) << elapsed.error().describe();
  EXPECT_GE(*elapsed, 0.0);
  EXPECT_TRUE((*stream)->synchronize().is_good());
  EXPECT_TRUE(device.synchronize().is_good());
}

TEST(DeviceCopies, TheCpuCopiesWithMemcpy) {
  CpuDevice device;
  EXPECT_TRUE(device.host_addressable());
  Result<DeviceBuffer> buffer = device.allocate(64);
  ASSERT_TRUE(buffer.ok());
  const char text[] = "0123456789abcdef0123456789abcdef0123456789abcdef012345678901234";
  ASSERT_TRUE(device.copy_to_device(buffer->data(), text, 64).is_good());
  char back[64] = {};
  ASSERT_TRUE(device.copy_to_host(back, buffer->data(), 64).is_good());
  EXPECT_EQ(std::memcmp(back, text, 64), 0);
}

}  // namespace
}  // namespace tunekit::platform
