// Unit tests of the atomic writer and the file readers: contents, clean-up,
// permissions and the messages of each failing step.
#include "tunekit/store/atomic_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/scratch_dir.hpp"

namespace tunekit::store {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class ScratchDir : public testing::ScratchDir {
 public:
  ScratchDir() : testing::ScratchDir("tunekit-store") {}
};

std::vector<std::string> names_in(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  return names;
}

void write_plain(const fs::path& path, const std::string& contents) {
  std::ofstream(path, std::ios::binary) << contents;
}

mode_t mode_of(const fs::path& path) {
  struct stat info {};
  EXPECT_EQ(::stat(path.c_str(), &info), 0);
  return info.st_mode & 07777;
}

std::string every_byte_value(std::size_t repeats) {
  std::string bytes;
  for (std::size_t r = 0; r < repeats; ++r) {
    for (int b = 0; b < 256; ++b) bytes.push_back(static_cast<char>(b));
  }
  return bytes;
}

TEST(WriteFileAtomically, CreatesANewFile) {
  ScratchDir dir;
  const fs::path target = dir.path() / "cache.toml";
  ASSERT_TRUE(write_file_atomically(target, "a = 1\n").is_good());
  auto read = read_file(target);
  ASSERT_TRUE(read.ok()) << read.error().describe();
  EXPECT_EQ(*read, "a = 1\n");
}

TEST(WriteFileAtomically, ReplacesTheTargetAndLeavesNoTemporaryFileBehind) {
  ScratchDir dir;
  const fs::path target = dir.path() / "overrides.json";
  write_plain(target, "old contents that are longer than the new ones");
  ASSERT_TRUE(write_file_atomically(target, "new").is_good());
  ASSERT_TRUE(write_file_atomically(target, "newer").is_good());
  EXPECT_EQ(*read_file(target), "newer");
  EXPECT_THAT(names_in(dir.path()), ::testing::ElementsAre("overrides.json"));
}

TEST(WriteFileAtomically, RoundTripsBinaryBytesIncludingNul) {
  ScratchDir dir;
  const fs::path target = dir.path() / "blob";
  const std::string bytes = std::string("\0\0head\0", 7) + every_byte_value(4096);  // about 1 MiB
  ASSERT_TRUE(write_file_atomically(target, bytes).is_good());
  auto read = read_file(target);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->size(), bytes.size());
  EXPECT_TRUE(*read == bytes);
}

TEST(WriteFileAtomically, WritesAnEmptyFile) {
  ScratchDir dir;
  const fs::path target = dir.path() / "empty";
  write_plain(target, "something");
  ASSERT_TRUE(write_file_atomically(target, "").is_good());
  EXPECT_EQ(*read_file(target), "");
}

TEST(WriteFileAtomically, WritesARelativePathIntoTheCurrentFolder) {
  ScratchDir dir;
  const fs::path saved = fs::current_path();
  fs::current_path(dir.path());
  Error error = write_file_atomically("relative.txt", "here");
  fs::current_path(saved);
  ASSERT_TRUE(error.is_good()) << error.describe();
  EXPECT_EQ(*read_file(dir.path() / "relative.txt"), "here");
}

TEST(WriteFileAtomically, FailsInAMissingFolderNamingThePathAndStep) {
  ScratchDir dir;
  const fs::path target = dir.path() / "missing" / "cache.toml";
  Error error = write_file_atomically(target, "x");
  ASSERT_TRUE(error.is_bad());
  EXPECT_EQ(error.code(), ErrorCode::IO_ERROR);
  EXPECT_THAT(error.message(), HasSubstr(target.string()));
  EXPECT_THAT(error.message(), HasSubstr("create"));
  EXPECT_THAT(error.message(), HasSubstr("No such file or directory"));
  EXPECT_FALSE(fs::exists(dir.path() / "missing"));
}

TEST(WriteFileAtomically, CreatesMissingFoldersWhenAsked) {
  ScratchDir dir;
  const fs::path target = dir.path() / "a" / "b" / "cache.toml";
  AtomicWriteOptions options;
  options.create_parent_folders = true;
  Error error = write_file_atomically(target, "x", options);
  ASSERT_TRUE(error.is_good()) << error.describe();
  EXPECT_EQ(*read_file(target), "x");
}

