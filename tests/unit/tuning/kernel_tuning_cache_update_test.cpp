// UpdateKernelTuningCache: validation of profiles, deterministic files,
// merge and prune options, read-only mode, locking, and files that do not
// parse (moved aside, their intact entries kept).
#include "tunekit/tuning/kernel_tuning_cache.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cache_fixture.hpp"
#include "tunekit/store/file_lock.hpp"

namespace tunekit::tuning {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using EntryStatus = KernelTuningCacheEntryStatus;
using UpdateStatus = KernelTuningCacheUpdateStatus;
using testing::alder_lake;
using testing::calibrated;
using testing::CacheTest;
using testing::entry;
using testing::gemm_binding;
using testing::gemm_key;
using testing::milan;
using testing::read_text;
using testing::with_abi;
using testing::write_text;

TEST_F(CacheTest, TypedValuesKeepTheirTypeAndFloatsStayFloats) {
  ASSERT_TRUE(update({calibrated(DataType::FLOAT, milan(), 64, 1.0)}).ok());
  const std::string text = read_text(path);
  EXPECT_THAT(text, HasSubstr("\"algorithm.pack_ratio\" = 1.0\n"));
  EXPECT_THAT(text, HasSubstr("\"algorithm.tile_k\" = 64\n"));
  EXPECT_THAT(text, HasSubstr("\"algorithm.prepack\" = false\n"));
  EXPECT_THAT(text, HasSubstr("\"algorithm.kind\" = \"packed\"\n"));

  auto parsed = parse_kernel_tuning_cache(text, "cache");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  ASSERT_EQ(parsed->entries.size(), 1u);
  const auto& values = parsed->entries[0].entry.parameters.values;
  EXPECT_TRUE(values.at("algorithm.pack_ratio").is_double());
  EXPECT_EQ(values.at("algorithm.pack_ratio"), Value(1.0));
  EXPECT_TRUE(values.at("algorithm.tile_k").is_int());
  EXPECT_TRUE(values.at("algorithm.prepack").is_bool());
  EXPECT_TRUE(values.at("algorithm.kind").is_string());
}

TEST_F(CacheTest, EqualInputsGiveByteIdenticalFiles) {
  auto a = calibrated(DataType::FLOAT, milan(), 64, 0.1);
  auto b = calibrated(DataType::DOUBLE, milan(), 32, 0.25);
  auto c = calibrated(DataType::FLOAT, alder_lake(), 16, 1.0 / 3.0);
  ASSERT_TRUE(update({a, b, c}).ok());
  const std::string first = read_text(path);

  KernelTuningCacheOptions other = options;
  other.path = dir.path() / "other.toml";
  ASSERT_TRUE(update({c, a, b}, &other).ok());
  EXPECT_EQ(read_text(*other.path), first);

  auto again = update({b, c, a});
  EXPECT_EQ(again.status, UpdateStatus::UNCHANGED) << again.summary();
  EXPECT_EQ(again.replaced.size(), 3u);
  EXPECT_EQ(read_text(path), first);
}

TEST_F(CacheTest, ReplaceExistingFalseKeepsTheStoredEntry) {
  ASSERT_TRUE(update({calibrated(DataType::FLOAT, milan(), 64)}).ok());
  options.replace_existing = false;
  auto report = update({calibrated(DataType::FLOAT, milan(), 32), calibrated(DataType::DOUBLE, milan(), 16)});
  ASSERT_EQ(report.status, UpdateStatus::WRITTEN) << report.summary();
  ASSERT_EQ(report.kept.size(), 1u);
  EXPECT_EQ(report.kept[0].key.key, gemm_key(DataType::FLOAT));
  EXPECT_THAT(report.kept[0].reason, HasSubstr("replace_existing is false"));
  EXPECT_EQ(report.written.size(), 1u);
  EXPECT_TRUE(report.replaced.empty());

  auto parsed = parse_kernel_tuning_cache(read_text(path), "cache");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->entries.size(), 2u);
  EXPECT_EQ(parsed->entries[0].entry.parameters.values.at("algorithm.tile_k"), Value(64));

