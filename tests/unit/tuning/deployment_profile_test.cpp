// Export of cache entries as deployment profiles and their transactional
// import: selectors are explicit and validated, the file round-trips, and an
// imported profile never matches a processor outside its selector.
#include "tunekit/tuning/deployment_profile.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cache_test_support.hpp"

namespace tunekit::tuning {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::alder_lake;
using testing::calibrated;
using testing::gemm_binding;
using testing::gemm_key;
using testing::milan;
using testing::sapphire_rapids;

CpuSelector milan_selector() {
  CpuSelector s;
  s.vendor = "AMD";
  s.family = 25;
  s.models = {1};
  return s;
}

class DeploymentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (DataType t : {DataType::FLOAT, DataType::DOUBLE}) {
      ASSERT_TRUE(farm.try_register_schema(gemm_binding().schema(gemm_key(t))).is_good());
      ASSERT_TRUE(target.try_register_schema(gemm_binding().schema(gemm_key(t))).is_good());
    }
    options.path = dir.path() / "kernel_tuning.toml";
    options.registry = &farm;
    options.execution = milan();
  }

  void calibrate_on_farm(std::vector<CalibratedKernelProfile> profiles) {
    auto report = UpdateKernelTuningCache(profiles, options);
    ASSERT_TRUE(report.ok()) << report.summary();
  }

  testing::ScratchDir dir;
  KernelTuningRegistry farm;
  KernelTuningRegistry target;
  KernelTuningCacheOptions options;
};

TEST_F(DeploymentTest, ExportedProfilesApplyOnlyInsideTheirSelector) {
  calibrate_on_farm({calibrated(DataType::FLOAT, milan(), 96), calibrated(DataType::DOUBLE, milan(), 48)});
  auto profiles = ExportDeploymentProfiles({}, milan_selector(), options);
  ASSERT_TRUE(profiles.ok()) << profiles.error().message();
  ASSERT_EQ(profiles->size(), 2u);
  EXPECT_EQ((*profiles)[0].selector, milan_selector());
  EXPECT_EQ((*profiles)[0].parameters.values.at("algorithm.tile_k"), Value(96));

  const fs::path file = dir.path() / "deploy" / "milan.toml";
  ASSERT_TRUE(WriteDeploymentProfiles(file, *profiles).is_good());
  ASSERT_TRUE(ImportDeploymentProfiles(file, target).is_good());

  auto inside = target.snapshot()->resolve(gemm_key(), milan(64));
  EXPECT_EQ(inside.source, ResolutionSource::EXACT_PROCESSOR);
  EXPECT_EQ(inside.parameters.values.at("algorithm.tile_k"), Value(96));
  for (const auto& outside : {alder_lake(), sapphire_rapids(), testing::processor("AMD", 25, 8, "zen3", {})}) {
    auto resolution = target.snapshot()->resolve(gemm_key(), outside);
    EXPECT_EQ(resolution.source, ResolutionSource::PORTABLE_DEFAULT);
    EXPECT_EQ(resolution.parameters.values.at("algorithm.tile_k"), Value(256));
  }
}

TEST_F(DeploymentTest, FileRoundTripsAndIsDeterministic) {
  calibrate_on_farm({calibrated(DataType::FLOAT, milan(), 96, 0.1)});
  CpuSelector s = milan_selector();
  s.required_features = {platform::CpuFeature::AVX2};
  s.excluded_features = {platform::CpuFeature::AVX512F};
  s.minimum_threads = 2;
  s.maximum_threads = 16;
  s.architecture = "x86_64";
  auto profiles = ExportDeploymentProfiles({}, s, options, 5);
  ASSERT_TRUE(profiles.ok()) << profiles.error().message();
  const std::string text = format_deployment_profiles(*profiles);
  EXPECT_THAT(text, HasSubstr("\"algorithm.pack_ratio\" = 0.1\n"));
  auto parsed = parse_deployment_profiles(text, "deploy.toml");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ((*parsed)[0].selector, s);
  EXPECT_EQ((*parsed)[0].parameters, (*profiles)[0].parameters);
  EXPECT_EQ((*parsed)[0].priority, 5);
  EXPECT_EQ((*parsed)[0].name, (*profiles)[0].name);
  EXPECT_EQ(format_deployment_profiles(*parsed), text);
}

TEST_F(DeploymentTest, SelectorMustBeValidAndExplicit) {
  calibrate_on_farm({calibrated(DataType::FLOAT, milan())});
  auto empty = ExportDeploymentProfiles({}, CpuSelector{}, options);
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.error().message(), HasSubstr("must name a vendor"));
  CpuSelector stepping_without_model;
  stepping_without_model.vendor = "AMD";
  stepping_without_model.stepping = 1;
  auto invalid = ExportDeploymentProfiles({}, stepping_without_model, options);
  ASSERT_FALSE(invalid.ok());
  EXPECT_THAT(invalid.error().message(), HasSubstr("stepping"));
}

