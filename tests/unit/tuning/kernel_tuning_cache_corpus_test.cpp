// The malformed-cache corpus of the fuzz target (tests/fuzz/corpus/cache),
// run through the loader and the updater: never a crash, never a partially
// published entry, and every file the updater meets ends as a valid cache
// with the unparsable original kept aside.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "cache_test_support.hpp"
#include "tunekit/tuning/kernel_tuning_cache.hpp"

namespace tunekit::tuning {
namespace {

namespace fs = std::filesystem;
using EntryStatus = KernelTuningCacheEntryStatus;
using testing::calibrated;
using testing::gemm_binding;
using testing::gemm_key;
using testing::milan;

std::vector<fs::path> corpus() {
  const fs::path folder = fs::path(TUNEKIT_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / "cache";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

void register_schemas(KernelTuningRegistry& registry) {
  for (DataType t : {DataType::FLOAT, DataType::DOUBLE}) {
    ASSERT_TRUE(registry.try_register_schema(gemm_binding().schema(gemm_key(t))).is_good());
  }
}

TEST(KernelTuningCacheCorpus, CorpusIsThere) { EXPECT_GE(corpus().size(), 30u); }

TEST(KernelTuningCacheCorpus, LoadingPublishesOnlyWholeValidatedEntries) {
  // Loaded entries expected per file; every other file loads nothing.
  const std::map<std::string, std::size_t> expected_loaded = {
      {"valid.toml", 1},         {"valid_two_types.toml", 2}, {"crlf.toml", 1},
      {"bom.toml", 1},           {"schema_invalid_value.toml", 1}, {"unknown_field.toml", 0},
      {"nan_and_inf.toml", 0},   {"name_conflict.toml", 1},   {"duplicate_entries.toml", 0},
      // Damaged files: the loader salvages their intact entries, as every cache reader does.
      {"broken_middle.toml", 2}, {"truncated.toml", 0},         {"deep_entry_header.toml", 1},
      {"deep_header.toml", 0},   {"deep_nesting.toml", 0},
  };
  for (const fs::path& file : corpus()) {
    SCOPED_TRACE(file.filename().string());
    KernelTuningRegistry registry;
    register_schemas(registry);
    const std::uint64_t before = registry.generation_number();
    KernelTuningCacheOptions options;
    options.registry = &registry;
    options.execution = milan();
    const auto report = LoadKernelTuningCacheText(testing::read_text(file), file.string(), {}, options);
    const auto loaded = report.with_status(EntryStatus::LOADED);
    if (auto it = expected_loaded.find(file.filename().string()); it != expected_loaded.end()) {
      EXPECT_EQ(loaded.size(), it->second) << report.summary();
    }
    EXPECT_EQ(registry.generation_number(), before + (loaded.empty() ? 0 : 1));
    for (DataType t : {DataType::FLOAT, DataType::DOUBLE}) {
      const auto published = registry.snapshot()->calibrated_profiles(gemm_key(t));
      const auto count = std::count_if(loaded.begin(), loaded.end(),
                                       [&](const auto* r) { return r->key->key == gemm_key(t); });
      EXPECT_EQ(published.size(), static_cast<std::size_t>(count)) << "no entry is published in part";
    }
    if (loaded.empty()) continue;
    auto parsed = salvage_kernel_tuning_cache(testing::read_text(file), file.string());
    ASSERT_TRUE(parsed.ok());
    for (const auto* r : loaded) {
      const auto item = std::find_if(parsed->entries.begin(), parsed->entries.end(),
                                     [&](const auto& i) { return i.index == r->index; });
      ASSERT_NE(item, parsed->entries.end());
      const auto published = registry.snapshot()->calibrated_profiles(r->key->key);
      EXPECT_TRUE(std::any_of(published.begin(), published.end(),
                              [&](const auto& p) { return p.parameters == item->entry.parameters; }));
    }
  }
}

TEST(KernelTuningCacheCorpus, UpdateTurnsEveryFileIntoAValidCacheKeepingTheOriginalAside) {
  for (const fs::path& file : corpus()) {
    SCOPED_TRACE(file.filename().string());
    testing::ScratchDir dir;
    const fs::path cache = dir.path() / "kernel_tuning.toml";
    const std::string original = testing::read_text(file);
    testing::write_text(cache, original);
    KernelTuningRegistry registry;
    register_schemas(registry);
    KernelTuningCacheOptions options;
    options.path = cache;
    options.registry = &registry;
    const std::vector<CalibratedKernelProfile> profiles{calibrated(DataType::DOUBLE, testing::alder_lake(), 512)};
    const auto report = UpdateKernelTuningCache(profiles, options);

    auto strict = parse_kernel_tuning_cache(original, "original");
    if (!strict.ok() && strict.error().code() == ErrorCode::NOT_SUPPORTED) {
      EXPECT_EQ(report.status, KernelTuningCacheUpdateStatus::FAILED);
      EXPECT_EQ(testing::read_text(cache), original);
      continue;
    }
    ASSERT_EQ(report.status, KernelTuningCacheUpdateStatus::WRITTEN) << report.summary();
    const bool fully_parsed = strict.ok() && strict->malformed.empty() && report.dropped.empty();
    EXPECT_EQ(report.moved_aside.has_value(), !fully_parsed);
    if (report.moved_aside) {
      EXPECT_EQ(testing::read_text(*report.moved_aside), original);
    }
    auto result = parse_kernel_tuning_cache(testing::read_text(cache), "result");
    ASSERT_TRUE(result.ok()) << result.error().message();
    EXPECT_TRUE(result->malformed.empty());
    EXPECT_EQ(result->entries.size(), report.preserved + report.kept.size() + report.replaced.size() + report.written.size());
  }
}

}  // namespace
}  // namespace tunekit::tuning
