// Unit tests of update_file_locked with real files: first write, merge of the
// current bytes, unchanged plans, the move-aside of an unreadable file and
// its failure policies, merge errors, removal of a killed writer's temporary
// files, and a lock held by another thread or process timing out.
#include "tunekit/store/locked_update.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "support/scratch_dir.hpp"
#include "tunekit/store/atomic_file.hpp"
#include "tunekit/store/file_lock.hpp"

namespace tunekit::store {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using ::testing::HasSubstr;

class ScratchDir : public testing::ScratchDir {
 public:
  ScratchDir() : testing::ScratchDir("tunekit-locked-update") {}
};

void write_plain(const fs::path& path, const std::string& contents) {
  std::ofstream(path, std::ios::binary) << contents;
}

std::string contents_of(const fs::path& path) { return *read_file(path); }

std::vector<std::string> names_in(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A merge step that appends a line and records what it was given.
struct Appender {
  std::vector<std::optional<std::string>> seen;
  MergeStep step(const std::string& line, bool move_aside = false, bool overwrite_if_move_fails = false) {
    return [this, line, move_aside, overwrite_if_move_fails](const std::optional<std::string>& current) -> Result<UpdatePlan> {
      seen.push_back(current);
      return UpdatePlan{current.value_or("") + line, move_aside, overwrite_if_move_fails};
    };
  }
};

// Writes `target` in a child process that dies just before the rename, so its
// temporary file stays behind as after a crash.
void leave_a_temporary_file(const fs::path& target) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    AtomicWriteOptions options;
    options.before_rename = [] { ::_exit(0); };
    (void)write_file_atomically(target, "half-written", options);
    ::_exit(1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(UpdateFileLocked, CreatesTheFileAndItsFoldersOnTheFirstUpdate) {
  ScratchDir dir;
  const fs::path target = dir.path() / "a" / "b" / "file.json";
  Appender merge;
  auto outcome = update_file_locked(target, merge.step("one\n"));
  ASSERT_TRUE(outcome.ok()) << outcome.error().message();
  EXPECT_EQ(outcome->status, LockedUpdateOutcome::Status::WRITTEN);
  EXPECT_FALSE(outcome->moved_aside);
  EXPECT_TRUE(outcome->removed_temporaries.empty());
  ASSERT_EQ(merge.seen.size(), 1u);
  EXPECT_EQ(merge.seen[0], std::nullopt);
  EXPECT_EQ(contents_of(target), "one\n");
  EXPECT_EQ(names_in(target.parent_path()), (std::vector<std::string>{"file.json", "file.json.lock"}));
}

TEST(UpdateFileLocked, TheMergeStepSeesTheCurrentBytesAndItsPlanReplacesThem) {
  ScratchDir dir;
  const fs::path target = dir.path() / "file";
  write_plain(target, std::string("zero\0\n", 6));
  Appender merge;
  ASSERT_TRUE(update_file_locked(target, merge.step("one\n")).ok());
  ASSERT_TRUE(update_file_locked(target, merge.step("two\n")).ok());
  ASSERT_EQ(merge.seen.size(), 2u);
  EXPECT_EQ(merge.seen[0], std::string("zero\0\n", 6));
  EXPECT_EQ(merge.seen[1], std::string("zero\0\none\n", 10));
  EXPECT_EQ(contents_of(target), std::string("zero\0\none\ntwo\n", 14));
}

TEST(UpdateFileLocked, APlanEqualToTheCurrentBytesLeavesTheFileUntouched) {
  ScratchDir dir;
  const fs::path target = dir.path() / "file";
  write_plain(target, "same");
  struct stat before {};
  ASSERT_EQ(::stat(target.c_str(), &before), 0);
  auto outcome = update_file_locked(target, [](const std::optional<std::string>&) -> Result<UpdatePlan> {
    return UpdatePlan{"same"};
  });
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->status, LockedUpdateOutcome::Status::UNCHANGED);
  struct stat after {};
  ASSERT_EQ(::stat(target.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);  // not replaced by a rename
}

TEST(UpdateFileLocked, AnUnreadableFileIsMovedAsideWithItsBytesAndTheSalvagedContentsWritten) {
  ScratchDir dir;
  const fs::path target = dir.path() / "cache.toml";
  write_plain(target, "good = 1\n[[broken");
  LockedUpdateOptions options;
  options.unix_seconds = 1700000000;
  auto salvage = [](const std::optional<std::string>& current) -> Result<UpdatePlan> {
    // The format keeps what it could read (the first line) and adds its own.
    return UpdatePlan{current->substr(0, current->find('\n') + 1) + "new = 2\n", true};
  };
  auto outcome = update_file_locked(target, salvage, options);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message();
  EXPECT_EQ(outcome->status, LockedUpdateOutcome::Status::WRITTEN);
  ASSERT_TRUE(outcome->moved_aside);
  EXPECT_EQ(*outcome->moved_aside, dir.path() / "cache.toml.corrupt-1700000000");
  EXPECT_EQ(contents_of(*outcome->moved_aside), "good = 1\n[[broken");
  EXPECT_EQ(contents_of(target), "good = 1\nnew = 2\n");
  EXPECT_TRUE(outcome->move_aside_error.is_good());

  // Moving aside is asked for even when the salvaged contents equal the old bytes.
  write_plain(target, "same");
  auto again = update_file_locked(target, [](const std::optional<std::string>&) -> Result<UpdatePlan> {
    return UpdatePlan{"same", true};
  }, options);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->status, LockedUpdateOutcome::Status::WRITTEN);
  EXPECT_EQ(again->moved_aside, dir.path() / "cache.toml.corrupt-1700000000.1");
}

TEST(UpdateFileLocked, AFailedMoveAsideFailsTheUpdateUnlessThePlanOverwrites) {
  ScratchDir dir;
  const fs::path target = dir.path() / "overrides.json";
  write_plain(target, "{ broken");
  LockedUpdateOptions options;
  options.move_aside = [](const fs::path& file, std::int64_t) -> Result<fs::path> {
    return Error(ErrorCode::IO_ERROR, "cannot move " + file.string() + " aside: Read-only file system");
  };
  Appender merge;
  auto refused = update_file_locked(target, merge.step("fresh", true, false), options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), ErrorCode::IO_ERROR);
  EXPECT_EQ(refused.error().message(), "cannot move " + target.string() + " aside: Read-only file system");
  EXPECT_EQ(contents_of(target), "{ broken");

  auto overwritten = update_file_locked(target, [](const std::optional<std::string>&) -> Result<UpdatePlan> {
    return UpdatePlan{"fresh", true, true};
  }, options);
  ASSERT_TRUE(overwritten.ok()) << overwritten.error().message();
  EXPECT_FALSE(overwritten->moved_aside);
  EXPECT_EQ(overwritten->move_aside_error.message(), "cannot move " + target.string() + " aside: Read-only file system");
  EXPECT_EQ(contents_of(target), "fresh");
}

TEST(UpdateFileLocked, AMergeErrorIsReturnedUnchangedAndNothingIsWritten) {
  ScratchDir dir;
  const fs::path target = dir.path() / "file";
  write_plain(target, "version = 9");
  auto outcome = update_file_locked(target, [](const std::optional<std::string>&) -> Result<UpdatePlan> {
    return Error(ErrorCode::NOT_SUPPORTED, "file: version 9 is newer than this build's");
  });
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error(), Error(ErrorCode::NOT_SUPPORTED, "file: version 9 is newer than this build's"));
  EXPECT_EQ(contents_of(target), "version = 9");
  EXPECT_EQ(names_in(dir.path()), (std::vector<std::string>{"file", "file.lock"}));
}