  options.replace_existing = true;
  auto replaced = update({calibrated(DataType::FLOAT, milan(), 32)});
  EXPECT_EQ(replaced.replaced.size(), 1u);
  EXPECT_EQ(replaced.preserved, 1u);
  parsed = parse_kernel_tuning_cache(read_text(path), "cache");
  EXPECT_EQ(parsed->entries[0].entry.parameters.values.at("algorithm.tile_k"), Value(32));
}

TEST_F(CacheTest, UpdatePreservesEntriesOfOtherKeysAndExecutions) {
  ASSERT_TRUE(update({calibrated(DataType::FLOAT, alder_lake()), calibrated(DataType::DOUBLE, milan())}).ok());
  auto report = update({calibrated(DataType::FLOAT, milan())});
  EXPECT_EQ(report.written.size(), 1u);
  EXPECT_EQ(report.preserved, 2u);
  auto parsed = parse_kernel_tuning_cache(read_text(path), "cache");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->entries.size(), 3u);
}

TEST_F(CacheTest, PruneStaleAbiDropsEntriesOfAnotherRegisteredAbi) {
  auto old = calibrated(DataType::FLOAT, milan());
  old.parameters.key = with_abi(old.parameters.key, 2);
  auto unknown = calibrated(DataType::FLOAT, milan());
  unknown.parameters.key.library = "other_library";
  write_entries({entry(old), entry(calibrated(DataType::DOUBLE, milan())), entry(unknown)});
  options.prune_stale_abi = true;
  auto report = update({calibrated(DataType::FLOAT, milan())});
  ASSERT_EQ(report.status, UpdateStatus::WRITTEN) << report.summary();
  ASSERT_EQ(report.pruned.size(), 1u);
  EXPECT_EQ(report.pruned[0].key.key.tuning_abi, 2u);
  EXPECT_THAT(report.pruned[0].reason, HasSubstr("stale tuning ABI"));
  EXPECT_EQ(report.preserved, 2u) << "the unregistered library's entry is not stale, only unknown";

  auto parsed = parse_kernel_tuning_cache(read_text(path), "cache");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->entries.size(), 3u);
  for (const auto& item : parsed->entries) EXPECT_NE(item.entry.parameters.key.tuning_abi, 2u);
}

TEST_F(CacheTest, WithoutPruneStaleEntriesArePreserved) {
  auto old = calibrated(DataType::FLOAT, milan());
  old.parameters.key = with_abi(old.parameters.key, 2);
  write_entries({entry(old)});
  auto report = update({calibrated(DataType::FLOAT, milan())});
  EXPECT_TRUE(report.pruned.empty());
  EXPECT_EQ(report.preserved, 1u);
}

TEST_F(CacheTest, PruneExecutionMismatchKeepsOnlyThisExecution) {
  ASSERT_TRUE(update({calibrated(DataType::FLOAT, alder_lake()), calibrated(DataType::FLOAT, milan(4)),
                      calibrated(DataType::DOUBLE, milan())})
                  .ok());
  options.prune_execution_mismatch = true;
  auto report = update({});
  ASSERT_EQ(report.status, UpdateStatus::WRITTEN) << report.summary();
  ASSERT_EQ(report.pruned.size(), 2u);
  EXPECT_THAT(report.pruned[0].reason, HasSubstr("execution mismatch"));
  auto parsed = parse_kernel_tuning_cache(read_text(path), "cache");
  ASSERT_EQ(parsed->entries.size(), 1u);
  EXPECT_EQ(parsed->entries[0].entry.execution, milan());
}