// Permission bits do not stop root, so an unwritable place is made by
// putting the target under a regular file.
TEST(WriteFileAtomically, FailsUnderARegularFileNamingThePath) {
  ScratchDir dir;
  write_plain(dir.path() / "x", "i am a file");
  const fs::path target = dir.path() / "x" / "file";
  Error error = write_file_atomically(target, "data");
  ASSERT_EQ(error.code(), ErrorCode::IO_ERROR);
  EXPECT_THAT(error.message(), HasSubstr("cannot write " + target.string() + ": create "));
  EXPECT_THAT(error.message(), HasSubstr("Not a directory"));

  AtomicWriteOptions options;
  options.create_parent_folders = true;
  Error with_folders = write_file_atomically(target, "data", options);
  ASSERT_EQ(with_folders.code(), ErrorCode::IO_ERROR);
  EXPECT_THAT(with_folders.message(), HasSubstr("create folder " + (dir.path() / "x").string()));
  EXPECT_EQ(*read_file(dir.path() / "x"), "i am a file");
}

TEST(WriteFileAtomically, RenameFailureRemovesTheTemporaryFileAndLeavesTheTargetUntouched) {
  ScratchDir dir;
  const fs::path target = dir.path() / "occupied";
  fs::create_directory(target);
  write_plain(target / "inside", "kept");
  Error error = write_file_atomically(target, "data");
  ASSERT_EQ(error.code(), ErrorCode::IO_ERROR);
  EXPECT_THAT(error.message(), HasSubstr("cannot write " + target.string() + ": rename "));
  EXPECT_THAT(names_in(dir.path()), ::testing::ElementsAre("occupied"));
  EXPECT_EQ(*read_file(target / "inside"), "kept");
}

// RLIMIT_FSIZE makes the kernel cut the write short and then refuse it, the
// only portable way to exercise the short-write loop and the write failure.
TEST(WriteFileAtomically, WriteFailureRemovesTheTemporaryFileAndLeavesTheTargetUntouched) {
  ScratchDir dir;
  const fs::path target = dir.path() / "data";
  write_plain(target, "previous");

  struct rlimit saved {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 1000;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  Error error = write_file_atomically(target, std::string(5000, 'z'));
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);

  ASSERT_EQ(error.code(), ErrorCode::IO_ERROR);
  EXPECT_THAT(error.message(), HasSubstr("cannot write " + target.string() + ": write "));
  EXPECT_THAT(error.message(), HasSubstr("File too large"));
  EXPECT_EQ(*read_file(target), "previous");
  EXPECT_THAT(names_in(dir.path()), ::testing::ElementsAre("data"));
}

TEST(WriteFileAtomically, KeepsThePermissionsOfAnExistingTarget) {
  ScratchDir dir;
  const fs::path target = dir.path() / "private";
  write_plain(target, "old");
  ASSERT_EQ(::chmod(target.c_str(), 0600), 0);
  ASSERT_TRUE(write_file_atomically(target, "new").is_good());
  EXPECT_EQ(mode_of(target), 0600u);

  ASSERT_EQ(::chmod(target.c_str(), 0751), 0);
  ASSERT_TRUE(write_file_atomically(target, "newer").is_good());
  EXPECT_EQ(mode_of(target), 0751u);
}

TEST(WriteFileAtomically, GivesANewFile0644LessTheUmask) {
  ScratchDir dir;
  mode_t saved = ::umask(022);
  Error first = write_file_atomically(dir.path() / "public", "x");
  ::umask(077);
  Error second = write_file_atomically(dir.path() / "private", "x");
  ::umask(saved);
  ASSERT_TRUE(first.is_good() && second.is_good());
  EXPECT_EQ(mode_of(dir.path() / "public"), 0644u);
  EXPECT_EQ(mode_of(dir.path() / "private"), 0600u);
}

