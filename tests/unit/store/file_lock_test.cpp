// Unit tests of FileLock within one process: modes, time-outs, release and
// move. Because the lock belongs to the open file description, two FileLocks
// here behave like two processes; the multi-process tests are in integration/.
#include "tunekit/store/file_lock.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "support/scratch_dir.hpp"

namespace tunekit::store {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using ::testing::HasSubstr;

class ScratchDir : public testing::ScratchDir {
 public:
  ScratchDir() : testing::ScratchDir("tunekit-lock") {}
};

TEST(FileLock, CreatesTheSidecarLockFileAndKeepsItAfterRelease) {
  ScratchDir dir;
  const fs::path file = dir.path() / "cache.toml";
  {
    auto lock = FileLock::acquire(file, 0ms);
    ASSERT_TRUE(lock.ok()) << lock.error().describe();
    EXPECT_TRUE(lock->holds());
    EXPECT_EQ(lock->lock_path(), dir.path() / "cache.toml.lock");
    EXPECT_EQ(lock->mode(), LockMode::EXCLUSIVE);
  }
  EXPECT_TRUE(fs::exists(dir.path() / "cache.toml.lock"));
  EXPECT_FALSE(fs::exists(file));
}

TEST(FileLock, ExclusiveExcludesASecondLockInTheSameProcess) {
  ScratchDir dir;
  const fs::path file = dir.path() / "cache.toml";
  auto first = FileLock::acquire(file, 0ms);
  ASSERT_TRUE(first.ok());
  auto second = FileLock::acquire(file, 30ms);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code(), ErrorCode::BAD_STATE);
  EXPECT_EQ(second.error().message(),
            "timed out after 30 ms waiting for lock " + (dir.path() / "cache.toml.lock").string());
}

TEST(FileLock, WaitsAtLeastTheTimeoutBeforeGivingUp) {
  ScratchDir dir;
  const fs::path file = dir.path() / "f";
  auto held = FileLock::acquire(file, 0ms);
  ASSERT_TRUE(held.ok());
  const auto start = std::chrono::steady_clock::now();
  auto waiting = FileLock::acquire(file, 80ms);
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(waiting.ok());
  EXPECT_GE(waited, 80ms);
  EXPECT_LT(waited, 5s);
}

TEST(FileLock, SharedLocksCoexist) {
  ScratchDir dir;
  const fs::path file = dir.path() / "f";
  auto a = FileLock::acquire(file, 0ms, LockMode::SHARED);
  auto b = FileLock::acquire(file, 0ms, LockMode::SHARED);
  ASSERT_TRUE(a.ok()) << a.error().describe();
  ASSERT_TRUE(b.ok()) << b.error().describe();
  EXPECT_EQ(b->mode(), LockMode::SHARED);
}

TEST(FileLock, SharedExcludesExclusive) {
  ScratchDir dir;
  const fs::path file = dir.path() / "f";
  auto reader = FileLock::acquire(file, 0ms, LockMode::SHARED);
  ASSERT_TRUE(reader.ok());
  auto writer = FileLock::acquire(file, 10ms, LockMode::EXCLUSIVE);
  ASSERT_FALSE(writer.ok());
  EXPECT_EQ(writer.error().code(), ErrorCode::BAD_STATE);
}

TEST(FileLock, ExclusiveExcludesShared) {
  ScratchDir dir;
  const fs::path file = dir.path() / "f";
  auto writer = FileLock::acquire(file, 0ms, LockMode::EXCLUSIVE);
  ASSERT_TRUE(writer.ok());
  auto reader = FileLock::acquire(file, 10ms, LockMode::SHARED);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.error().code(), ErrorCode::BAD_STATE);
}

TEST(FileLock, DestructionReleasesTheLock) {
  ScratchDir dir;
  const fs::path file = dir.path() / "f";
  { auto lock = FileLock::acquire(file, 0ms); ASSERT_TRUE(lock.ok()); }
  auto again = FileLock::acquire(file, 0ms);
  EXPECT_TRUE(again.ok());
}

TEST(FileLock, ReleaseUnlocksEarly) {
  ScratchDir dir;
  const fs::path file = dir.path() / "f";
  auto lock = FileLock::acquire(file, 0ms);
  ASSERT_TRUE(lock.ok());
  lock->release();
  EXPECT_FALSE(lock->holds());
  lock->release();  // a second release does nothing
  EXPECT_TRUE(FileLock::acquire(file, 0ms).ok());
}

TEST(FileLock, MovingTransfersTheLock) {
  ScratchDir dir;
  const fs::path file = dir.path() / "f";
  auto acquired = FileLock::acquire(file, 0ms);
  ASSERT_TRUE(acquired.ok());
  FileLock moved(std::move(*acquired));
  EXPECT_FALSE(acquired->holds());
  EXPECT_TRUE(moved.holds());
  acquired = Result<FileLock>(Error(ErrorCode::BAD_STATE, "gone"));  // destroying the husk unlocks nothing
  EXPECT_FALSE(FileLock::acquire(file, 0ms).ok());

  auto other = FileLock::acquire(dir.path() / "g", 0ms);
  ASSERT_TRUE(other.ok());
  moved = std::move(*other);  // releases f, now holds g
  EXPECT_EQ(moved.lock_path(), dir.path() / "g.lock");
  EXPECT_TRUE(FileLock::acquire(file, 0ms).ok());
  EXPECT_FALSE(FileLock::acquire(dir.path() / "g", 0ms).ok());
}

TEST(FileLock, WaitsForAHolderInAnotherThreadToRelease) {
  ScratchDir dir;
  const fs::path file = dir.path() / "f";
  auto held = FileLock::acquire(file, 0ms);
  ASSERT_TRUE(held.ok());
  std::thread releaser([&] {
    std::this_thread::sleep_for(50ms);
    held->release();
  });
  auto waiting = FileLock::acquire(file, 10s);
  releaser.join();
  EXPECT_TRUE(waiting.ok()) << waiting.error().describe();
}

TEST(FileLock, MissingFolderIsAnIoErrorNamingTheLockFile) {
  ScratchDir dir;
  const fs::path file = dir.path() / "missing" / "f";
  auto lock = FileLock::acquire(file, 1s);
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.error().code(), ErrorCode::IO_ERROR);
  EXPECT_EQ(lock.error().message(),
            "cannot open lock file " + file.string() + ".lock: No such file or directory");
}

TEST(FileLock, PathUnderARegularFileIsAnIoError) {
  ScratchDir dir;
  std::ofstream(dir.path() / "x") << "file";
  auto lock = FileLock::acquire(dir.path() / "x" / "f", 0ms);
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.error().code(), ErrorCode::IO_ERROR);
  EXPECT_THAT(lock.error().message(), HasSubstr("Not a directory"));
}

}  // namespace
}  // namespace tunekit::store