TEST_F(CacheTest, ReadOnlyWritesNothing) {
  options.read_only = true;
  auto report = update({calibrated(DataType::FLOAT, milan())});
  EXPECT_EQ(report.status, UpdateStatus::READ_ONLY);
  EXPECT_FALSE(report.ok());
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path.parent_path())) << "not even the folder is created";
}

TEST_F(CacheTest, OneInvalidProfileRejectsTheWholeUpdate) {
  ASSERT_TRUE(update({calibrated(DataType::FLOAT, milan(), 64)}).ok());
  const std::string before = read_text(path);
  auto bad = calibrated(DataType::DOUBLE, milan());
  bad.parameters.values["algorithm.tile_k"] = 0;  // below the minimum
  auto unregistered = calibrated(DataType::FLOAT16, milan());
  auto report = update({calibrated(DataType::FLOAT, milan(), 32), bad, unregistered});
  EXPECT_EQ(report.status, UpdateStatus::REJECTED);
  ASSERT_EQ(report.rejected.size(), 2u);
  EXPECT_THAT(report.rejected[0].reason, HasSubstr("algorithm.tile_k"));
  EXPECT_THAT(report.rejected[1].reason, HasSubstr("no schema is registered"));
  EXPECT_EQ(report.error.code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(read_text(path), before);
}

TEST_F(CacheTest, ProfileWithInvalidUtf8IsRejected) {
  auto bad = calibrated(DataType::FLOAT, milan());
  bad.library_version = "1.0\xff";
  auto report = update({bad});
  EXPECT_EQ(report.status, UpdateStatus::REJECTED);
  ASSERT_EQ(report.rejected.size(), 1u);
  EXPECT_THAT(report.rejected[0].reason, HasSubstr("library_version: not valid UTF-8"));
}

TEST_F(CacheTest, GarbageFileIsMovedAsideWithItsBytesAndAFreshCacheWritten) {
  fs::create_directories(path.parent_path());
  static constexpr char kGarbage[] = "\x00\xff\xfe garbage [[[ \x01\x02 not toml";
  const std::string garbage(kGarbage, sizeof kGarbage - 1);  // keeps the leading NUL
  write_text(path, garbage);
  auto report = update({calibrated(DataType::FLOAT, milan())});
  ASSERT_EQ(report.status, UpdateStatus::WRITTEN) << report.summary();
  ASSERT_TRUE(report.moved_aside);
  EXPECT_THAT(report.moved_aside->filename().string(), HasSubstr("kernel_tuning.toml.corrupt-"));
  EXPECT_EQ(read_text(*report.moved_aside), garbage);
  ASSERT_EQ(report.dropped.size(), 1u);
  EXPECT_EQ(report.written.size(), 1u);

  KernelTuningRegistry fresh;
  auto loaded = load_fresh(fresh);
  EXPECT_EQ(loaded.file_status, KernelTuningCacheFileStatus::READ);
  EXPECT_EQ(loaded.count(EntryStatus::LOADED), 1u);
}

TEST_F(CacheTest, MalformedEntryIsDroppedAndTheOthersKeptOnUpdate) {
  write_entries({entry(calibrated(DataType::FLOAT, milan())), entry(calibrated(DataType::DOUBLE, milan())),
                 entry(calibrated(DataType::FLOAT, alder_lake()))});
  std::string text = read_text(path);
  const auto second = text.find("[[entries]]", text.find("[[entries]]") + 1);
  const auto threads = text.find("effective_threads = ", second);
  text.replace(threads, text.find('\n', threads) - threads, "effective_threads = \"eight\"");
  write_text(path, text);

  auto report = update({calibrated(DataType::DOUBLE, alder_lake())});
  ASSERT_EQ(report.status, UpdateStatus::WRITTEN) << report.summary();
  ASSERT_TRUE(report.moved_aside);
  EXPECT_EQ(read_text(*report.moved_aside), text);
  ASSERT_EQ(report.dropped.size(), 1u);
  EXPECT_THAT(report.dropped[0].reason, HasSubstr("entries[1].execution.effective_threads"));
  EXPECT_EQ(report.preserved, 2u);
  auto parsed = parse_kernel_tuning_cache(read_text(path), "cache");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->entries.size(), 3u);
  EXPECT_TRUE(parsed->malformed.empty());
}

