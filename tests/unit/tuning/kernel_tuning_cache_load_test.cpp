// LoadKernelTuningCache with hand-built processors: every entry category of
// the report (loaded, skipped, incompatible with the field named, stale ABI,
// unregistered, invalid, duplicate), entries of other thread counts loaded
// for their own executions, missing registered keys, file-level statuses,
// and publication of whole entries in one generation.
#include "tunekit/tuning/kernel_tuning_cache.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cache_fixture.hpp"

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

TEST_F(CacheTest, UpdateThenLoadInAnotherRegistryLoadsEveryEntry) {
  auto report = update({calibrated(DataType::FLOAT, milan(), 64), calibrated(DataType::DOUBLE, milan(), 32)});
  ASSERT_EQ(report.status, UpdateStatus::WRITTEN) << report.summary();
  EXPECT_EQ(report.written.size(), 2u);
  EXPECT_EQ(report.path, path);
  EXPECT_FALSE(report.moved_aside);

  KernelTuningRegistry fresh;
  for (DataType t : {DataType::FLOAT, DataType::DOUBLE}) register_schemas(fresh, t);
  const std::uint64_t before = fresh.generation_number();
  KernelTuningCacheOptions o = options;
  o.registry = &fresh;
  auto loaded = LoadKernelTuningCache({}, o);
  EXPECT_EQ(loaded.file_status, KernelTuningCacheFileStatus::READ);
  ASSERT_EQ(loaded.entries.size(), 2u);
  EXPECT_EQ(loaded.count(EntryStatus::LOADED), 2u) << loaded.summary();
  EXPECT_TRUE(loaded.missing.empty());
  ASSERT_TRUE(loaded.published_generation);
  EXPECT_EQ(fresh.generation_number(), before + 1) << "one generation for every loaded entry";

  auto profiles = fresh.snapshot()->calibrated_profiles(gemm_key(DataType::FLOAT));
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].parameters, calibrated(DataType::FLOAT, milan(), 64).parameters);
  EXPECT_EQ(profiles[0].report_digest, "digest-64");
  EXPECT_EQ(profiles[0].library_version, "1.4.0");
  auto resolution = fresh.snapshot()->resolve(gemm_key(DataType::FLOAT), milan());
  EXPECT_EQ(resolution.source, ResolutionSource::CALIBRATED);
}

TEST_F(CacheTest, MissingFileIsANormalNotFoundThatListsRegisteredKeys) {
  KernelTuningRegistry fresh;
  auto report = load_fresh(fresh);
  const std::uint64_t generation = fresh.generation_number();
  EXPECT_EQ(report.file_status, KernelTuningCacheFileStatus::NOT_FOUND);
  EXPECT_TRUE(report.file_reason.empty());
  EXPECT_TRUE(report.entries.empty());
  EXPECT_EQ(report.missing, (std::vector<KernelTuningKey>{gemm_key(DataType::FLOAT), gemm_key(DataType::DOUBLE)}));
  EXPECT_FALSE(report.published_generation);
  EXPECT_EQ(fresh.generation_number(), generation);
}

struct IdentityCase {
  const char* field;
  void (*change)(platform::CpuExecutionDescriptor&);
};

TEST_F(CacheTest, IncompatibleEntryNamesTheFirstDifferingIdentityField) {
  // Every identity field counts, the thread count too.
  options.load_every_thread_count = false;
  const std::vector<IdentityCase> cases = {
      {"architecture", [](auto& e) { e.processor.architecture = "aarch64"; }},
      {"vendor", [](auto& e) { e.processor.vendor = "Intel"; }},
      {"family", [](auto& e) { e.processor.family = 26; }},
      {"model", [](auto& e) { e.processor.model = 8; }},
      {"stepping", [](auto& e) { e.processor.stepping = 2; }},
      {"microarchitecture", [](auto& e) { e.processor.microarchitecture = "zen4"; }},
      {"features", [](auto& e) { e.processor.features.insert(platform::CpuFeature::AVX512F); }},
      {"effective_threads", [](auto& e) { e.effective_threads = 16; }},
      {"numa_policy", [](auto& e) { e.numa_policy = {platform::NumaPolicyKind::BIND, platform::CpuSet({0})}; }},
      // Two differences: the earlier field in identity order is named.
      {"model", [](auto& e) {
         e.processor.model = 8;
         e.effective_threads = 64;
       }},
  };
  for (const IdentityCase& c : cases) {
    SCOPED_TRACE(c.field);
    platform::CpuExecutionDescriptor measured = milan();
    c.change(measured);
    write_entries({entry(calibrated(DataType::FLOAT, measured))});
    KernelTuningRegistry fresh;
    auto report = load_fresh(fresh);
    ASSERT_EQ(report.entries.size(), 1u);
    EXPECT_EQ(report.entries[0].status, EntryStatus::INCOMPATIBLE);
    EXPECT_EQ(report.entries[0].field, c.field);
    EXPECT_THAT(report.entries[0].reason, HasSubstr(c.field));
    EXPECT_FALSE(report.published_generation);
    EXPECT_EQ(report.missing.size(), 2u);
  }
}

