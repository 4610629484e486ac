// End-to-end tests of `tunekit promote`: measured profile values become the
// portable defaults of a tuning spec, and the spec changes only in those
// values' bytes; a refused value or a profile of another key leaves the
// spec as it was, byte for byte.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "run_tool.hpp"
#include "support/scratch_dir.hpp"
#include "support/text_file.hpp"

namespace {

namespace fs = std::filesystem;
using tunekit::testing::run_tool;
using tunekit::testing::ScratchDir;

const fs::path kData = TUNEKIT_TEST_DATA_DIR;

using tunekit::testing::read_text;
using tunekit::testing::write_text;

// A deployment profile file as `tunekit cache export` writes it, for one key
// of the small test spec.
std::string profile_file(const std::string& parameters, const std::string& kernel = "Gemm", int abi = 3) {
  return "schema_version = 1\n\n[[profiles]]\nname = \"milan-gemm\"\nlibrary = \"demo_kernels\"\nkernel = \"" + kernel +
         "\"\nimplementation = \"blocked\"\nelement_type = \"float\"\ndevice = \"cpu\"\ntuning_abi = " +
         std::to_string(abi) +
         "\npriority = 0\n\n[profiles.selector]\nvendor = \"AMD\"\nfamily = 25\nmodels = [1]\n\n"
         "[profiles.parameters]\n" +
         parameters;
}

// Whether `after` is `before` with only bytes inside `value` (whose first
// occurrence after `anchor` is the old value) changed: the common prefix and
// suffix of the two texts must cover everything outside the value.
::testing::AssertionResult only_value_changed(const std::string& before, const std::string& after,
                                              const std::string& anchor, const std::string& value,
                                              const std::string& replacement) {
  const auto at = before.find(value, before.find(anchor));
  if (at == std::string::npos) return ::testing::AssertionFailure() << "no " << value << " after " << anchor;
  if (after != before.substr(0, at) + replacement + before.substr(at + value.size())) {
    return ::testing::AssertionFailure() << "the texts differ elsewhere:\n" << after;
  }
  std::size_t prefix = 0;
  while (prefix < before.size() && prefix < after.size() && before[prefix] == after[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < before.size() - prefix && suffix < after.size() - prefix &&
         before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix]) {
    ++suffix;
  }
  if (prefix < at || before.size() - suffix > at + value.size()) {
    return ::testing::AssertionFailure() << "bytes outside the value changed";
  }
  return ::testing::AssertionSuccess();
}

class Promote : public ::testing::Test {
 protected:
  void SetUp() override {
    original = read_text(kData / "spec" / "small_tuning.toml");
    ASSERT_FALSE(original.empty());
    write_text(spec, original);
  }
  ScratchDir dir{"tunekit-promote"};
  fs::path spec = dir.path() / "tuning.toml";
  fs::path profile = dir.path() / "profile.toml";
  std::string original;
};

TEST_F(Promote, OneNamedParameterChangesOnlyItsValueBytes) {
  write_text(profile, profile_file("\"algorithm.tile_k\" = 512\n\"algorithm.tile_m\" = 32\n"));
  auto run = run_tool({"promote", "--profile", profile.string(), "--spec", spec.string(), "--parameter",
                       "algorithm.tile_k"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "promoted  blocked_gemm algorithm.tile_k: 256 -> 512 (profile 'milan-gemm')\n");
  const std::string after = read_text(spec);
  EXPECT_TRUE(only_value_changed(original, after, "name = \"algorithm.tile_k\"", "256", "512"));
  EXPECT_NE(after.find("default   =   512     # spacing and this comment stay as they are when promoted\n"),
            std::string::npos);
}

TEST_F(Promote, EveryParameterOfTheProfileByDefault) {
  write_text(profile, profile_file("\"algorithm.packing\" = false\n\"algorithm.tile_k\" = 512\n"
                              "\"algorithm.tile_m\" = 32\n\"parallel.split_ratio\" = 0.5\n"));
  auto run = run_tool({"promote", "--profile", profile.string(), "--spec", spec.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            "promoted  blocked_gemm algorithm.packing: true -> false (profile 'milan-gemm')\n"
            "promoted  blocked_gemm algorithm.tile_k: 256 -> 512 (profile 'milan-gemm')\n"
            "promoted  blocked_gemm algorithm.tile_m: 64 -> 32 (profile 'milan-gemm')\n"
            "promoted  blocked_gemm parallel.split_ratio: 0.75 -> 0.5 (profile 'milan-gemm')\n");
  std::string expected = original;
  auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = expected.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    expected.replace(at, from.size(), to);
  };
  replace("default = true", "default = false");
  replace("default   =   256", "default   =   512");
  replace("member = \"tile_m\"\ntype = \"int64\"\ndefault = 64", "member = \"tile_m\"\ntype = \"int64\"\ndefault = 32");
  replace("default = 0.75", "default = 0.5");
  EXPECT_EQ(read_text(spec), expected);

  // The promoted spec generates a header with the new defaults.
  const fs::path header = dir.path() / "h.hpp";
  ASSERT_EQ(run_tool({"gen-defaults", spec.string(), "-o", header.string()}).exit_code, 0);
  const std::string text = read_text(header);
  EXPECT_NE(text.find("  std::int64_t algorithm_tile_k = 512;\n"), std::string::npos);
  EXPECT_NE(text.find("  std::int64_t tile_m = 32;\n"), std::string::npos);
  EXPECT_NE(text.find("  double parallel_split_ratio = 0.5;\n"), std::string::npos);
}

TEST_F(Promote, RefusedValueLeavesTheSpecUnchangedByteForByte) {
  // 12 is not a multiple of 8; 1024 breaks tile_m <= tile_k.
  for (const auto& [parameters, error] : std::vector<std::pair<std::string, std::string>>{
           {"\"algorithm.tile_m\" = 12\n", "parameter algorithm.tile_m = 12 is not a multiple of 8"},
           {"\"algorithm.tile_m\" = 512\n\"algorithm.tile_k\" = 128\n",
            "algorithm.tile_m = 512 and algorithm.tile_k = 128 violate algorithm.tile_m <= algorithm.tile_k"},
           {"\"parallel.split_ratio\" = 2\n", "parameter parallel.split_ratio = 2 has type int64, expected double"}}) {
    write_text(profile, profile_file(parameters));
    auto run = run_tool({"promote", "--profile", profile.string(), "--spec", spec.string()});
    EXPECT_EQ(run.exit_code, 2) << parameters;
    EXPECT_NE(run.err.find(error), std::string::npos) << run.err;
    EXPECT_EQ(run.err.rfind("tunekit promote: ", 0), 0u) << run.err;
    EXPECT_EQ(read_text(spec), original) << parameters;
  }
}

TEST_F(Promote, ProfileForAnotherKeyIsRefused) {
  write_text(profile, profile_file("\"algorithm.tile_k\" = 512\n", "Conv"));
  auto run = run_tool({"promote", "--profile", profile.string(), "--spec", spec.string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err, "tunekit promote: profile 'milan-gemm': key demo_kernels/Conv/blocked/float/cpu/abi3 is not "
                     "declared by " + spec.string() + " (library demo_kernels, tuning ABI 3)\n");
  write_text(profile, profile_file("\"algorithm.tile_k\" = 512\n", "Gemm", 2));
  run = run_tool({"promote", "--profile", profile.string(), "--spec", spec.string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("key demo_kernels/Gemm/blocked/float/cpu/abi2 is not declared"), std::string::npos) << run.err;
  EXPECT_EQ(read_text(spec), original);
}

TEST_F(Promote, UnknownOrMissingParametersAndBadFilesExit2) {
  write_text(profile, profile_file("\"algorithm.tile_k\" = 512\n"));
  auto run = run_tool({"promote", "--profile", profile.string(), "--spec", spec.string(), "--parameter",
                       "algorithm.vector"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err, "tunekit promote: parameter algorithm.vector is in none of the profiles\n");
  run = run_tool({"promote", "--profile", (dir.path() / "none.toml").string(), "--spec", spec.string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find((dir.path() / "none.toml").string()), std::string::npos) << run.err;
  EXPECT_EQ(read_text(spec), original);
}

TEST_F(Promote, AProfileExportedFromTheCacheBecomesTheTunekitCpuDefault) {
  const fs::path cpu_spec = dir.path() / "cpu_tuning.toml";
  const std::string cpu_original = read_text(fs::path(TUNEKIT_TEST_DATA_DIR) / ".." / ".." / "kernels" / "cpu" / "tuning.toml");
  ASSERT_FALSE(cpu_original.empty());
  write_text(cpu_spec, cpu_original);
  const fs::path cache = dir.path() / "kernel_tuning.toml";
  write_text(cache,
        "schema_version = 1\n\n[[entries]]\nname = \"calibrated-abs\"\nlibrary = \"tunekit_cpu\"\nkernel = \"Abs\"\n"
        "implementation = \"openmp_simd\"\nelement_type = \"float\"\ndevice = \"cpu\"\ntuning_abi = 1\n"
        "library_version = \"0.1.0\"\ntunekit_version = \"0.1.0\"\nreport_digest = \"abc123\"\n\n"
        "[entries.processor]\narchitecture = \"x86_64\"\nvendor = \"AMD\"\nfamily = 25\nmodel = 1\nstepping = 1\n"
        "microarchitecture = \"zen3\"\nfeatures = [\"avx\", \"avx2\"]\n\n[entries.execution]\neffective_threads = 8\n"
        "numa_policy = \"default\"\n\n[entries.parameters]\n\"algorithm.simd_min_elements\" = 48\n"
        "\"parallel.minimum_elements\" = 65536\n\"parallel.maximum_threads\" = 8\n");
  auto exported = run_tool({"cache", "export", "--selector-vendor", "AMD", "--selector-family", "25",
                            "--selector-model", "1", "-o", profile.string(), "--cache", cache.string()});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  auto run = run_tool({"promote", "--profile", profile.string(), "--spec", cpu_spec.string(), "--parameter",
                       "parallel.minimum_elements"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(only_value_changed(cpu_original, read_text(cpu_spec), "name = \"parallel.minimum_elements\"", "1048576",
                                 "65536"));
}

}  // namespace