TEST(UpdateFileLocked, RemovesTheTemporaryFileOfAWriterKilledBeforeItsRename) {
  ScratchDir dir;
  const fs::path target = dir.path() / "cache.toml";
  write_plain(target, "old");
  leave_a_temporary_file(target);
  std::vector<std::string> names = names_in(dir.path());
  ASSERT_EQ(names.size(), 2u);  // .cache.toml.tmp-XXXXXX and cache.toml
  const fs::path leftover = dir.path() / names[0];
  ASSERT_THAT(names[0], ::testing::StartsWith(".cache.toml.tmp-"));
  ASSERT_EQ(contents_of(leftover), "half-written");
  // Look-alikes of other targets, or not made by the atomic writer, stay.
  const std::vector<std::string> others{".cache.toml.tmp-abc", ".cache.toml.tmp-ABCDEF", ".cache.toml.tmp-abcdefg",
                                        ".other.toml.tmp-abc123", "cache.toml.tmp-abc123"};
  for (const std::string& name : others) write_plain(dir.path() / name, "x");

  Appender merge;
  auto outcome = update_file_locked(target, merge.step("+new"));
  ASSERT_TRUE(outcome.ok()) << outcome.error().message();
  EXPECT_EQ(outcome->removed_temporaries, (std::vector<fs::path>{leftover}));
  EXPECT_FALSE(fs::exists(leftover));
  for (const std::string& name : others) EXPECT_TRUE(fs::exists(dir.path() / name)) << name;
  EXPECT_EQ(contents_of(target), "old+new");
}