TEST_F(CacheTest, EntriesOfOtherThreadCountsLoadEachForItsOwnExecution) {
  // This process runs on 2 threads; the cache holds float calibrations for
  // 1, 2 and 16 threads of the same processor, and one of another model.
  platform::CpuExecutionDescriptor other_model = milan(1);
  other_model.processor.model = 8;
  write_entries({entry(calibrated(DataType::FLOAT, milan(1), 16)), entry(calibrated(DataType::FLOAT, milan(2), 32)),
                 entry(calibrated(DataType::FLOAT, milan(16), 64)), entry(calibrated(DataType::DOUBLE, other_model, 8))});
  KernelTuningRegistry fresh;
  for (DataType t : {DataType::FLOAT, DataType::DOUBLE}) register_schemas(fresh, t);
  const std::uint64_t before = fresh.generation_number();
  KernelTuningCacheOptions o = options;
  o.registry = &fresh;
  auto report = LoadKernelTuningCache({}, o);
  ASSERT_EQ(report.entries.size(), 4u);
  std::vector<std::uint32_t> loaded_threads;
  for (const KernelTuningCacheEntryReport* e : report.with_status(EntryStatus::LOADED)) {
    loaded_threads.push_back(e->effective_threads);
  }
  EXPECT_THAT(loaded_threads, ::testing::UnorderedElementsAre(1u, 2u, 16u));
  auto incompatible = report.with_status(EntryStatus::INCOMPATIBLE);
  ASSERT_EQ(incompatible.size(), 1u);
  EXPECT_EQ(incompatible[0]->field, "model");
  EXPECT_EQ(fresh.generation_number(), before + 1) << "every thread count in one generation";
  EXPECT_EQ(report.summary(),
            "read " + path.string() + ": 3 loaded (1 for 1 thread, 1 for 2 threads, 1 for 16 threads), 1 incompatible; "
            "1 registered keys missing");

  // Each execution resolves its own values; a thread count without an
  // entry gets none of them.
  auto generation = fresh.snapshot();
  EXPECT_EQ(generation->calibrated_profiles(gemm_key(DataType::FLOAT)).size(), 3u);
  for (auto [threads, tile_k] : {std::pair<std::uint32_t, std::int64_t>{1, 16}, {2, 32}, {16, 64}}) {
    SCOPED_TRACE(threads);
    Resolution r = generation->resolve(gemm_key(DataType::FLOAT), milan(threads));
    EXPECT_EQ(r.source, ResolutionSource::CALIBRATED);
    EXPECT_EQ(r.parameters.values.at("algorithm.tile_k"), Value(tile_k));
  }
  Resolution four = generation->resolve(gemm_key(DataType::FLOAT), milan(4), {}, true);
  EXPECT_EQ(four.source, ResolutionSource::PORTABLE_DEFAULT);
  ASSERT_EQ(four.rejected.size(), 3u);
  for (const RejectedCandidate& c : four.rejected) EXPECT_THAT(c.reason, HasSubstr("measured for another execution"));
}

TEST_F(CacheTest, KeysWithoutAnEntryForThisThreadCountAreMissing) {
  // Float is calibrated for 1 thread only, double for this execution's 2.
  write_entries({entry(calibrated(DataType::FLOAT, milan(1))), entry(calibrated(DataType::DOUBLE, milan(2)))});
  KernelTuningRegistry fresh;
  auto report = load_fresh(fresh);
  EXPECT_EQ(report.count(EntryStatus::LOADED), 2u) << report.summary();
  EXPECT_EQ(report.missing, std::vector<KernelTuningKey>{gemm_key(DataType::FLOAT)});
}

