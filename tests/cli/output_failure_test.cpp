// Outputs that cannot be written, through every subcommand that writes one:
// exit 3 with a message naming the path and the system's reason, while a bad
// input still exits 2. The tests run as root, which ignores permission bits,
// so the outputs fail in ways that hold for root too: a folder where the file
// should be (EISDIR) and a path below a regular file (ENOTDIR).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "run_tool.hpp"
#include "support/scratch_dir.hpp"

namespace {

namespace fs = std::filesystem;
using tunekit::testing::run_tool;
using tunekit::testing::ToolRun;

constexpr int kOutputFailure = 3;
constexpr int kBadInput = 2;

void write(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// A cache with one entry measured on an AMD family 25 model 1.
const std::string kCache =
    "schema_version = 1\n\n[[entries]]\nname = \"calibrated-Abs\"\nlibrary = \"tunekit_cpu\"\nkernel = \"Abs\"\n"
    "implementation = \"portable\"\nelement_type = \"float\"\ndevice = \"cpu\"\ntuning_abi = 1\n"
    "library_version = \"0.1.0\"\ntunekit_version = \"0.1.0\"\nreport_digest = \"abc123\"\n\n"
    "[entries.processor]\narchitecture = \"x86_64\"\nvendor = \"AMD\"\nfamily = 25\nmodel = 1\nstepping = 1\n"
    "microarchitecture = \"zen3\"\nfeatures = [\"avx\", \"avx2\"]\n\n"
    "[entries.execution]\neffective_threads = 8\nnuma_policy = \"default\"\n\n"
    "[entries.parameters]\n\"parallel.minimum_elements\" = 65536\n";

const std::string kGraph =
    "[[tensors]]\nname = \"A\"\nuid = 1\ndims = [8, 8]\n[[tensors]]\nname = \"B\"\nuid = 2\ndims = [8, 8]\n"
    "[[tensors]]\nname = \"C\"\nuid = 3\ndims = [8, 8]\n[[operations]]\nkind = \"matmul\"\n"
    "inputs = { A = \"A\", B = \"B\" }\noutputs = { C = \"C\" }\n";

const std::string kOverrides = R"({"version": 2, "engine_overrides": [
    {"op": "matmul", "engine_name": "x", "tensors": [{"tensor_id": "A", "dim": [2, 2]}]}]})";

class OutputFailure : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(scratch.path().empty());
    folder_at_path = scratch.path() / "taken.out";
    fs::create_directory(folder_at_path);
    write(scratch.path() / "plain", "a regular file\n");
    below_file = scratch.path() / "plain" / "out.file";
  }

  // Exit 3, and standard error names `path` and `reason` in one line.
  static void expect_output_failure(const ToolRun& run, const fs::path& path, const std::string& reason) {
    EXPECT_EQ(run.exit_code, kOutputFailure) << run.err;
    const std::size_t at = run.err.find(path.string());
    ASSERT_NE(at, std::string::npos) << run.err;
    const std::size_t line_end = run.err.find('\n', at);
    EXPECT_NE(run.err.substr(at, line_end - at).find(": " + reason), std::string::npos) << run.err;
  }

  tunekit::testing::ScratchDir scratch{"tunekit-output-failure"};
  fs::path folder_at_path;  // a folder where an output file should go
  fs::path below_file;      // <regular file>/out.file
};

TEST_F(OutputFailure, CalibrateReportThatCannotBeWrittenExitsThree) {
  const std::vector<std::string> calibrate{"calibrate", "--no-cache", "--kernel", "Not", "--time-budget", "1",
                                           "--memory-budget", "4", "--report"};
  auto args = calibrate;
  args.push_back(folder_at_path.string());
  expect_output_failure(run_tool(args), folder_at_path, "Is a directory");
  args = calibrate;
  args.push_back(below_file.string());
  expect_output_failure(run_tool(args), below_file, "Not a directory");
}

TEST_F(OutputFailure, CalibrateCacheThatCannotBeUpdatedExitsThree) {
  auto run = run_tool({"calibrate", "--cache", below_file.string(), "--kernel", "Not", "--time-budget", "1",
                       "--memory-budget", "4"});
  expect_output_failure(run, below_file, "Not a directory");
  EXPECT_NE(run.err.find("the cache was not updated"), std::string::npos) << run.err;
}

