// Damaged cache files, read the same way by every reader: a key or header of
// tens of thousands of dotted parts (refused before toml++ would overflow
// its stack on it), a TOML syntax error inside one entry, and a file past the
// size limit. The loader, the updater and the format reader all recover the
// intact entries through salvage_kernel_tuning_cache and name the damaged part.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "cache_fixture.hpp"
#include "tunekit/tuning/kernel_tuning_cache.hpp"

namespace tunekit::tuning {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using EntryStatus = KernelTuningCacheEntryStatus;
using UpdateStatus = KernelTuningCacheUpdateStatus;
using testing::CacheTest;
using testing::calibrated;
using testing::entry;
using testing::milan;
using testing::read_text;
using testing::write_text;

constexpr const char* kDeepMessage = "table header with more than 64 dotted parts (limit: 64 parts per key)";

std::string dotted(std::size_t parts) {
  std::string key = "x";
  for (std::size_t i = 1; i < parts; ++i) key += ".x";
  return key;
}

std::size_t line_of(const std::string& text, std::size_t offset) {
  return static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n')) + 1;
}

// Two entries (float, then double), with `damage` inserted as a line of the
// second entry, just before its `kernel = ` line; `line` receives its line.
std::string damaged_second_entry(const std::string& damage, std::size_t& line) {
  std::string text = format_kernel_tuning_cache({entry(calibrated(DataType::FLOAT, milan(), 64)),
                                                 entry(calibrated(DataType::DOUBLE, milan(), 32))});
  const auto second = text.find("[[entries]]", text.find("[[entries]]") + 1);
  const auto at = text.find("kernel = ", second);
  text.insert(at, damage + "\n");
  line = line_of(text, at);
  return text;
}

TEST(KernelTuningCacheDamage, AFiftyThousandPartHeaderBeforeTheEntriesFailsTheFileNamingLineAndLimit) {
  const std::string text = "schema_version = 1\n[" + dotted(50000) + "]\n";
  auto strict = parse_kernel_tuning_cache(text, "c.toml");
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.error().code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(strict.error().message(), std::string("c.toml:2:1: ") + kDeepMessage);
  auto salvaged = salvage_kernel_tuning_cache(text, "c.toml");
  ASSERT_FALSE(salvaged.ok());
  EXPECT_EQ(salvaged.error().message(), std::string("c.toml:2:1: ") + kDeepMessage);
}

TEST(KernelTuningCacheDamage, AFiftyThousandPartHeaderInsideAnEntryDamagesOnlyThatEntry) {
  std::size_t line = 0;
  const std::string text = damaged_second_entry("[entries." + dotted(50000) + "]", line);
  auto strict = parse_kernel_tuning_cache(text, "c.toml");
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.error().message(), "c.toml:" + std::to_string(line) + ":1: " + kDeepMessage);

  auto salvaged = salvage_kernel_tuning_cache(text, "c.toml");
  ASSERT_TRUE(salvaged.ok()) << salvaged.error().message();
  EXPECT_TRUE(salvaged->salvaged);
  EXPECT_EQ(salvaged->document_error, "c.toml:" + std::to_string(line) + ":1: " + kDeepMessage);
  ASSERT_EQ(salvaged->entries.size(), 1u);
  EXPECT_EQ(salvaged->entries[0].entry, entry(calibrated(DataType::FLOAT, milan(), 64)));
  ASSERT_EQ(salvaged->malformed.size(), 1u);
  EXPECT_EQ(salvaged->malformed[0].index, 1u);
  EXPECT_EQ(salvaged->malformed[0].field, "entries[1]");
  EXPECT_EQ(salvaged->malformed[0].line, line);
  EXPECT_EQ(salvaged->malformed[0].column, 1u);
  EXPECT_EQ(salvaged->malformed[0].describe("c.toml"),
            "c.toml:" + std::to_string(line) + ":1: entries[1]: " + kDeepMessage);
}

