// UpdateKernelTuningCache and LoadKernelTuningCache on files in a scratch
// folder, with hand-built processors: every report category, the merge and
// prune options, corrupt files, and publication in one whole generation.
#include "tunekit/tuning/kernel_tuning_cache.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "cache_test_support.hpp"
#include "tunekit/store/file_lock.hpp"

namespace tunekit::tuning {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using EntryStatus = KernelTuningCacheEntryStatus;
using UpdateStatus = KernelTuningCacheUpdateStatus;
using testing::alder_lake;
using testing::calibrated;
using testing::gemm_binding;
using testing::gemm_key;
using testing::milan;
using testing::read_text;
using testing::write_text;

KernelTuningKey with_abi(KernelTuningKey key, std::uint32_t abi) {
  key.tuning_abi = abi;
  return key;
}

class CacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (DataType t : {DataType::FLOAT, DataType::DOUBLE}) register_schemas(registry, t);
    options.path = path;
    options.registry = &registry;
    options.execution = milan();
    options.lock_timeout = std::chrono::milliseconds(2000);
  }

  static void register_schemas(KernelTuningRegistry& r, DataType t) {
    ASSERT_TRUE(r.try_register_schema(gemm_binding().schema(gemm_key(t))).is_good());
  }

  KernelTuningCacheUpdateReport update(std::vector<CalibratedKernelProfile> profiles,
                                       const KernelTuningCacheOptions* custom = nullptr) {
    return UpdateKernelTuningCache(profiles, custom ? *custom : options);
  }

  // Loads into a fresh registry with the same schemas, as a second process would.
  KernelTuningCacheLoadReport load_fresh(KernelTuningRegistry& fresh, const KernelCalibrationSelection& selection = {}) {
    for (DataType t : {DataType::FLOAT, DataType::DOUBLE}) register_schemas(fresh, t);
    KernelTuningCacheOptions o = options;
    o.registry = &fresh;
    return LoadKernelTuningCache(selection, o);
  }

  // Writes entries as they are, bypassing validation, to set up bad files.
  void write_entries(std::vector<KernelTuningCacheEntry> entries) {
    fs::create_directories(path.parent_path());
    write_text(path, format_kernel_tuning_cache(std::move(entries)));
  }

  testing::ScratchDir dir;
  fs::path path = dir.path() / "sub" / "kernel_tuning.toml";
  KernelTuningRegistry registry;
  KernelTuningCacheOptions options;
};

KernelTuningCacheEntry entry(const CalibratedKernelProfile& profile) {
  return KernelTuningCacheEntry::from_profile(profile);
}

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

TEST_F(CacheTest, ReadOnlyLoadReadsWithoutCreatingALockFile) {
  ASSERT_TRUE(update({calibrated(DataType::FLOAT, milan())}).ok());
  fs::remove(path.string() + ".lock");
  options.read_only = true;
  KernelTuningRegistry fresh;
  EXPECT_EQ(load_fresh(fresh).count(EntryStatus::LOADED), 1u);
  EXPECT_FALSE(fs::exists(path.string() + ".lock"));
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
  const std::string garbage("\x00\xff\xfe garbage [[[ \x01\x02 not toml", 30);
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

TEST_F(CacheTest, LockHeldByAnotherWriterTimesTheUpdateOut) {
  fs::create_directories(path.parent_path());
  auto held = store::FileLock::acquire(path, std::chrono::milliseconds(0));
  ASSERT_TRUE(held.ok());
  options.lock_timeout = std::chrono::milliseconds(50);
  auto report = update({calibrated(DataType::FLOAT, milan())});
  EXPECT_EQ(report.status, UpdateStatus::FAILED);
  EXPECT_THAT(report.error.message(), HasSubstr("timed out"));
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
