// The cache file format alone: exact text of values, per-entry problems with
// their positions, salvage of broken documents, the default path, and the
// first differing identity field.
#include "tunekit/tuning/kernel_tuning_cache_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "cache_test_support.hpp"
#include "tunekit/platform/identity_difference.hpp"

namespace tunekit::tuning {
namespace {

using ::testing::HasSubstr;
using testing::calibrated;
using testing::milan;

std::string one_entry_text(std::map<std::string, TuningValue> values) {
  auto profile = calibrated(DataType::FLOAT, milan());
  profile.parameters.values = std::move(values);
  return format_kernel_tuning_cache({KernelTuningCacheEntry::from_profile(profile)});
}

TEST(KernelTuningCacheFile, AnUnwritableEntryIsAnInvalidValueErrorNamingTheField) {
  const KernelTuningCacheEntry good = KernelTuningCacheEntry::from_profile(calibrated(DataType::FLOAT, milan()));
  EXPECT_TRUE(check_writable(good).is_good());
  KernelTuningCacheEntry e = good;
  e.execution.effective_threads = 0;
  EXPECT_EQ(check_writable(e), Error(ErrorCode::INVALID_VALUE, "execution.effective_threads: must be at least 1, not 0"));
  e = good;
  e.execution.requested_threads = 0;
  EXPECT_EQ(check_writable(e), Error(ErrorCode::INVALID_VALUE, "execution.requested_threads: must be at least 1, not 0"));
  e = good;
  e.parameters.key.kernel.clear();
  EXPECT_EQ(check_writable(e), Error(ErrorCode::INVALID_VALUE, "kernel: must not be empty"));
  e = good;
  e.report_digest = "ab\xc3";
  EXPECT_EQ(check_writable(e), Error(ErrorCode::INVALID_VALUE, "report_digest: not valid UTF-8"));
  e = good;
  e.parameters.values["algorithm.kind"] = std::string("\xff");
  EXPECT_EQ(check_writable(e), Error(ErrorCode::INVALID_VALUE, "parameters.algorithm.kind: not valid UTF-8"));
}

TEST(KernelTuningCacheFile, FloatsAreWrittenAsFloatsThatReadBackExactly) {
  const std::vector<std::pair<double, std::string>> cases = {
      {2.0, "2.0"},     {0.5, "0.5"},   {0.1, "0.1"},          {-3.0, "-3.0"}, {1e300, "1e+300"},
      {1e-7, "1e-07"},  {INFINITY, "inf"}, {-INFINITY, "-inf"}, {NAN, "nan"},   {123456789.0, "123456789.0"},
  };
  for (const auto& [value, text] : cases) {
    SCOPED_TRACE(text);
    const std::string file = one_entry_text({{"x", value}});
    EXPECT_THAT(file, HasSubstr("x = " + text + "\n"));
    auto parsed = parse_kernel_tuning_cache(file, "cache");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message();
    ASSERT_EQ(parsed->entries.size(), 1u) << (parsed->malformed.empty() ? "" : parsed->malformed[0].message);
    const Value& back = parsed->entries[0].entry.parameters.values.at("x");
    ASSERT_TRUE(back.is_double());
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(*back.as_double()));
    } else {
      EXPECT_EQ(*back.as_double(), value);
    }
  }
}

TEST(KernelTuningCacheFile, StringsAndNamesAreEscaped) {
  const std::string file = one_entry_text({{"plain_name", "a \"quoted\" \\ value\nline\x01"}, {"dotted.name", 1}});
  EXPECT_THAT(file, HasSubstr("plain_name = \"a \\\"quoted\\\" \\\\ value\\nline\\u0001\"\n"));
  EXPECT_THAT(file, HasSubstr("\"dotted.name\" = 1\n"));
  auto parsed = parse_kernel_tuning_cache(file, "cache");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->entries.size(), 1u);
  EXPECT_EQ(parsed->entries[0].entry.parameters.values.at("plain_name"), Value("a \"quoted\" \\ value\nline\x01"));
}

struct BadEntry {
  const char* from;
  const char* to;
  const char* field;
  const char* message;
};

TEST(KernelTuningCacheFile, EachMalformedFieldIsNamedWithItsPosition) {
  const std::string good = one_entry_text({{"algorithm.tile_k", 64}});
  const std::vector<BadEntry> cases = {
      {"tuning_abi = 3", "tuning_abi = \"three\"", "entries[0].tuning_abi", "expected an integer, got a string"},
      {"tuning_abi = 3", "tuning_abi = 99999999999999", "entries[0].tuning_abi", "is outside 0..4294967295"},
      {"element_type = \"float\"", "element_type = \"float128\"", "entries[0].element_type", "unknown data type 'float128'"},
      {"device = \"cpu\"", "device = \"tpu\"", "entries[0].device", "unknown device 'tpu'"},
      {"kernel = \"Gemm\"", "kernel = \"\"", "entries[0].kernel", "must not be empty"},
      {"effective_threads = 2", "effective_threads = 0", "entries[0].execution.effective_threads", "is outside 1.."},
      {"numa_policy = \"default\"", "numa_policy = \"spread\"", "entries[0].execution.numa_policy", "unknown NUMA policy 'spread'"},
      {"features = [", "features = [\"avx9000\", ", "entries[0].processor.features", "unknown CPU feature 'avx9000'"},
      {"family = 25", "family = -1", "entries[0].processor.family", "is outside 0..4294967295"},
      {"\"algorithm.tile_k\" = 64", "\"algorithm.tile_k\" = [64]", "entries[0].parameters.\"algorithm.tile_k\"", "got an array"},
      {"name = ", "colour = \"red\"\nname = ", "entries[0].colour", "unknown field"},
      {"[entries.parameters]\n\"algorithm.tile_k\" = 64\n", "", "entries[0].parameters", "missing"},
  };
  for (const BadEntry& c : cases) {
    SCOPED_TRACE(c.to);
    std::string text = good;
    const auto at = text.find(c.from);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, std::string(c.from).size(), c.to);
    auto parsed = parse_kernel_tuning_cache(text, "c.toml");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message();
    EXPECT_TRUE(parsed->entries.empty());
    ASSERT_EQ(parsed->malformed.size(), 1u);
    EXPECT_EQ(parsed->malformed[0].field, c.field);
    EXPECT_THAT(parsed->malformed[0].message, HasSubstr(c.message));
    EXPECT_GT(parsed->malformed[0].line, 0u);
    EXPECT_THAT(parsed->malformed[0].describe("c.toml"), HasSubstr("c.toml:"));
  }
}