TEST_F(CacheTest, TruncatedFileKeepsItsCompleteEntries) {
  write_entries({entry(calibrated(DataType::FLOAT, milan())), entry(calibrated(DataType::DOUBLE, milan())),
                 entry(calibrated(DataType::FLOAT, alder_lake()))});
  std::string text = read_text(path);
  const std::string cut = "\"algorithm.kind\" = \"pa";
  text.resize(text.rfind(cut) + cut.size());  // cut inside the last entry's string
  write_text(path, text);
  ASSERT_FALSE(parse_kernel_tuning_cache(text, "cache").ok());

  auto report = update({calibrated(DataType::DOUBLE, alder_lake())});
  ASSERT_EQ(report.status, UpdateStatus::WRITTEN) << report.summary();
  EXPECT_TRUE(report.moved_aside);
  EXPECT_EQ(report.preserved, 2u);
  EXPECT_EQ(report.dropped.size(), 1u);
  auto parsed = parse_kernel_tuning_cache(read_text(path), "cache");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->entries.size(), 3u);
}

TEST_F(CacheTest, DuplicatedEntryIsDroppedOnUpdateKeepingTheFirstCopy) {
  write_entries({entry(calibrated(DataType::FLOAT, milan(), 64)), entry(calibrated(DataType::FLOAT, milan(), 32))});
  auto report = update({calibrated(DataType::DOUBLE, milan())});
  ASSERT_EQ(report.status, UpdateStatus::WRITTEN) << report.summary();
  ASSERT_EQ(report.dropped.size(), 1u);
  EXPECT_THAT(report.dropped[0].reason, HasSubstr("repeats the complete key of entries[0]"));
  EXPECT_TRUE(report.moved_aside);
  auto parsed = parse_kernel_tuning_cache(read_text(path), "cache");
  ASSERT_EQ(parsed->entries.size(), 2u);
  EXPECT_EQ(parsed->entries[0].entry.parameters.values.at("algorithm.tile_k"), Value(64));
}

TEST_F(CacheTest, LockHeldByAnotherWriterTimesTheUpdateOut) {
  fs::create_directories(path.parent_path());
  auto held = store::FileLock::acquire(path, std::chrono::milliseconds(0));
  ASSERT_TRUE(held.ok());
  options.lock_timeout = std::chrono::milliseconds(50);
  auto report = update({calibrated(DataType::FLOAT, milan())});
  EXPECT_EQ(report.status, UpdateStatus::FAILED);
  EXPECT_EQ(report.error.code(), ErrorCode::BAD_STATE);
  EXPECT_EQ(report.error.message(), "cannot update " + path.string() + ": timed out after 50 ms waiting for lock " +
                                        path.string() + ".lock");
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(CacheTest, MergeAcceptsUnregisteredKeysOnlyWhenAllowed) {
  auto other = entry(calibrated(DataType::FLOAT, milan()));
  other.parameters.key.library = "other_library";
  other.tunekit_version = "0.0.9";
  const std::vector<KernelTuningCacheEntry> entries{other};
  EXPECT_EQ(MergeKernelTuningCacheEntries(entries, options).status, UpdateStatus::REJECTED);
  options.allow_unregistered_keys = true;
  ASSERT_EQ(MergeKernelTuningCacheEntries(entries, options).status, UpdateStatus::WRITTEN);
  auto parsed = parse_kernel_tuning_cache(read_text(path), "cache");
  ASSERT_EQ(parsed->entries.size(), 1u);
  EXPECT_EQ(parsed->entries[0].entry, other) << "merged entries keep their recorded tunekit version";
}

}  // namespace
}  // namespace tunekit::tuning
