// Unit tests of move_aside_corrupt: the naming scheme, that no earlier
// corrupt file is ever overwritten, and the error for a missing file.
#include "tunekit/store/corrupt_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/scratch_dir.hpp"

namespace tunekit::store {
namespace {

namespace fs = std::filesystem;

class ScratchDir : public testing::ScratchDir {
 public:
  ScratchDir() : testing::ScratchDir("tunekit-corrupt") {}
};

void write_plain(const fs::path& path, const std::string& contents) {
  std::ofstream(path, std::ios::binary) << contents;
}

std::string contents_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(MoveAsideCorrupt, RenamesToCorruptAndTheUnixSeconds) {
  ScratchDir dir;
  const fs::path file = dir.path() / "cache.toml";
  write_plain(file, "[[broken");
  auto moved = move_aside_corrupt(file, 1700000000);
  ASSERT_TRUE(moved.ok()) << moved.error().describe();
  EXPECT_EQ(*moved, dir.path() / "cache.toml.corrupt-1700000000");
  EXPECT_FALSE(fs::exists(file));
  EXPECT_EQ(contents_of(*moved), "[[broken");
}

TEST(MoveAsideCorrupt, TwoMovesInTheSameSecondGetDistinctNamesAndKeepTheirContents) {
  ScratchDir dir;
  const fs::path file = dir.path() / "overrides.json";
  write_plain(file, "first");
  auto a = move_aside_corrupt(file, 42);
  write_plain(file, "second");
  auto b = move_aside_corrupt(file, 42);
  write_plain(file, "third");
  auto c = move_aside_corrupt(file, 42);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(*a, dir.path() / "overrides.json.corrupt-42");
  EXPECT_EQ(*b, dir.path() / "overrides.json.corrupt-42.1");
  EXPECT_EQ(*c, dir.path() / "overrides.json.corrupt-42.2");
  EXPECT_EQ(contents_of(*a), "first");
  EXPECT_EQ(contents_of(*b), "second");
  EXPECT_EQ(contents_of(*c), "third");
}

TEST(MoveAsideCorrupt, SkipsANameThatSomethingElseAlreadyTook) {
  ScratchDir dir;
  const fs::path file = dir.path() / "f";
  write_plain(dir.path() / "f.corrupt-7", "older");
  write_plain(dir.path() / "f.corrupt-7.1", "older too");
  write_plain(file, "now");
  auto moved = move_aside_corrupt(file, 7);
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(*moved, dir.path() / "f.corrupt-7.2");
  EXPECT_EQ(contents_of(dir.path() / "f.corrupt-7"), "older");
  EXPECT_EQ(contents_of(dir.path() / "f.corrupt-7.1"), "older too");
  EXPECT_EQ(contents_of(*moved), "now");
}

TEST(MoveAsideCorrupt, UsesTheCurrentTimeWhenNoneIsGiven) {
  ScratchDir dir;
  const fs::path file = dir.path() / "f";
  write_plain(file, "x");
  auto seconds = [] {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  const auto before = seconds();
  auto moved = move_aside_corrupt(file);
  const auto after = seconds();
  ASSERT_TRUE(moved.ok());
  const std::string name = moved->filename().string();
  ASSERT_EQ(name.rfind("f.corrupt-", 0), 0u) << name;
  const long long stamp = std::stoll(name.substr(std::string("f.corrupt-").size()));
  EXPECT_GE(stamp, before);
  EXPECT_LE(stamp, after);
}

TEST(MoveAsideCorrupt, AMissingFileIsAnIoErrorNamingIt) {
  ScratchDir dir;
  const fs::path file = dir.path() / "absent.toml";
  auto moved = move_aside_corrupt(file, 1);
  ASSERT_FALSE(moved.ok());
  EXPECT_EQ(moved.error().code(), ErrorCode::IO_ERROR);
  EXPECT_THAT(moved.error().message(), ::testing::StartsWith("cannot move " + file.string() + " aside"));
  EXPECT_THAT(moved.error().message(), ::testing::HasSubstr("No such file or directory"));
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

}  // namespace
}  // namespace tunekit::store