TEST_F(OutputFailure, TuneOverrideFileThatCannotBeWrittenExitsThree) {
  const fs::path graph = scratch.path() / "g.toml";
  write(graph, kGraph);
  const std::vector<std::string> tune{"tune", graph.string(), "--strategy", "fixed_average", "--iterations", "1",
                                      "--output"};
  auto args = tune;
  args.push_back(folder_at_path.string());
  auto run = run_tool(args);
  expect_output_failure(run, folder_at_path, "Is a directory");
  EXPECT_EQ(run.out.find("wrote "), std::string::npos) << run.out;
  args = tune;
  args.push_back(below_file.string());
  expect_output_failure(run_tool(args), below_file, "Not a directory");

  write(graph, "[[tensors]]\nname = 3\n");  // a bad input is still exit 2
  args = tune;
  args.push_back(folder_at_path.string());
  EXPECT_EQ(run_tool(args).exit_code, kBadInput);
}

TEST_F(OutputFailure, CacheMergeIntoACacheThatCannotBeWrittenExitsThree) {
  const fs::path source = scratch.path() / "source.toml";
  write(source, kCache);
  expect_output_failure(run_tool({"cache", "merge", source.string(), "--cache", folder_at_path.string()}),
                        folder_at_path, "Is a directory");
  expect_output_failure(run_tool({"cache", "merge", source.string(), "--cache", below_file.string()}), below_file,
                        "Not a directory");

  // A source whose header does not parse is bad input, whatever the output
  // (a damaged entry alone is salvaged, so it would not be).
  write(source, "schema_version = = 1\n[[entries]]\nname = 1\n");
  EXPECT_EQ(run_tool({"cache", "merge", source.string(), "--cache", folder_at_path.string()}).exit_code, kBadInput);
}

TEST_F(OutputFailure, CachePruneOfACacheThatCannotBeWrittenExitsThree) {
  expect_output_failure(run_tool({"cache", "prune", "--execution-mismatch", "--cache", folder_at_path.string()}),
                        folder_at_path, "Is a directory");
}

TEST_F(OutputFailure, CacheExportToAFileThatCannotBeWrittenExitsThree) {
  const fs::path cache = scratch.path() / "cache.toml";
  write(cache, kCache);
  const std::vector<std::string> exp{"cache", "export", "--cache", cache.string(), "--selector-vendor", "AMD",
                                     "--selector-family", "25", "-o"};
  auto args = exp;
  args.push_back(folder_at_path.string());
  auto run = run_tool(args);
  expect_output_failure(run, folder_at_path, "Is a directory");
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "one line: " << run.err;
  args = exp;
  args.push_back(below_file.string());
  expect_output_failure(run_tool(args), below_file, "Not a directory");

  write(cache, "schema_version = 1\n[[entries]\n");
  args = exp;
  args.push_back(folder_at_path.string());
  EXPECT_EQ(run_tool(args).exit_code, kBadInput);
}

TEST_F(OutputFailure, OverridesMergeToAFileThatCannotBeWrittenExitsThreeAndAMissingInputTwo) {
  const fs::path input = scratch.path() / "a.json";
  write(input, kOverrides);
  auto run = run_tool({"overrides", "merge", input.string(), "--output", folder_at_path.string()});
  expect_output_failure(run, folder_at_path, "Is a directory");
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "one line: " << run.err;
  expect_output_failure(run_tool({"overrides", "merge", input.string(), "--output", below_file.string()}), below_file,
                        "Not a directory");

  const fs::path missing = scratch.path() / "missing.json";
  auto bad = run_tool({"overrides", "merge", missing.string(), "--output", (scratch.path() / "m.json").string()});
  EXPECT_EQ(bad.exit_code, kBadInput) << bad.err;
  EXPECT_NE(bad.err.find(missing.string() + ": No such file or directory"), std::string::npos) << bad.err;
}

TEST_F(OutputFailure, StandardOutputThatCannotBeWrittenExitsThree) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  auto run = tunekit::testing::run_tool_with_stdout({"describe", "--json"}, "/dev/full");
  EXPECT_EQ(run.exit_code, kOutputFailure) << run.err;
  EXPECT_EQ(run.err, "tunekit: cannot write standard output: No space left on device\n");
}

}  // namespace
