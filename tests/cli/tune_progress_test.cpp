// What tune_graph() relies on in `tunekit tune`: one progress line per shape
// with its candidate count and winner, the list of shapes without a
// successful candidate, --allow-incomplete (tune_graph() without
// REQUIRE_COMPLETE) and --replace leaving a file of this run's winners only.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "run_tool.hpp"
#include "support/scratch_dir.hpp"

namespace {

using tunekit::testing::run_tool;

std::string matmul_graph(const std::string& type) {
  std::string text;
  const char* names[] = {"A", "B", "C"};
  const char* dims[] = {"[8, 8]", "[8, 4]", "[8, 4]"};
  for (int i = 0; i < 3; ++i) {
    text += std::string("[[tensors]]\nname = \"") + names[i] + "\"\nuid = " + std::to_string(i + 1) + "\ndims = " +
            dims[i] + "\ndata_type = \"" + type + "\"\n";
  }
  return text + "[[operations]]\nkind = \"matmul\"\ninputs = { A = \"A\", B = \"B\" }\noutputs = { C = \"C\" }\n";
}

class TuneProgress : public ::testing::Test {
 protected:
  void SetUp() override {
    good = scratch.path() / "good.toml";
    // No tunekit_cpu engine runs a float16 matmul (yet): every candidate of
    // this graph is missing, which is a tuning failure, not bad input.
    unsupported = scratch.path() / "half.toml";
    std::ofstream(good) << matmul_graph("float");
    std::ofstream(unsupported) << matmul_graph("float16");
    output = (scratch.path() / "out.json").string();
  }
  tunekit::testing::ToolRun tune_files(std::vector<std::string> files, std::vector<std::string> extra) {
    std::vector<std::string> arguments{"tune"};
    arguments.insert(arguments.end(), files.begin(), files.end());
    for (const std::string& a : {std::string("--output"), output, std::string("--strategy"),
                                 std::string("fixed_average"), std::string("--iterations"), std::string("2"),
                                 std::string("--warmup"), std::string("0")}) {
      arguments.push_back(a);
    }
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    return run_tool(arguments);
  }
  std::size_t entries() {
    std::ifstream in(output);
    return nlohmann::json::parse(in)["engine_overrides"].size();
  }

  tunekit::testing::ScratchDir scratch{"tunekit-tune-progress"};
  std::filesystem::path good, unsupported;
  std::string output;
};

TEST_F(TuneProgress, EachShapePrintsOneLineWithItsCandidatesAndWinner) {
  auto run = tune_files({good.string()}, {});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::smatch line;
  ASSERT_TRUE(std::regex_search(run.err, line,
                                std::regex("tune: " + good.string() +
                                           " \\[base\\]: ([0-9]+) candidates, ([0-9]+) succeeded, winner '[A-Za-z_]+'")))
      << run.err;
  EXPECT_GE(std::stoi(line[1].str()), 2) << run.err;
  // Some candidates may fail (a oneDNN implementation position past its list
  // for the shape, with the reason in the table); the winner is among the others.
  EXPECT_GE(std::stoi(line[2].str()), 1) << run.err;
  EXPECT_LE(std::stoi(line[2].str()), std::stoi(line[1].str())) << run.err;
  EXPECT_EQ(run.err.find("no successful candidate"), std::string::npos) << run.err;
}

TEST_F(TuneProgress, ShapesWithoutAWinnerAreListedAndFailTheRun) {
  auto run = tune_files({good.string(), unsupported.string()}, {});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("tunekit tune: no successful candidate for: " + unsupported.string() + " [base]\n"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(entries(), 1u);  // the good graph's winner is still stored
}

TEST_F(TuneProgress, AllowIncompleteReportsThemAndExitsZero) {
  auto run = tune_files({good.string(), unsupported.string()}, {"--allow-incomplete"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("no successful candidate for: " + unsupported.string() +
                         " [base] (allowed: --allow-incomplete)"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(entries(), 1u);
}

TEST_F(TuneProgress, ReplaceWithNoWinnerLeavesAnEmptyFileNotTheOldEntries) {
  ASSERT_EQ(tune_files({good.string()}, {}).exit_code, 0);
  ASSERT_EQ(entries(), 1u);
  auto run = tune_files({unsupported.string()}, {"--allow-incomplete", "--replace"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(entries(), 0u);
}

TEST_F(TuneProgress, BadInputIsNotAMissingWinnerAndStaysExitTwo) {
  const std::filesystem::path integers = scratch.path() / "int.toml";
  std::ofstream(integers) << matmul_graph("int64");
  auto run = tune_files({integers.string()}, {"--allow-incomplete"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(run.err.find("no successful candidate"), std::string::npos) << run.err;
}

}  // namespace