TEST(KernelTuningCacheDamage, AFileLargerThanSixteenMebibytesIsRefusedWholeEvenBySalvage) {
  std::string text = "schema_version = 1\n#";
  text.resize((std::size_t{16} << 20) + 1, 'x');
  const std::string expected = "c.toml: 16777217 bytes, more than the limit of 16777216 bytes for a TOML file";
  EXPECT_EQ(parse_kernel_tuning_cache(text, "c.toml").error().message(), expected);
  EXPECT_EQ(salvage_kernel_tuning_cache(text, "c.toml").error().message(), expected);
  text.pop_back();
  EXPECT_TRUE(parse_kernel_tuning_cache(text, "c.toml").ok());
}

TEST_F(CacheTest, LoadingRecoversTheIntactEntriesOfAFileWithATomlSyntaxError) {
  std::size_t line = 0;
  const std::string text = damaged_second_entry("this is = = not toml", line);
  const auto report = LoadKernelTuningCacheText(text, "c.toml", {}, options);
  EXPECT_EQ(report.file_status, KernelTuningCacheFileStatus::READ) << report.summary();
  EXPECT_THAT(report.salvage_reason, HasSubstr("c.toml:" + std::to_string(line) + ":"));
  ASSERT_EQ(report.entries.size(), 2u);
  EXPECT_EQ(report.entries[0].status, EntryStatus::LOADED);
  EXPECT_EQ(report.entries[1].status, EntryStatus::INVALID);
  EXPECT_EQ(report.entries[1].line, line);
  EXPECT_EQ(report.entries[1].field, "entries[1]");
  EXPECT_THAT(report.entries[1].reason, HasSubstr("c.toml:" + std::to_string(line) + ":"));
  EXPECT_EQ(registry.snapshot()->calibrated_profiles(testing::gemm_key(DataType::FLOAT)).size(), 1u);
  EXPECT_EQ(report.missing, (std::vector<KernelTuningKey>{testing::gemm_key(DataType::DOUBLE)}));
  EXPECT_THAT(report.summary(), HasSubstr("recovered piece by piece"));
}

TEST_F(CacheTest, LoadingAFileWithAFiftyThousandPartHeaderLoadsTheOtherEntries) {
  std::size_t line = 0;
  const std::string text = damaged_second_entry("[entries." + dotted(50000) + "]", line);
  const auto report = LoadKernelTuningCacheText(text, "c.toml", {}, options);
  EXPECT_EQ(report.file_status, KernelTuningCacheFileStatus::READ) << report.summary();
  ASSERT_EQ(report.entries.size(), 2u);
  EXPECT_EQ(report.entries[0].status, EntryStatus::LOADED);
  EXPECT_EQ(report.entries[1].status, EntryStatus::INVALID);
  EXPECT_EQ(report.entries[1].reason, "c.toml:" + std::to_string(line) + ":1: entries[1]: " + kDeepMessage);

  const auto whole = LoadKernelTuningCacheText("schema_version = 1\n[" + dotted(50000) + "]\n", "d.toml", {}, options);
  EXPECT_EQ(whole.file_status, KernelTuningCacheFileStatus::MALFORMED);
  EXPECT_EQ(whole.file_reason, std::string("d.toml:2:1: ") + kDeepMessage);
}

TEST_F(CacheTest, UpdatingAFileWithAFiftyThousandPartHeaderKeepsItAsideAndWritesTheIntactEntries) {
  std::size_t line = 0;
  fs::create_directories(path.parent_path());
  const std::string text = damaged_second_entry("[entries." + dotted(50000) + "]", line);
  write_text(path, text);
  auto report = update({calibrated(DataType::FLOAT, testing::alder_lake(), 16)});
  ASSERT_EQ(report.status, UpdateStatus::WRITTEN) << report.summary();
  ASSERT_TRUE(report.moved_aside);
  EXPECT_EQ(read_text(*report.moved_aside), text);
  ASSERT_EQ(report.dropped.size(), 1u);
  EXPECT_EQ(report.dropped[0].reason, path.string() + ":" + std::to_string(line) + ":1: entries[1]: " + kDeepMessage);
  auto written = parse_kernel_tuning_cache(read_text(path), "cache");
  ASSERT_TRUE(written.ok()) << written.error().message();
  EXPECT_EQ(written->entries.size(), 2u);  // the intact Milan entry and the new one
}

}  // namespace
}  // namespace tunekit::tuning