TEST_F(CacheTest, OtherThreadCountsAreIncompatibleWhenOnlyThisExecutionLoads) {
  write_entries({entry(calibrated(DataType::FLOAT, milan(1))), entry(calibrated(DataType::FLOAT, milan(2), 64))});
  options.load_every_thread_count = false;
  KernelTuningRegistry fresh;
  auto report = load_fresh(fresh);
  ASSERT_EQ(report.entries.size(), 2u);
  auto incompatible = report.with_status(EntryStatus::INCOMPATIBLE);
  ASSERT_EQ(incompatible.size(), 1u);
  EXPECT_EQ(incompatible[0]->field, "effective_threads");
  EXPECT_EQ(incompatible[0]->reason, "effective_threads: stored 1, current 2");
  EXPECT_EQ(report.count(EntryStatus::LOADED), 1u);
  auto profiles = fresh.snapshot()->calibrated_profiles(gemm_key(DataType::FLOAT));
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].execution.effective_threads, 2u);
}

TEST_F(CacheTest, DiagnosticsOnlyDifferencesStillLoad) {
  platform::CpuExecutionDescriptor measured = milan();
  measured.processor.l3_bytes = 32u << 20;
  measured.processor.l2_bytes = 512u << 10;
  measured.processor.physical_cores = 64;
  measured.processor.model_name = "AMD EPYC 7763";
  measured.affinity = platform::CpuSet({0, 1});
  measured.cgroup_cpu_limit = 2.0;
  measured.requested_threads = 2;
  ASSERT_TRUE(update({calibrated(DataType::FLOAT, measured)}).ok());

  platform::CpuExecutionDescriptor here = milan();
  here.processor.l3_bytes = 16u << 20;  // a VM reporting another L3
  here.processor.physical_cores = 8;
  here.affinity = platform::CpuSet({6, 7});  // other cores of the same kind
  options.execution = here;
  KernelTuningRegistry fresh;
  auto report = load_fresh(fresh);
  ASSERT_EQ(report.entries.size(), 1u);
  EXPECT_EQ(report.entries[0].status, EntryStatus::LOADED) << report.entries[0].reason;

  // The diagnostics were recorded and read back.
  auto parsed = parse_kernel_tuning_cache(read_text(path), "cache");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->entries[0].entry.execution, measured);
}

TEST_F(CacheTest, EntryOfAnotherTuningAbiIsStale) {
  auto old = calibrated(DataType::FLOAT, milan());
  old.parameters.key = with_abi(old.parameters.key, 2);
  write_entries({entry(old), entry(calibrated(DataType::DOUBLE, milan()))});
  KernelTuningRegistry fresh;
  auto report = load_fresh(fresh);
  ASSERT_EQ(report.entries.size(), 2u);
  auto stale = report.with_status(EntryStatus::STALE_ABI);
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_EQ(stale[0]->key->key.tuning_abi, 2u);
  EXPECT_EQ(stale[0]->field, "tuning_abi");
  EXPECT_THAT(stale[0]->reason, HasSubstr("registered tuning ABI 3, the entry has 2"));
  EXPECT_EQ(report.count(EntryStatus::LOADED), 1u);
  EXPECT_EQ(report.missing, std::vector<KernelTuningKey>{gemm_key(DataType::FLOAT)});
}

TEST_F(CacheTest, EntryOfAnUnregisteredKeyIsReportedAndNotLoaded) {
  auto other = calibrated(DataType::FLOAT, milan());
  other.parameters.key.kernel = "Conv";
  write_entries({entry(other)});
  KernelTuningRegistry fresh;
  auto report = load_fresh(fresh);
  ASSERT_EQ(report.entries.size(), 1u);
  EXPECT_EQ(report.entries[0].status, EntryStatus::UNREGISTERED);
  EXPECT_THAT(report.entries[0].reason, HasSubstr("tunekit_test/Conv/blocked_avx2/float/cpu/abi3"));
}

