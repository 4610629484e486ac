#include "tunekit/platform/execution_descriptor.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace tunekit::platform {
namespace {

TEST(CpuSet, SortsDeduplicatesAndPrintsRanges) {
  CpuSet set({5, 0, 1, 2, 8, 2, 9, 3});
  EXPECT_EQ(set.count(), 7u);
  EXPECT_EQ(set.to_string(), "0-3,5,8-9");
  EXPECT_EQ(CpuSet({4}).to_string(), "4");
  EXPECT_EQ(CpuSet().to_string(), "");
}

TEST(CpuSet, ParsesTheCpulistFormat) {
  auto set = CpuSet::parse("0-3,5,8-9\n");
  ASSERT_TRUE(set.has_value());
  EXPECT_EQ(set->ids(), (std::vector<std::uint32_t>{0, 1, 2, 3, 5, 8, 9}));
  EXPECT_EQ(CpuSet::parse("")->count(), 0u);
  EXPECT_FALSE(CpuSet::parse("3-1").has_value());
  EXPECT_FALSE(CpuSet::parse("a").has_value());
  EXPECT_FALSE(CpuSet::parse("1,,2").has_value());
}

TEST(EffectiveThreads, AffinityQuotaAndRequestEachLimit) {
  EXPECT_EQ(compute_effective_threads(16, std::nullopt, std::nullopt), 16u);
  EXPECT_EQ(compute_effective_threads(16, 4.0, std::nullopt), 4u);
  EXPECT_EQ(compute_effective_threads(16, 1.5, std::nullopt), 2u);  // a part-time CPU still runs a thread
  EXPECT_EQ(compute_effective_threads(16, 4.0, 3u), 3u);
  EXPECT_EQ(compute_effective_threads(2, 8.0, 6u), 2u);
  EXPECT_EQ(compute_effective_threads(0, std::nullopt, std::nullopt), 1u);
  EXPECT_EQ(compute_effective_threads(8, 0.2, std::nullopt), 1u);
  EXPECT_EQ(compute_effective_threads(8, std::nullopt, 0u), 8u);  // 0 means no request
}

TEST(CgroupParsing, V2CpuMax) {
  EXPECT_FALSE(parse_cgroup_v2_cpu_max("max 100000\n").has_value());
  EXPECT_DOUBLE_EQ(*parse_cgroup_v2_cpu_max("150000 100000\n"), 1.5);
  EXPECT_DOUBLE_EQ(*parse_cgroup_v2_cpu_max("400000 100000"), 4.0);
  EXPECT_FALSE(parse_cgroup_v2_cpu_max("garbage").has_value());
  EXPECT_FALSE(parse_cgroup_v2_cpu_max("").has_value());
  EXPECT_FALSE(parse_cgroup_v2_cpu_max("0 100000").has_value());
}

TEST(CgroupParsing, V1Quota) {
  EXPECT_FALSE(parse_cgroup_v1_quota("-1\n", "100000\n").has_value());
  EXPECT_DOUBLE_EQ(*parse_cgroup_v1_quota("200000\n", "100000\n"), 2.0);
  EXPECT_FALSE(parse_cgroup_v1_quota("x", "100000").has_value());
}

TEST(CgroupParsing, FindsTheUnifiedPath) {
  EXPECT_EQ(parse_cgroup_v2_path("12:cpu,cpuacct:/a\n0::/user.slice/session-1.scope\n"),
            "/user.slice/session-1.scope");
  EXPECT_EQ(parse_cgroup_v2_path("0::/\n"), "/");
  EXPECT_FALSE(parse_cgroup_v2_path("4:memory:/x\n").has_value());
}

TEST(NumaPolicy, NamesAndText) {
  for (auto kind : {NumaPolicyKind::DEFAULT, NumaPolicyKind::FIRST_TOUCH, NumaPolicyKind::BIND,
                    NumaPolicyKind::INTERLEAVE, NumaPolicyKind::NEXT_TOUCH, NumaPolicyKind::MIXED,
                    NumaPolicyKind::UNKNOWN}) {
    EXPECT_EQ(parse_numa_policy_kind(to_string(kind)), kind);
  }
  EXPECT_EQ((NumaPolicy{NumaPolicyKind::BIND, CpuSet({0})}).to_string(), "bind:0");
  EXPECT_EQ((NumaPolicy{NumaPolicyKind::INTERLEAVE, CpuSet({0, 1})}).to_string(), "interleave:0-1");
  EXPECT_EQ((NumaPolicy{NumaPolicyKind::DEFAULT, {}}).to_string(), "default");
}

CpuExecutionDescriptor eight_threads() {
  CpuExecutionDescriptor e;
  e.processor.architecture = "x86_64";
  e.processor.vendor = "Intel";
  e.effective_threads = 8;
  e.affinity = CpuSet({0, 1, 2, 3, 4, 5, 6, 7});
  e.numa_policy = {NumaPolicyKind::DEFAULT, {}};
  return e;
}

TEST(ExecutionIdentity, ThreadsAndNumaPolicyArePartOfIt) {
  CpuExecutionDescriptor a = eight_threads();
  CpuExecutionDescriptor fewer = a;
  fewer.effective_threads = 1;
  CpuExecutionDescriptor bound = a;
  bound.numa_policy = {NumaPolicyKind::BIND, CpuSet({1})};
  EXPECT_NE(execution_identity_signature(a), execution_identity_signature(fewer));
  EXPECT_NE(execution_identity_signature(a), execution_identity_signature(bound));
  EXPECT_NE(execution_identity_string(a).find("|threads=8|numa=default"), std::string::npos);
}

TEST(ExecutionIdentity, AffinityMaskAndQuotaAreDiagnosticsOnly) {
  CpuExecutionDescriptor a = eight_threads();
  CpuExecutionDescriptor moved = a;
  moved.affinity = CpuSet({8, 9, 10, 11, 12, 13, 14, 15});
  moved.cgroup_cpu_limit = 8.0;
  EXPECT_EQ(execution_identity_signature(a), execution_identity_signature(moved));
}

TEST(DetectExecutionDescriptor, HonoursAnExplicitRequest) {
  CpuExecutionDescriptor now = detect_execution_descriptor();
  EXPECT_GE(now.effective_threads, 1u);
  EXPECT_LE(now.effective_threads, std::max<std::size_t>(now.affinity.count(), 1));
  CpuExecutionDescriptor one = detect_execution_descriptor(1u);
  EXPECT_EQ(one.effective_threads, 1u);
  EXPECT_EQ(one.requested_threads, 1u);
}

}  // namespace
}  // namespace tunekit::platform
