// LoadInstalledProfiles on scratch folders named through $TUNEKIT_PROFILE_PATH,
// extra_folders and the folder beside the test executable: search order,
// file-by-file import (a corrupt or conflicting file is skipped with its
// reason, the others load), earlier folders winning, missing folders ignored.
#include "tunekit/tuning/installed_profiles.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include "cache_test_support.hpp"
#include "tunekit/tuning/deployment_profile.hpp"

namespace tunekit::tuning {
namespace {

namespace fs = std::filesystem;
using testing::gemm_binding;
using testing::gemm_key;
using testing::milan;
using testing::write_text;

// Sets $TUNEKIT_PROFILE_PATH for one test and restores it.
class ProfilePathVariable {
 public:
  explicit ProfilePathVariable(const std::string& value) {
    if (const char* old = std::getenv(kProfilePathVariable)) old_ = old;
    ::setenv(kProfilePathVariable, value.c_str(), 1);
  }
  ~ProfilePathVariable() {
    if (old_) {
      ::setenv(kProfilePathVariable, old_->c_str(), 1);
    } else {
      ::unsetenv(kProfilePathVariable);
    }
  }

 private:
  std::optional<std::string> old_;
};

KernelTuningProfile profile(std::string name, DataType type, std::int64_t tile_k, std::uint32_t model = 1) {
  KernelTuningProfile p;
  p.name = std::move(name);
  p.selector.vendor = "AMD";
  p.selector.family = 25;
  p.selector.models = {model};
  p.parameters = testing::params(gemm_key(type), {{"algorithm.tile_k", tile_k}});
  return p;
}

void write_profiles(const fs::path& path, std::vector<KernelTuningProfile> profiles) {
  fs::create_directories(path.parent_path());
  ASSERT_TRUE(WriteDeploymentProfiles(path, profiles).is_good());
}

class InstalledProfilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (DataType t : {DataType::FLOAT, DataType::DOUBLE}) {
      ASSERT_TRUE(registry.try_register_schema(gemm_binding().schema(gemm_key(t))).is_good());
    }
  }
  std::int64_t tile_k(DataType type, std::uint32_t model = 1) {
    auto e = milan();
    e.processor.model = model;
    return *registry.snapshot()->resolve(gemm_key(type), e).parameters.values.at("algorithm.tile_k").as_int();
  }

  testing::ScratchDir dir;
  KernelTuningRegistry registry;
  // No test installs anything beside the test executable under this name.
  const std::string project = "tunekit-no-such-project-" + std::to_string(::getpid());
};

TEST_F(InstalledProfilesTest, SearchesTheVariableThenBesideTheExecutableThenExtraFoldersFileByFile) {
  const fs::path a = dir.path() / "a", b = dir.path() / "b", c = dir.path() / "c", missing = dir.path() / "missing";
  write_profiles(a / "2-double.toml", {profile("a-double", DataType::DOUBLE, 48)});
  write_profiles(a / "1-float.toml", {profile("a-float", DataType::FLOAT, 96), profile("a-float-8", DataType::FLOAT, 64, 8)});
  write_profiles(b / "x.toml", {profile("b-float", DataType::FLOAT, 32, 17)});
  write_text(b / "notes.txt", "not a profile");
  fs::create_directories(b / "sub.toml");  // a folder, not a file: not read
  write_profiles(b / "sub.toml" / "deep.toml", {profile("deep", DataType::FLOAT, 8, 99)});
  write_profiles(c / "c.toml", {profile("c-double", DataType::DOUBLE, 16, 8)});
  ProfilePathVariable variable(a.string() + "::" + missing.string() + ":" + b.string());
  InstalledProfilesOptions options;
  options.extra_folders = {c, a};  // a again: searched once

  const InstalledProfilesReport report = LoadInstalledProfiles(project, options, registry);
  EXPECT_EQ(report.folders, (std::vector<fs::path>{a, missing, b, installed_profile_folder(project), c}));
  ASSERT_EQ(report.loaded.size(), 4u) << report.summary();
  EXPECT_EQ(report.loaded[0].path, a / "1-float.toml");
  EXPECT_EQ(report.loaded[0].profiles, 2u);
  EXPECT_EQ(report.loaded[1].path, a / "2-double.toml");
  EXPECT_EQ(report.loaded[2].path, b / "x.toml");
  EXPECT_EQ(report.loaded[3].path, c / "c.toml");
  EXPECT_TRUE(report.skipped.empty()) << report.summary();
  EXPECT_EQ(report.profile_count(), 5u);
  EXPECT_EQ(report.summary(), "installed profiles: 5 from 4 files");
  EXPECT_EQ(tile_k(DataType::FLOAT), 96);
  EXPECT_EQ(tile_k(DataType::FLOAT, 8), 64);
  EXPECT_EQ(tile_k(DataType::FLOAT, 17), 32);
  EXPECT_EQ(tile_k(DataType::FLOAT, 99), 256) << "sub.toml/ is not searched";
  EXPECT_EQ(tile_k(DataType::DOUBLE), 48);
  EXPECT_EQ(tile_k(DataType::DOUBLE, 8), 16);
}