TEST(WriteFileAtomically, RunsTheHookWithTheTargetStillOldAndTheTemporaryFileComplete) {
  ScratchDir dir;
  const fs::path target = dir.path() / "cache.toml";
  write_plain(target, "old");
  std::string seen_target;
  std::vector<std::string> seen_names;
  std::string seen_temporary;
  AtomicWriteOptions options;
  options.before_rename = [&] {
    seen_target = *read_file(target);
    seen_names = names_in(dir.path());
    for (const auto& name : seen_names) {
      if (name != "cache.toml") seen_temporary = *read_file(dir.path() / name);
    }
  };
  ASSERT_TRUE(write_file_atomically(target, "new", options).is_good());
  EXPECT_EQ(seen_target, "old");
  ASSERT_EQ(seen_names.size(), 2u);
  EXPECT_THAT(seen_names, ::testing::Contains(::testing::StartsWith(".cache.toml.tmp-")));
  EXPECT_EQ(seen_temporary, "new");
  EXPECT_EQ(*read_file(target), "new");
}

TEST(IsTemporaryFileOf, RecognisesExactlyTheNamesTheWriterCreatesForThatTarget) {
  const fs::path target = "/data/cache.toml";
  EXPECT_TRUE(is_temporary_file_of(target, ".cache.toml.tmp-a1b2c3"));
  EXPECT_FALSE(is_temporary_file_of(target, ".cache.toml.tmp-a1b2c"));
  EXPECT_FALSE(is_temporary_file_of(target, ".cache.toml.tmp-a1b2c3d"));
  EXPECT_FALSE(is_temporary_file_of(target, ".cache.toml.tmp-A1B2C3"));
  EXPECT_FALSE(is_temporary_file_of(target, ".cache.tom.tmp-a1b2c3"));
  EXPECT_FALSE(is_temporary_file_of(target, "cache.toml.tmp-a1b2c3"));
  EXPECT_FALSE(is_temporary_file_of(target, "cache.toml"));
  const std::string long_name(230, 'n');
  EXPECT_TRUE(is_temporary_file_of(fs::path("/data") / long_name, "." + long_name.substr(0, 200) + ".tmp-zzzzzz"));
}

TEST(WriteFileAtomically, RejectsAPathWithoutAFileName) {
  ScratchDir dir;
  Error error = write_file_atomically(dir.path() / "", "x");
  EXPECT_EQ(error.code(), ErrorCode::IO_ERROR);
  EXPECT_THAT(error.message(), HasSubstr("not a file path"));
}

TEST(ReadFile, ReportsAMissingFileNamingThePath) {
  ScratchDir dir;
  const fs::path path = dir.path() / "absent.toml";
  auto read = read_file(path);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code(), ErrorCode::IO_ERROR);
  EXPECT_EQ(read.error().message(), "cannot open " + path.string() + ": No such file or directory");
}

TEST(ReadFile, ReportsAFolderAsUnreadable) {
  ScratchDir dir;
  auto read = read_file(dir.path());
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code(), ErrorCode::IO_ERROR);
  EXPECT_THAT(read.error().message(), HasSubstr(dir.path().string()));
}

TEST(ReadFileIfExists, ReturnsNothingForAMissingFile) {
  ScratchDir dir;
  auto read = read_file_if_exists(dir.path() / "absent");
  ASSERT_TRUE(read.ok());
  EXPECT_FALSE(read->has_value());
}

TEST(ReadFileIfExists, ReturnsTheContentsOfAnExistingFile) {
  ScratchDir dir;
  write_plain(dir.path() / "present", std::string("a\0b", 3));
  auto read = read_file_if_exists(dir.path() / "present");
  ASSERT_TRUE(read.ok());
  ASSERT_TRUE(read->has_value());
  EXPECT_EQ(**read, std::string("a\0b", 3));
}

TEST(ReadFileIfExists, ReportsOtherFailuresAsErrors) {
  ScratchDir dir;
  write_plain(dir.path() / "x", "file");
  auto read = read_file_if_exists(dir.path() / "x" / "below");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code(), ErrorCode::IO_ERROR);
  EXPECT_THAT(read.error().message(), HasSubstr("Not a directory"));
}

}  // namespace
}  // namespace tunekit::store