TEST_F(CacheTest, InvalidEntriesNameFieldAndValueAndTheOthersLoad) {
  auto bad_value = calibrated(DataType::FLOAT, milan());
  bad_value.parameters.values["algorithm.tile_m"] = 12;  // not a multiple of 8
  write_entries({entry(bad_value), entry(calibrated(DataType::DOUBLE, milan()))});
  std::string text = read_text(path);
  // Append a malformed entry: negative threads.
  const auto start = text.find("[[entries]]");
  std::string copy = text.substr(start, text.find("[[entries]]", start + 1) - start);
  copy.replace(copy.find("effective_threads = 2"), 21, "effective_threads = -4");
  write_text(path, text + "\n" + copy);

  KernelTuningRegistry fresh;
  auto report = load_fresh(fresh);
  ASSERT_EQ(report.entries.size(), 3u);
  EXPECT_EQ(report.entries[0].status, EntryStatus::INVALID);
  EXPECT_EQ(report.entries[0].field, "parameters");
  EXPECT_THAT(report.entries[0].reason, HasSubstr("algorithm.tile_m"));
  EXPECT_THAT(report.entries[0].reason, HasSubstr("12"));
  EXPECT_EQ(report.entries[1].status, EntryStatus::LOADED);
  EXPECT_EQ(report.entries[2].status, EntryStatus::INVALID);
  EXPECT_EQ(report.entries[2].field, "entries[2].execution.effective_threads");
  EXPECT_THAT(report.entries[2].reason, HasSubstr("-4 is outside 1..4294967295"));
  EXPECT_THAT(report.entries[2].reason, HasSubstr(path.string() + ":"));
  EXPECT_GT(report.entries[2].line, 0u);
  EXPECT_FALSE(report.entries[2].key);
  // The invalid entry left its key on the compiled defaults.
  EXPECT_TRUE(fresh.snapshot()->calibrated_profiles(gemm_key(DataType::FLOAT)).empty());
  EXPECT_EQ(report.missing, std::vector<KernelTuningKey>{gemm_key(DataType::FLOAT)});
}

TEST_F(CacheTest, DuplicatedCompleteKeyLoadsNoCopy) {
  auto a = entry(calibrated(DataType::FLOAT, milan(), 64));
  auto b = entry(calibrated(DataType::FLOAT, milan(), 32));
  write_entries({a, b, entry(calibrated(DataType::DOUBLE, milan()))});
  KernelTuningRegistry fresh;
  auto report = load_fresh(fresh);
  ASSERT_EQ(report.entries.size(), 3u);
  EXPECT_EQ(report.count(EntryStatus::DUPLICATE), 2u);
  EXPECT_EQ(report.count(EntryStatus::LOADED), 1u);
  EXPECT_TRUE(fresh.snapshot()->calibrated_profiles(gemm_key(DataType::FLOAT)).empty());
  EXPECT_EQ(report.missing, std::vector<KernelTuningKey>{gemm_key(DataType::FLOAT)});
}

TEST_F(CacheTest, EntriesOutsideTheSelectionAreSkippedNotLoaded) {
  ASSERT_TRUE(update({calibrated(DataType::FLOAT, milan()), calibrated(DataType::DOUBLE, milan())}).ok());
  KernelCalibrationSelection selection;
  selection.element_types = {DataType::DOUBLE};
  KernelTuningRegistry fresh;
  auto report = load_fresh(fresh, selection);
  ASSERT_EQ(report.entries.size(), 2u);
  auto skipped = report.with_status(EntryStatus::SKIPPED);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0]->key->key, gemm_key(DataType::FLOAT));
  EXPECT_EQ(report.count(EntryStatus::LOADED), 1u);
  EXPECT_TRUE(fresh.snapshot()->calibrated_profiles(gemm_key(DataType::FLOAT)).empty());
  EXPECT_TRUE(report.missing.empty()) << "the float key is not selected, so it is not missing";
}

TEST_F(CacheTest, NothingIsPublishedWhenNoEntryValidates) {
  auto bad = calibrated(DataType::FLOAT, milan());
  bad.parameters.values["algorithm.pack_ratio"] = Value(std::int64_t{1});  // an integer for a double
  write_entries({entry(bad)});
  KernelTuningRegistry fresh;
  for (DataType t : {DataType::FLOAT, DataType::DOUBLE}) register_schemas(fresh, t);
  const std::uint64_t generation = fresh.generation_number();
  KernelTuningCacheOptions o = options;
  o.registry = &fresh;
  auto report = LoadKernelTuningCache({}, o);
  ASSERT_EQ(report.entries.size(), 1u);
  EXPECT_EQ(report.entries[0].status, EntryStatus::INVALID);
  EXPECT_THAT(report.entries[0].reason, HasSubstr("algorithm.pack_ratio"));
  EXPECT_FALSE(report.published_generation);
  EXPECT_EQ(fresh.generation_number(), generation);
}

