// The calibration cache across real processes: eight writers updating one
// file with different keys lose no entry, and a writer killed with SIGKILL
// just before its rename leaves the previous cache intact and loadable.
// Children are forked and leave with _exit, never returning into GoogleTest.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

#include "../unit/tuning/cache_test_support.hpp"
#include "tunekit/tuning/kernel_tuning_cache.hpp"

namespace tunekit::tuning {
namespace {

namespace fs = std::filesystem;
using testing::calibrated;
using testing::gemm_binding;
using testing::milan;

constexpr int kWriters = 8;
constexpr int kUpdatesPerWriter = 5;

KernelTuningKey writer_key(int writer) {
  KernelTuningKey key = testing::gemm_key();
  key.kernel = "Gemm" + std::to_string(writer);
  return key;
}

CalibratedKernelProfile writer_profile(int writer, std::int64_t tile_k) {
  CalibratedKernelProfile p = calibrated(DataType::FLOAT, milan(), tile_k);
  p.parameters.key = writer_key(writer);
  return p;
}

class CacheProcessesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int w = 0; w < kWriters; ++w) {
      ASSERT_TRUE(registry.try_register_schema(gemm_binding().schema(writer_key(w))).is_good());
    }
    options.path = dir.path() / "cache" / "kernel_tuning.toml";
    options.registry = &registry;
    options.execution = milan();
    options.lock_timeout = std::chrono::milliseconds(30000);
  }

  // Forks a child running `body`; its return value is the exit status.
  template <typename Body>
  pid_t fork_child(Body body) {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(body());
    return pid;
  }

  static int wait_status(pid_t pid) {
    int status = -1;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
  }

  testing::ScratchDir dir;
  KernelTuningRegistry registry;
  KernelTuningCacheOptions options;
};

TEST_F(CacheProcessesTest, EightWritersWithDifferentKeysLoseNoEntry) {
  int start[2];
  ASSERT_EQ(::pipe(start), 0);
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    children.push_back(fork_child([&, w] {
      ::close(start[1]);
      char go;
      if (::read(start[0], &go, 1) != 0) return 3;  // released together when the parent closes the pipe
      for (int u = 1; u <= kUpdatesPerWriter; ++u) {
        const std::vector<CalibratedKernelProfile> profiles{writer_profile(w, 8 * u)};
        if (!UpdateKernelTuningCache(profiles, options).ok()) return 1;
      }
      return 0;
    }));
    ASSERT_GT(children.back(), 0);
  }
  ::close(start[0]);
  ::close(start[1]);
  for (pid_t pid : children) {
    const int status = wait_status(pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer status " << status;
  }

  auto parsed = parse_kernel_tuning_cache(testing::read_text(*options.path), "cache");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  EXPECT_TRUE(parsed->malformed.empty());
  ASSERT_EQ(parsed->entries.size(), static_cast<std::size_t>(kWriters));
  for (int w = 0; w < kWriters; ++w) {
    const auto& entry = parsed->entries[static_cast<std::size_t>(w)].entry;
    EXPECT_EQ(entry.parameters.key, writer_key(w));
    EXPECT_EQ(entry.parameters.values.at("algorithm.tile_k"), Value(8 * kUpdatesPerWriter)) << "the last update wins";
  }
  for (const auto& file : fs::directory_iterator(options.path->parent_path())) {
    EXPECT_EQ(file.path().string().find(".corrupt-"), std::string::npos) << file.path();
  }

  KernelTuningRegistry reader;
  for (int w = 0; w < kWriters; ++w) ASSERT_TRUE(reader.try_register_schema(gemm_binding().schema(writer_key(w))).is_good());
  KernelTuningCacheOptions o = options;
  o.registry = &reader;
  auto loaded = LoadKernelTuningCache({}, o);
  EXPECT_EQ(loaded.count(KernelTuningCacheEntryStatus::LOADED), static_cast<std::size_t>(kWriters)) << loaded.summary();
}

TEST_F(CacheProcessesTest, WriterKilledBeforeItsRenameLeavesThePreviousCacheIntact) {
  const std::vector<CalibratedKernelProfile> first{writer_profile(0, 64), writer_profile(1, 32)};
  ASSERT_TRUE(UpdateKernelTuningCache(first, options).ok());
  const std::string before = testing::read_text(*options.path);

  const pid_t pid = fork_child([&] {
    KernelTuningCacheOptions o = options;
    o.before_rename = [] { ::raise(SIGKILL); };
    const std::vector<CalibratedKernelProfile> next{writer_profile(0, 128), writer_profile(2, 16)};
    (void)UpdateKernelTuningCache(next, o);
    return 4;  // not reached: the hook kills the process
  });
  ASSERT_GT(pid, 0);
  const int status = wait_status(pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;

  EXPECT_EQ(testing::read_text(*options.path), before);
  auto temporaries = [&] {
    std::vector<fs::path> found;
    for (const auto& file : fs::directory_iterator(options.path->parent_path())) {
      if (file.path().filename().string().rfind("." + options.path->filename().string() + ".tmp-", 0) == 0) {
        found.push_back(file.path());
      }
    }
    return found;
  };
  ASSERT_EQ(temporaries().size(), 1u) << "the killed writer's temporary file";
  KernelTuningRegistry reader;
  for (int w = 0; w < kWriters; ++w) ASSERT_TRUE(reader.try_register_schema(gemm_binding().schema(writer_key(w))).is_good());
  KernelTuningCacheOptions o = options;
  o.registry = &reader;
  auto loaded = LoadKernelTuningCache({}, o);
  EXPECT_EQ(loaded.file_status, KernelTuningCacheFileStatus::READ);
  ASSERT_EQ(loaded.entries.size(), 2u);
  EXPECT_EQ(loaded.count(KernelTuningCacheEntryStatus::LOADED), 2u) << loaded.summary();
  EXPECT_EQ(reader.snapshot()->calibrated_profiles(writer_key(0)).at(0).parameters.values.at("algorithm.tile_k"),
            Value(64));

  // The dead writer's lock died with it: the next update goes through.
  options.lock_timeout = std::chrono::milliseconds(1000);
  const std::vector<CalibratedKernelProfile> next{writer_profile(2, 16)};
  auto report = UpdateKernelTuningCache(next, options);
  EXPECT_EQ(report.status, KernelTuningCacheUpdateStatus::WRITTEN) << report.summary();
  EXPECT_EQ(report.preserved, 2u);
  EXPECT_TRUE(temporaries().empty()) << "removed by the next writer, under the lock";
}

}  // namespace
}  // namespace tunekit::tuning