TEST(UpdateFileLocked, RemovesTheTemporaryFileOfATargetWhoseNameIsCutInTheTemporaryName) {
  ScratchDir dir;
  const fs::path target = dir.path() / std::string(230, 'n');
  leave_a_temporary_file(target);
  ASSERT_EQ(names_in(dir.path()).size(), 1u);
  EXPECT_EQ(names_in(dir.path())[0].size(), 1u + 200u + 5u + 6u);
  Appender merge;
  auto outcome = update_file_locked(target, merge.step("x"));
  ASSERT_TRUE(outcome.ok()) << outcome.error().message();
  EXPECT_EQ(outcome->removed_temporaries.size(), 1u);
  EXPECT_EQ(names_in(dir.path()), (std::vector<std::string>{std::string(230, 'n'), std::string(230, 'n') + ".lock"}));
}

TEST(UpdateFileLocked, ALockHeldByAnotherThreadTimesOutNamingTheFile) {
  ScratchDir dir;
  const fs::path target = dir.path() / "cache.toml";
  write_plain(target, "old");
  std::promise<void> locked;
  std::promise<void> done;
  std::thread holder([&] {
    auto lock = FileLock::acquire(target, 0ms);
    EXPECT_TRUE(lock.ok());
    locked.set_value();
    done.get_future().wait();
  });
  locked.get_future().wait();
  LockedUpdateOptions options;
  options.lock_timeout = 40ms;
  Appender merge;
  auto outcome = update_file_locked(target, merge.step("new"), options);
  done.set_value();
  holder.join();
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code(), ErrorCode::BAD_STATE);
  EXPECT_EQ(outcome.error().message(), "cannot update " + target.string() + ": timed out after 40 ms waiting for lock " +
                                           target.string() + ".lock");
  EXPECT_TRUE(merge.seen.empty());
  EXPECT_EQ(contents_of(target), "old");
}

TEST(UpdateFileLocked, ALockHeldByAnotherProcessTimesOutNamingTheFile) {
  ScratchDir dir;
  const fs::path target = dir.path() / "overrides.json";
  int locked[2];
  int release[2];
  ASSERT_EQ(::pipe(locked), 0);
  ASSERT_EQ(::pipe(release), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    auto lock = FileLock::acquire(target, 0ms);
    const char ready = lock.ok() ? 'y' : 'n';
    (void)!::write(locked[1], &ready, 1);
    char ignored = 0;
    (void)!::read(release[0], &ignored, 1);
    ::_exit(0);
  }
  char ready = 0;
  ASSERT_EQ(::read(locked[0], &ready, 1), 1);
  ASSERT_EQ(ready, 'y');
  LockedUpdateOptions options;
  options.lock_timeout = 30ms;
  Appender merge;
  auto outcome = update_file_locked(target, merge.step("new"), options);
  const char go = 'g';
  ASSERT_EQ(::write(release[1], &go, 1), 1);
  int status = 0;
  ::waitpid(pid, &status, 0);
  for (int fd : {locked[0], locked[1], release[0], release[1]}) ::close(fd);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code(), ErrorCode::BAD_STATE);
  EXPECT_EQ(outcome.error().message(), "cannot update " + target.string() + ": timed out after 30 ms waiting for lock " +
                                           target.string() + ".lock");
  EXPECT_FALSE(fs::exists(target));
  // Once the other process is gone the same update goes through.
  EXPECT_TRUE(update_file_locked(target, merge.step("new"), options).ok());
  EXPECT_EQ(contents_of(target), "new");
}

TEST(UpdateFileLocked, AFolderThatCannotBeCreatedIsAnIoErrorNamingIt) {
  ScratchDir dir;
  write_plain(dir.path() / "plain", "a regular file");
  const fs::path target = dir.path() / "plain" / "sub" / "file";
  Appender merge;
  auto outcome = update_file_locked(target, merge.step("x"));
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code(), ErrorCode::IO_ERROR);
  EXPECT_THAT(outcome.error().message(),
              HasSubstr("cannot create folder " + (dir.path() / "plain" / "sub").string() + " for " + target.string()));
  EXPECT_TRUE(merge.seen.empty());
}

}  // namespace
}  // namespace tunekit::store