TEST_F(CacheTest, EntryWhoseNameIsTakenIsInvalidAndTheOthersStillPublish) {
  KernelTuningRegistry fresh;
  for (DataType t : {DataType::FLOAT, DataType::DOUBLE}) register_schemas(fresh, t);
  CpuSelector zen3;
  zen3.microarchitecture = "zen3";
  ASSERT_TRUE(fresh.try_register_profiles({{"taken", zen3, testing::params(gemm_key(), {}), 0}}).is_good());
  write_entries({entry(calibrated(DataType::FLOAT, milan(), 64, 1.0, "taken")),
                 entry(calibrated(DataType::DOUBLE, milan(), 64, 1.0, "free"))});
  KernelTuningCacheOptions o = options;
  o.registry = &fresh;
  auto report = LoadKernelTuningCache({}, o);
  ASSERT_EQ(report.entries.size(), 2u);
  EXPECT_EQ(report.entries[0].status, EntryStatus::INVALID);
  EXPECT_EQ(report.entries[0].field, "name");
  EXPECT_EQ(report.entries[1].status, EntryStatus::LOADED);
  EXPECT_EQ(fresh.snapshot()->calibrated_profiles(gemm_key(DataType::DOUBLE)).size(), 1u);
}

TEST_F(CacheTest, LoadingTwiceReplacesTheCalibratedProfileOfTheSameExecution) {
  ASSERT_TRUE(update({calibrated(DataType::FLOAT, milan(), 64, 1.0, "gemm-milan")}).ok());
  KernelTuningRegistry fresh;
  ASSERT_EQ(load_fresh(fresh).count(EntryStatus::LOADED), 1u);
  KernelTuningCacheOptions o = options;
  o.registry = &fresh;
  auto again = LoadKernelTuningCache({}, o);
  EXPECT_EQ(again.count(EntryStatus::LOADED), 1u) << again.summary();
  EXPECT_EQ(fresh.snapshot()->calibrated_profiles(gemm_key()).size(), 1u);
}

TEST_F(CacheTest, ReadOnlyLoadReadsWithoutCreatingALockFile) {
  ASSERT_TRUE(update({calibrated(DataType::FLOAT, milan())}).ok());
  fs::remove(path.string() + ".lock");
  options.read_only = true;
  KernelTuningRegistry fresh;
  EXPECT_EQ(load_fresh(fresh).count(EntryStatus::LOADED), 1u);
  EXPECT_FALSE(fs::exists(path.string() + ".lock"));
}

TEST_F(CacheTest, FileOfANewerSchemaVersionIsNeverRewrittenOrLoaded) {
  fs::create_directories(path.parent_path());
  const std::string newer = "schema_version = 2\n[[entries]]\nshape = \"new\"\n";
  write_text(path, newer);
  auto report = update({calibrated(DataType::FLOAT, milan())});
  EXPECT_EQ(report.status, UpdateStatus::FAILED);
  EXPECT_EQ(report.error.code(), ErrorCode::NOT_SUPPORTED);
  EXPECT_EQ(read_text(path), newer);

  KernelTuningRegistry fresh;
  auto loaded = load_fresh(fresh);
  EXPECT_EQ(loaded.file_status, KernelTuningCacheFileStatus::UNSUPPORTED_VERSION);
  EXPECT_THAT(loaded.file_reason, HasSubstr("schema_version 2"));
}

TEST_F(CacheTest, UnparsableFileIsReportedAndNothingPublished) {
  fs::create_directories(path.parent_path());
  write_text(path, "schema_version = 1\n[[entries]\nname = 3\n");
  KernelTuningRegistry fresh;
  for (DataType t : {DataType::FLOAT, DataType::DOUBLE}) register_schemas(fresh, t);
  const std::uint64_t generation = fresh.generation_number();
  KernelTuningCacheOptions o = options;
  o.registry = &fresh;
  auto report = LoadKernelTuningCache({}, o);
  EXPECT_EQ(report.file_status, KernelTuningCacheFileStatus::MALFORMED);
  EXPECT_THAT(report.file_reason, HasSubstr(path.string() + ":2:"));
  EXPECT_EQ(report.missing.size(), 2u);
  EXPECT_EQ(fresh.generation_number(), generation);
}

TEST_F(CacheTest, UnreadableFileIsReported) {
  fs::create_directories(path);  // a folder where the file should be
  KernelTuningRegistry fresh;
  auto report = load_fresh(fresh);
  EXPECT_EQ(report.file_status, KernelTuningCacheFileStatus::UNREADABLE);
  EXPECT_FALSE(report.file_reason.empty());
}

}  // namespace
}  // namespace tunekit::tuning
