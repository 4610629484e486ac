#include "tunekit/platform/cpu_descriptor.hpp"

#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

namespace tunekit::platform {
namespace {

CpuDescriptor alder_lake() {
  CpuDescriptor cpu;
  cpu.architecture = "x86_64";
  cpu.vendor = "Intel";
  cpu.family = 6;
  cpu.model = 0x97;
  cpu.stepping = 2;
  cpu.microarchitecture = "alder_lake";
  cpu.features = {CpuFeature::SSE2, CpuFeature::AVX2, CpuFeature::FMA, CpuFeature::AVX_VNNI};
  cpu.l3_bytes = 30u << 20;
  cpu.logical_cores = 8;
  return cpu;
}

TEST(CpuFeatureSet, NamesAreSortedAndParseBack) {
  CpuFeatureSet set{CpuFeature::FMA, CpuFeature::AVX2, CpuFeature::SSE2, CpuFeature::AVX512VNNI};
  EXPECT_EQ(set.to_string(), "avx2,avx512vnni,fma,sse2");
  EXPECT_EQ(set.size(), 4u);
  std::vector<std::string> names = set.names();
  auto parsed = CpuFeatureSet::parse(names);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, set);
}

TEST(CpuFeatureSet, ParseNamesTheUnknownFeature) {
  std::vector<std::string> names{"avx2", "avx1024"};
  std::string unknown;
  EXPECT_FALSE(CpuFeatureSet::parse(names, &unknown).has_value());
  EXPECT_EQ(unknown, "avx1024");
}

TEST(CpuFeatureSet, SubsetRelation) {
  CpuFeatureSet small{CpuFeature::AVX2};
  CpuFeatureSet big{CpuFeature::AVX2, CpuFeature::FMA};
  EXPECT_TRUE(small.is_subset_of(big));
  EXPECT_FALSE(big.is_subset_of(small));
  EXPECT_TRUE(CpuFeatureSet{}.is_subset_of(small));
}

TEST(CpuFeature, EveryFeatureHasAUniqueStableName) {
  std::set<std::string_view> names;
  for (CpuFeature f : all_cpu_features()) {
    EXPECT_TRUE(names.insert(to_string(f)).second) << to_string(f);
    EXPECT_EQ(parse_cpu_feature(to_string(f)), f);
  }
  EXPECT_TRUE(names.count("avx512f") && names.count("avx_vnni") && names.count("amx") &&
              names.count("neon") && names.count("sve") && names.count("sve2"));
}

TEST(CpuIdentity, StringNamesEveryIdentityField) {
  EXPECT_EQ(identity_string(alder_lake()),
            "x86_64|Intel|family=6|model=151|stepping=2|uarch=alder_lake|features=avx2,avx_vnni,fma,sse2");
}

TEST(CpuIdentity, UnknownFieldsStayUnknown) {
  CpuDescriptor cpu;
  cpu.architecture = "riscv64";
  EXPECT_EQ(identity_string(cpu), "riscv64|?|family=?|model=?|stepping=?|uarch=?|features=");
}

TEST(CpuIdentity, DiagnosticsDoNotChangeTheIdentity) {
  CpuDescriptor a = alder_lake();
  CpuDescriptor b = alder_lake();
  b.l3_bytes = 12u << 20;
  b.logical_cores = 4;
  b.model_name = "other";
  EXPECT_NE(a, b);
  EXPECT_EQ(identity_signature(a), identity_signature(b));
}

TEST(CpuIdentity, IdentityFieldsChangeTheSignature) {
  CpuDescriptor a = alder_lake();
  CpuDescriptor stepping = a;
  stepping.stepping = 3;
  CpuDescriptor features = a;
  features.features.insert(CpuFeature::AVX512F);
  CpuDescriptor unknown_model = a;
  unknown_model.model.reset();
  EXPECT_NE(identity_signature(a), identity_signature(stepping));
  EXPECT_NE(identity_signature(a), identity_signature(features));
  EXPECT_NE(identity_signature(a), identity_signature(unknown_model));
}

TEST(GetCpuDescriptor, DetectsOnceAndIsSharedByAllThreads) {
  std::vector<const CpuDescriptor*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&seen, i] { seen[i] = &GetCpuDescriptor(); });
  }
  for (auto& t : threads) t.join();
  for (const CpuDescriptor* p : seen) EXPECT_EQ(p, seen.front());
  const CpuDescriptor& cpu = GetCpuDescriptor();
  EXPECT_FALSE(cpu.architecture.empty());
  EXPECT_EQ(cpu, detect_cpu_descriptor());  // detection is deterministic
  if (cpu.logical_cores && cpu.physical_cores) {
    EXPECT_GE(*cpu.logical_cores, *cpu.physical_cores);
  }
}

}  // namespace
}  // namespace tunekit::platform