TEST_F(InstalledProfilesTest, ACorruptFileIsSkippedWithItsReasonAndTheOthersLoad) {
  const fs::path folder = dir.path() / "profiles";
  write_profiles(folder / "a.toml", {profile("a", DataType::FLOAT, 96)});
  write_text(folder / "b.toml", "schema_version = 1\n[[profiles]]\nname = \"b\"\nkernel = [\n");
  write_profiles(folder / "c.toml", {profile("c", DataType::DOUBLE, 48)});
  InstalledProfilesOptions options;
  options.extra_folders = {folder};
  ProfilePathVariable variable("");

  const InstalledProfilesReport report = LoadInstalledProfiles(project, options, registry);
  ASSERT_EQ(report.loaded.size(), 2u) << report.summary();
  EXPECT_EQ(report.loaded[0].path, folder / "a.toml");
  EXPECT_EQ(report.loaded[1].path, folder / "c.toml");
  ASSERT_EQ(report.skipped.size(), 1u);
  EXPECT_EQ(report.skipped[0].path, folder / "b.toml");
  EXPECT_EQ(report.skipped[0].reason.rfind((folder / "b.toml").string() + ":4:12: ", 0), 0u) << report.skipped[0].reason;
  EXPECT_EQ(report.summary(), "installed profiles: 2 from 2 files, 1 skipped (" + (folder / "b.toml").string() + ": " +
                                  report.skipped[0].reason + ")");
  EXPECT_EQ(tile_k(DataType::FLOAT), 96);
  EXPECT_EQ(tile_k(DataType::DOUBLE), 48);
}

TEST_F(InstalledProfilesTest, AFileAmbiguousWithARegisteredProfileIsSkippedWhole) {
  ASSERT_TRUE(registry.try_register_profiles({profile("compiled-in", DataType::FLOAT, 128)}).is_good());
  const fs::path folder = dir.path() / "profiles";
  // The double profile is fine, but the file is one import: all or none.
  write_profiles(folder / "milan.toml", {profile("installed", DataType::FLOAT, 96), profile("installed-double", DataType::DOUBLE, 48)});
  InstalledProfilesOptions options;
  options.extra_folders = {folder};
  ProfilePathVariable variable("");

  const InstalledProfilesReport report = LoadInstalledProfiles(project, options, registry);
  EXPECT_TRUE(report.loaded.empty());
  ASSERT_EQ(report.skipped.size(), 1u);
  EXPECT_EQ(report.skipped[0].path, folder / "milan.toml");
  EXPECT_NE(report.skipped[0].reason.find("profile installed is ambiguous with profile compiled-in"), std::string::npos)
      << report.skipped[0].reason;
  EXPECT_EQ(tile_k(DataType::FLOAT), 128);
  EXPECT_EQ(tile_k(DataType::DOUBLE), 256);
}

TEST_F(InstalledProfilesTest, AProfileOfAnEarlierFolderWinsOverTheSameSelectorInALaterOne) {
  const fs::path user = dir.path() / "user", system = dir.path() / "system";
  write_profiles(user / "milan.toml", {profile("user-milan", DataType::FLOAT, 96)});
  write_profiles(system / "milan.toml", {profile("system-milan", DataType::FLOAT, 48)});
  ProfilePathVariable variable(user.string());
  InstalledProfilesOptions options;
  options.extra_folders = {system};

  const InstalledProfilesReport report = LoadInstalledProfiles(project, options, registry);
  ASSERT_EQ(report.loaded.size(), 1u);
  EXPECT_EQ(report.loaded[0].path, user / "milan.toml");
  ASSERT_EQ(report.skipped.size(), 1u);
  EXPECT_EQ(report.skipped[0].path, system / "milan.toml");
  EXPECT_EQ(tile_k(DataType::FLOAT), 96);
}

TEST_F(InstalledProfilesTest, FindsTheProfilesInstalledBesideTheExecutable) {
  const fs::path folder = installed_profile_folder(project);
  ASSERT_FALSE(folder.empty());
  ASSERT_EQ(folder.filename(), "profiles");
  ASSERT_EQ(folder.parent_path().parent_path().filename(), project);
  const fs::path share = folder.parent_path().parent_path();  // <exe>/../share/<project>
  struct Cleanup {
    fs::path path;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  } cleanup{share};
  write_profiles(folder / "milan.toml", {profile("installed", DataType::FLOAT, 96)});
  ProfilePathVariable variable("");

  const InstalledProfilesReport report = LoadInstalledProfiles(project, {}, registry);
  ASSERT_EQ(report.loaded.size(), 1u) << report.summary();
  EXPECT_EQ(report.loaded[0].path, folder / "milan.toml");
  EXPECT_EQ(tile_k(DataType::FLOAT), 96);
}

TEST_F(InstalledProfilesTest, NoFolderThatExistsIsNotAnError) {
  ProfilePathVariable variable((dir.path() / "none").string());
  const std::uint64_t before = registry.generation_number();
  const InstalledProfilesReport report = LoadInstalledProfiles(project, {}, registry);
  EXPECT_TRUE(report.loaded.empty());
  EXPECT_TRUE(report.skipped.empty());
  EXPECT_EQ(report.folders.size(), 2u);
  EXPECT_EQ(report.summary(), "installed profiles: none found in 2 folders");
  EXPECT_EQ(registry.generation_number(), before);
}

}  // namespace
}  // namespace tunekit::tuning
