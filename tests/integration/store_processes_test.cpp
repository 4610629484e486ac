// The store across real processes: concurrent locked read-modify-write loses
// nothing, a writer killed before its rename leaves the old file intact, and
// a lock held by another process makes acquire time out. Children are forked
// and leave with _exit, never returning into GoogleTest.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tunekit/store/atomic_file.hpp"
#include "tunekit/store/file_lock.hpp"

#include "support/scratch_dir.hpp"

namespace tunekit::store {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class ScratchDir : public testing::ScratchDir {
 public:
  ScratchDir() : testing::ScratchDir("tunekit-processes") {}
};

// A forked child that is killed and reaped if the test fails before waiting.
class Child {
 public:
  template <typename Body>
  explicit Child(Body body) {
    pid_ = ::fork();
    if (pid_ == 0) ::_exit(body());
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  Child(Child&& other) noexcept : pid_(other.pid_) { other.pid_ = -1; }
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }
  bool started() const { return pid_ > 0; }
  // The wait status; -1 when waiting failed.
  int wait() {
    int status = -1;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_ = -1;
};

// Pipe ends used to hand a one-byte signal between parent and child.
struct Pipe {
  Pipe() { EXPECT_EQ(::pipe(fds), 0); }
  ~Pipe() {
    for (int fd : fds) ::close(fd);
  }
  bool send() const { return ::write(fds[1], "x", 1) == 1; }
  bool receive() const {
    char byte = 0;
    return ::read(fds[0], &byte, 1) == 1;
  }
  int fds[2] = {-1, -1};
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(StoreProcesses, ConcurrentLockedAppendsLoseNoRecord) {
  ScratchDir dir;
  const fs::path file = dir.path() / "records.txt";
  constexpr int kChildren = 8;
  constexpr int kRecords = 50;

  std::vector<Child> children;
  for (int c = 0; c < kChildren; ++c) {
    children.emplace_back([&, c] {
      for (int i = 0; i < kRecords; ++i) {
        auto lock = FileLock::acquire(file, 60s);
        if (!lock.ok()) return 10;
        auto current = read_file_if_exists(file);
        if (!current.ok()) return 11;
        std::string next = current->value_or("");
        next += std::to_string(c) + ":" + std::to_string(i) + "\n";
        if (write_file_atomically(file, next).is_bad()) return 12;
      }
      return 0;
    });
    ASSERT_TRUE(children.back().started());
  }
  for (auto& child : children) {
    int status = child.wait();
    ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
    EXPECT_EQ(WEXITSTATUS(status), 0) << "10: lock, 11: read, 12: write failed";
  }

  auto text = read_file(file);
  ASSERT_TRUE(text.ok()) << text.error().describe();
  std::map<std::string, int> seen;
  for (const auto& line : lines_of(*text)) ++seen[line];
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kChildren * kRecords));
  for (int c = 0; c < kChildren; ++c) {
    for (int i = 0; i < kRecords; ++i) {
      const std::string record = std::to_string(c) + ":" + std::to_string(i);
      EXPECT_EQ(seen[record], 1) << record;
    }
  }
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir.path())) names.push_back(entry.path().filename().string());
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("records.txt", "records.txt.lock"));
}

TEST(StoreProcesses, AWriterKilledBeforeTheRenameLeavesThePreviousFileIntact) {
  ScratchDir dir;
  const fs::path file = dir.path() / "cache.toml";
  const std::string previous = std::string("version = 1\n\0binary\xff\n", 21);
  ASSERT_TRUE(write_file_atomically(file, previous).is_good());

  Child writer([&] {
    auto lock = FileLock::acquire(file, 10s);
    if (!lock.ok()) return 10;
    AtomicWriteOptions options;
    options.before_rename = [] { std::raise(SIGKILL); };
    (void)write_file_atomically(file, "version = 2\n", options);
    return 11;  // the hook should not have returned
  });
  ASSERT_TRUE(writer.started());
  int status = writer.wait();
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit code " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  EXPECT_EQ(WTERMSIG(status), SIGKILL);

  auto after = read_file(file);
  ASSERT_TRUE(after.ok()) << after.error().describe();
  EXPECT_TRUE(*after == previous) << "target changed by a writer that never renamed";

  // What the crash leaves behind: only the hidden, complete temporary file.
  std::vector<std::string> leftovers;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    const std::string name = entry.path().filename().string();
    if (name != "cache.toml" && name != "cache.toml.lock") leftovers.push_back(name);
  }
  ASSERT_EQ(leftovers.size(), 1u);
  EXPECT_THAT(leftovers[0], ::testing::StartsWith(".cache.toml.tmp-"));
  EXPECT_EQ(*read_file(dir.path() / leftovers[0]), "version = 2\n");

  // The killed holder's lock died with it, and the next writer succeeds.
  auto lock = FileLock::acquire(file, 0ms);
  ASSERT_TRUE(lock.ok()) << lock.error().describe();
  ASSERT_TRUE(write_file_atomically(file, "version = 3\n").is_good());
  EXPECT_EQ(*read_file(file), "version = 3\n");
}

TEST(StoreProcesses, ALockHeldByAnotherProcessMakesAcquireTimeOut) {
  ScratchDir dir;
  const fs::path file = dir.path() / "overrides.json";
  Pipe locked;   // child -> parent: the lock is held
  Pipe release;  // parent -> child: let go

  Child holder([&] {
    auto lock = FileLock::acquire(file, 10s);
    if (!lock.ok()) return 10;
    if (!locked.send()) return 11;
    (void)release.receive();  // also returns when the parent dies (end of file)
    return 0;
  });
  ASSERT_TRUE(holder.started());
  ASSERT_TRUE(locked.receive());

  const auto start = std::chrono::steady_clock::now();
  auto attempt = FileLock::acquire(file, 200ms);
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(attempt.ok());
  EXPECT_EQ(attempt.error().code(), ErrorCode::BAD_STATE);
  EXPECT_EQ(attempt.error().message(),
            "timed out after 200 ms waiting for lock " + (dir.path() / "overrides.json.lock").string());
  EXPECT_GE(waited, 200ms);
  EXPECT_FALSE(FileLock::acquire(file, 0ms, LockMode::SHARED).ok());

  ASSERT_TRUE(release.send());
  int status = holder.wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(FileLock::acquire(file, 0ms).ok());
}

TEST(StoreProcesses, SharedLocksOfTwoProcessesCoexistAndExcludeAWriter) {
  ScratchDir dir;
  const fs::path file = dir.path() / "cache.toml";
  Pipe locked;
  Pipe release;

  Child reader([&] {
    auto lock = FileLock::acquire(file, 10s, LockMode::SHARED);
    if (!lock.ok()) return 10;
    if (!locked.send()) return 11;
    (void)release.receive();
    return 0;
  });
  ASSERT_TRUE(reader.started());
  ASSERT_TRUE(locked.receive());

  EXPECT_TRUE(FileLock::acquire(file, 0ms, LockMode::SHARED).ok());
  auto writer = FileLock::acquire(file, 20ms, LockMode::EXCLUSIVE);
  ASSERT_FALSE(writer.ok());
  EXPECT_EQ(writer.error().code(), ErrorCode::BAD_STATE);

  ASSERT_TRUE(release.send());
  int status = reader.wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace tunekit::store
