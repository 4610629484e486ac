#include "tunekit/tuning/cpu_selector.hpp"

#include <gtest/gtest.h>

#include "tuning_fixtures.hpp"

namespace tunekit::tuning {
namespace {

using platform::CpuFeature;
using testing::alder_lake;
using testing::milan;
using testing::sapphire_rapids;

CpuSelector exact(std::string vendor, std::uint32_t family, std::uint32_t model) {
  CpuSelector s;
  s.vendor = std::move(vendor);
  s.family = family;
  s.models = {model};
  return s;
}

struct MatchCase {
  const char* name;
  CpuSelector selector;
  bool alder, milan, sapphire;
};

TEST(CpuSelector, MatchTable) {
  CpuSelector any;
  CpuSelector amd;
  amd.vendor = "AMD";
  CpuSelector intel_list;
  intel_list.vendor = "Intel";
  intel_list.family = 6;
  intel_list.models = {0x97, 0x9A};
  CpuSelector zen3;
  zen3.microarchitecture = "zen3";
  CpuSelector avx512;
  avx512.required_features = {CpuFeature::AVX512F};
  CpuSelector avx2_not_512;
  avx2_not_512.required_features = {CpuFeature::AVX2};
  avx2_not_512.excluded_features = {CpuFeature::AVX512F};
  CpuSelector few_threads;
  few_threads.maximum_threads = 8;
  CpuSelector many_threads;
  many_threads.minimum_threads = 16;
  CpuSelector stepping2 = exact("Intel", 6, 0x97);
  stepping2.stepping = 2;
  CpuSelector stepping3 = exact("Intel", 6, 0x97);
  stepping3.stepping = 3;
  CpuSelector arm;
  arm.architecture = "aarch64";

  const MatchCase cases[] = {
      {"any", any, true, true, true},
      {"vendor", amd, false, true, false},
      {"model list", intel_list, true, false, false},
      {"exact milan", exact("AMD", 25, 1), false, true, false},
      {"same model other vendor", exact("Intel", 25, 1), false, false, false},
      {"uarch", zen3, false, true, false},
      {"required feature", avx512, false, false, true},
      {"required and excluded", avx2_not_512, true, true, false},
      {"maximum threads", few_threads, true, true, false},
      {"minimum threads", many_threads, false, false, true},
      {"stepping matches", stepping2, true, false, false},
      {"stepping differs", stepping3, false, false, false},
      {"architecture", arm, false, false, false},
  };
  for (const MatchCase& c : cases) {
    EXPECT_EQ(matches(c.selector, alder_lake()), c.alder) << c.name;
    EXPECT_EQ(matches(c.selector, milan()), c.milan) << c.name;
    EXPECT_EQ(matches(c.selector, sapphire_rapids()), c.sapphire) << c.name;
  }
}

TEST(CpuSelector, ReasonNamesTheField) {
  std::string reason;
  EXPECT_FALSE(matches(exact("Intel", 6, 0x8F), milan(), &reason));
  EXPECT_EQ(reason, "vendor AMD != Intel");
  CpuSelector threads;
  threads.minimum_threads = 4;
  EXPECT_FALSE(matches(threads, milan(2), &reason));
  EXPECT_EQ(reason, "effective threads 2 below minimum 4");
  CpuSelector avx512;
  avx512.required_features = {CpuFeature::AVX512F};
  EXPECT_FALSE(matches(avx512, milan(), &reason));
  EXPECT_EQ(reason, "required feature avx512f missing");
}

TEST(CpuSelector, UnknownIsNotAWildcard) {
  auto unknown = milan();
  unknown.processor.model.reset();
  EXPECT_FALSE(matches(exact("AMD", 25, 1), unknown));
  CpuSelector family;
  family.vendor = "AMD";
  family.family = 25;
  EXPECT_TRUE(matches(family, unknown));
}

TEST(CpuSelector, SpecificityIsATotalOrderAcrossLevels) {
  CpuSelector with_stepping = exact("AMD", 25, 1);
  with_stepping.stepping = 1;
  CpuSelector two_models = exact("AMD", 25, 1);
  two_models.models = {1, 2};
  CpuSelector three_models = exact("AMD", 25, 1);
  three_models.models = {1, 2, 3};
  CpuSelector uarch;
  uarch.microarchitecture = "zen3";
  CpuSelector family;
  family.vendor = "AMD";
  family.family = 25;
  CpuSelector isa2;
  isa2.required_features = {CpuFeature::AVX2, CpuFeature::FMA};
  CpuSelector isa1;
  isa1.required_features = {CpuFeature::AVX2};
  CpuSelector any;

  const CpuSelector ordered[] = {with_stepping, exact("AMD", 25, 1), two_models, three_models, uarch,
                                 family,        isa2,                isa1,       any};
  for (std::size_t i = 0; i + 1 < std::size(ordered); ++i) {
    EXPECT_GT(specificity(ordered[i]), specificity(ordered[i + 1])) << "position " << i;
  }
  EXPECT_EQ(specificity(exact("AMD", 25, 1)).level, SpecificityLevel::EXACT_PROCESSOR);
  EXPECT_EQ(specificity(uarch).level, SpecificityLevel::PROCESSOR_GROUP);
  EXPECT_EQ(specificity(any).level, SpecificityLevel::INSTRUCTION_SET);
}

TEST(CpuSelector, ValidateRejectsMeaninglessSelectors) {
  CpuSelector stepping_without_model;
  stepping_without_model.stepping = 1;
  EXPECT_NE(validate(stepping_without_model).message().find("stepping needs exactly one model"), std::string::npos);
  CpuSelector models_without_family;
  models_without_family.models = {1};
  EXPECT_NE(validate(models_without_family).message().find("models need a family"), std::string::npos);
  CpuSelector contradiction;
  contradiction.required_features = {CpuFeature::AVX2};
  contradiction.excluded_features = {CpuFeature::AVX2};
  EXPECT_NE(validate(contradiction).message().find("avx2 is both required and excluded"), std::string::npos);
  CpuSelector threads;
  threads.minimum_threads = 9;
  threads.maximum_threads = 8;
  EXPECT_TRUE(validate(threads).is_bad());
  EXPECT_TRUE(validate(exact("AMD", 25, 1)).is_good());
}

TEST(CpuSelector, OverlapIsFalseOnlyWhenProvablyDisjoint) {
  EXPECT_FALSE(may_overlap(exact("AMD", 25, 1), exact("AMD", 25, 2)));
  EXPECT_FALSE(may_overlap(exact("AMD", 25, 1), exact("Intel", 25, 1)));
  CpuSelector list = exact("AMD", 25, 1);
  list.models = {2, 3, 1};
  EXPECT_TRUE(may_overlap(exact("AMD", 25, 1), list));
  CpuSelector avx512, no512;
  avx512.required_features = {CpuFeature::AVX512F};
  no512.excluded_features = {CpuFeature::AVX512F};
  EXPECT_FALSE(may_overlap(avx512, no512));
  CpuSelector low, high;
  low.maximum_threads = 4;
  high.minimum_threads = 5;
  EXPECT_FALSE(may_overlap(low, high));
  high.minimum_threads = 4;
  EXPECT_TRUE(may_overlap(low, high));
  CpuSelector uarch;
  uarch.microarchitecture = "zen3";
  EXPECT_TRUE(may_overlap(uarch, exact("AMD", 25, 1)));  // unknowable without a table: assume overlap
}

}  // namespace
}  // namespace tunekit::tuning