TEST(KernelTuningCacheFile, DocumentLevelProblemsFailTheWholeFile) {
  EXPECT_THAT(parse_kernel_tuning_cache("[[entries]]\nname = \"x\"\n", "c.toml").error().message(),
              HasSubstr("schema_version: missing"));
  EXPECT_THAT(parse_kernel_tuning_cache("schema_version = \"1\"\n", "c.toml").error().message(),
              HasSubstr("c.toml:1:18: schema_version: expected an integer"));
  EXPECT_THAT(parse_kernel_tuning_cache("schema_version = 1\nentries = 3\n", "c.toml").error().message(),
              HasSubstr("entries: expected an array of tables"));
  EXPECT_EQ(parse_kernel_tuning_cache("schema_version = 7\n", "c.toml").error().code(), ErrorCode::NOT_SUPPORTED);
  auto empty = parse_kernel_tuning_cache("schema_version = 1\n", "c.toml");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->entries.empty());
}

TEST(KernelTuningCacheFile, SalvageRecoversTheIntactEntriesOfABrokenDocument) {
  auto a = KernelTuningCacheEntry::from_profile(calibrated(DataType::FLOAT, milan()));
  auto b = KernelTuningCacheEntry::from_profile(calibrated(DataType::DOUBLE, milan()));
  std::string text = format_kernel_tuning_cache({a, b});
  const auto second = text.find("[[entries]]", text.find("[[entries]]") + 1);
  text.insert(text.find("kernel = ", second), "this is = = not toml\n");
  ASSERT_FALSE(parse_kernel_tuning_cache(text, "c.toml").ok());
  auto salvaged = salvage_kernel_tuning_cache(text, "c.toml");
  ASSERT_TRUE(salvaged.ok()) << salvaged.error().message();
  EXPECT_TRUE(salvaged->salvaged);
  ASSERT_EQ(salvaged->entries.size(), 1u);
  EXPECT_EQ(salvaged->entries[0].entry, a);
  ASSERT_EQ(salvaged->malformed.size(), 1u);
  EXPECT_EQ(salvaged->malformed[0].index, 1u);
  // The position is that of the whole file, not of the piece.
  const std::size_t bad_line = static_cast<std::size_t>(std::count(text.begin(), text.begin() + text.find("this is"), '\n')) + 1;
  EXPECT_EQ(salvaged->malformed[0].line, bad_line);

  EXPECT_FALSE(salvage_kernel_tuning_cache("garbage = = =\n[[entries]]\n", "c.toml").ok());
}

TEST(KernelTuningCacheFile, DefaultPathFollowsTheEnvironment) {
  const auto saved = [](const char* name) {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  const auto cache = saved("TUNEKIT_CACHE_PATH"), xdg = saved("XDG_CACHE_HOME"), home = saved("HOME");
  ::setenv("HOME", "/home/someone", 1);
  ::unsetenv("TUNEKIT_CACHE_PATH");
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(*default_cache_path(), std::filesystem::path("/home/someone/.cache/tunekit/kernel_tuning.toml"));
  ::setenv("XDG_CACHE_HOME", "relative/ignored", 1);
  EXPECT_EQ(*default_cache_path(), std::filesystem::path("/home/someone/.cache/tunekit/kernel_tuning.toml"));
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(*default_cache_path(), std::filesystem::path("/xdg/tunekit/kernel_tuning.toml"));
  ::setenv("TUNEKIT_CACHE_PATH", "/opt/cache.toml", 1);
  EXPECT_EQ(*default_cache_path(), std::filesystem::path("/opt/cache.toml"));
  ::unsetenv("TUNEKIT_CACHE_PATH");
  ::unsetenv("XDG_CACHE_HOME");
  ::unsetenv("HOME");
  EXPECT_FALSE(default_cache_path().ok());
  const auto restore = [](const char* name, const std::optional<std::string>& value) {
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  };
  restore("TUNEKIT_CACHE_PATH", cache);
  restore("XDG_CACHE_HOME", xdg);
  restore("HOME", home);
}

TEST(IdentityDifference, NamesTheFirstIdentityFieldAndIgnoresDiagnostics) {
  auto a = milan();
  auto b = milan();
  b.processor.l3_bytes = 1;
  b.processor.cache_line_bytes = 128;
  b.processor.logical_cores = 3;
  b.processor.model_name = "other";
  b.affinity = platform::CpuSet({3});
  b.cgroup_cpu_limit = 0.5;
  b.requested_threads = 1;
  EXPECT_FALSE(platform::first_identity_difference(a, b));
  b.processor.stepping.reset();
  b.effective_threads = 3;
  auto d = platform::first_identity_difference(a, b);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->field, "stepping");
  EXPECT_EQ(d->to_string(), "stepping: stored 1, current ?");
}

}  // namespace
}  // namespace tunekit::tuning