TEST_F(DeploymentTest, EntriesMeasuredOutsideTheSelectorOrUnselectedAreLeftOut) {
  calibrate_on_farm({calibrated(DataType::FLOAT, milan()), calibrated(DataType::FLOAT, alder_lake()),
                     calibrated(DataType::DOUBLE, milan())});
  KernelCalibrationSelection selection;
  selection.element_types = {DataType::FLOAT};
  auto profiles = ExportDeploymentProfiles(selection, milan_selector(), options);
  ASSERT_TRUE(profiles.ok()) << profiles.error().message();
  ASSERT_EQ(profiles->size(), 1u);
  EXPECT_EQ((*profiles)[0].parameters.key, gemm_key(DataType::FLOAT));
}

TEST_F(DeploymentTest, TwoExecutionsOfOneKeyInsideTheSelectorAreAnError) {
  calibrate_on_farm({calibrated(DataType::FLOAT, milan(2), 64), calibrated(DataType::FLOAT, milan(8), 128)});
  auto ambiguous = ExportDeploymentProfiles({}, milan_selector(), options);
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_THAT(ambiguous.error().message(), HasSubstr("narrow the selector"));

  CpuSelector eight = milan_selector();
  eight.minimum_threads = 8;
  auto narrowed = ExportDeploymentProfiles({}, eight, options);
  ASSERT_TRUE(narrowed.ok()) << narrowed.error().message();
  ASSERT_EQ(narrowed->size(), 1u);
  EXPECT_EQ((*narrowed)[0].parameters.values.at("algorithm.tile_k"), Value(128));
}

TEST_F(DeploymentTest, ImportIsAllOrNothing) {
  calibrate_on_farm({calibrated(DataType::FLOAT, milan()), calibrated(DataType::DOUBLE, milan())});
  auto profiles = ExportDeploymentProfiles({}, milan_selector(), options);
  ASSERT_TRUE(profiles.ok());
  ASSERT_EQ(profiles->size(), 2u);
  (*profiles)[1].parameters.values["algorithm.tile_m"] = 12;  // not a multiple of 8
  const std::uint64_t generation = target.generation_number();
  Error e = ImportDeploymentProfiles(*profiles, target);
  ASSERT_TRUE(e.is_bad());
  EXPECT_THAT(e.message(), HasSubstr("algorithm.tile_m"));
  EXPECT_EQ(target.generation_number(), generation);
  EXPECT_TRUE(target.snapshot()->profiles(gemm_key(DataType::FLOAT)).empty());
}

TEST_F(DeploymentTest, ImportRejectsAFileWithAnInexplicitSelectorNamingThePosition) {
  const fs::path file = dir.path() / "deploy.toml";
  testing::write_text(file,
                      "schema_version = 1\n\n[[profiles]]\nname = \"p\"\nlibrary = \"tunekit_test\"\n"
                      "kernel = \"Gemm\"\nimplementation = \"blocked_avx2\"\nelement_type = \"float\"\n"
                      "device = \"cpu\"\ntuning_abi = 3\n\n[profiles.selector]\narchitecture = \"x86_64\"\n\n"
                      "[profiles.parameters]\n\"algorithm.tile_k\" = 64\n");
  Error e = ImportDeploymentProfiles(file, target);
  ASSERT_TRUE(e.is_bad());
  EXPECT_THAT(e.message(), HasSubstr(file.string() + ":12:1: "));
  EXPECT_THAT(e.message(), HasSubstr("profiles[0].selector"));
  EXPECT_EQ(target.generation_number(), 2u);
}

TEST_F(DeploymentTest, MissingCacheIsAnError) {
  auto profiles = ExportDeploymentProfiles({}, milan_selector(), options);
  ASSERT_FALSE(profiles.ok());
  EXPECT_THAT(profiles.error().message(), HasSubstr("no cache file"));
}

TEST_F(DeploymentTest, AFileWithAFiftyThousandPartHeaderIsRefusedNamingFileLineAndLimit) {
  std::string deep = "x";
  for (int i = 1; i < 50000; ++i) deep += ".x";
  const std::string limit = "table header with more than 64 dotted parts (limit: 64 parts per key)";
  auto parsed = parse_deployment_profiles("schema_version = 1\n\n[[profiles]]\nname = \"p\"\n[profiles." + deep + "]\n",
                                          "deploy.toml");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(parsed.error().message(), "deploy.toml:5:1: " + limit);

  const fs::path file = dir.path() / "deep.toml";
  testing::write_text(file, "[" + deep + "]\n");
  Error e = ImportDeploymentProfiles(file, target);
  EXPECT_EQ(e.message(), file.string() + ":1:1: " + limit);
  EXPECT_EQ(target.generation_number(), 2u);
}

TEST_F(DeploymentTest, ExportUsesTheIntactEntriesOfADamagedCache) {
  calibrate_on_farm({calibrated(DataType::FLOAT, milan(), 96), calibrated(DataType::DOUBLE, milan(), 48)});
  std::string text = testing::read_text(*options.path);
  const auto second = text.find("[[entries]]", text.find("[[entries]]") + 1);
  text.insert(text.find("kernel = ", second), "this is = = not toml\n");
  testing::write_text(*options.path, text);
  auto profiles = ExportDeploymentProfiles({}, milan_selector(), options);
  ASSERT_TRUE(profiles.ok()) << profiles.error().message();
  ASSERT_EQ(profiles->size(), 1u);
  EXPECT_EQ((*profiles)[0].parameters.key, gemm_key(DataType::FLOAT));
}

}  // namespace
}  // namespace tunekit::tuning
