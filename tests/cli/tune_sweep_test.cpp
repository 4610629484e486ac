// Which knob values `tunekit tune` tries, through a driver whose engines have
// knobs of known ranges (sweep_driver_main.cpp): every value of a small grid
// (48 of 16..64 step 16 included), the sample of a large range with a line
// saying what it left out, both in the ranked table and in --json, knobs
// swept alone when their combinations exceed the sweep limit, and the same
// values in standard and exhaustive mode.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "run_tool.hpp"
#include "support/scratch_dir.hpp"

namespace {

using nlohmann::json;

const char* kMatmul = R"([[tensors]]
name = "A"
uid = 1
dims = [8, 8]
[[tensors]]
name = "B"
uid = 2
dims = [8, 4]
[[tensors]]
name = "C"
uid = 3
dims = [8, 4]
[[operations]]
kind = "matmul"
inputs = { A = "A", B = "B" }
outputs = { C = "C" }
)";

class TuneSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    graph = scratch.path() / "graph.toml";
    std::ofstream(graph) << kMatmul;
  }
  tunekit::testing::ToolRun tune(std::vector<std::string> extra) {
    std::vector<std::string> args{"tune",           graph.string(), "--output", (scratch.path() / "out.json").string(),
                                  "--strategy",     "fixed_average", "--iterations", "1",
                                  "--warmup",       "0"};
    args.insert(args.end(), extra.begin(), extra.end());
    return tunekit::testing::run_program(TUNEKIT_SWEEP_DRIVER_PATH, args);
  }
  // The values of knob_id that the candidates of engine_name ran with (the
  // default for a candidate that does not set it).
  static std::set<std::int64_t> tried(const json& problem, const std::string& engine_name, const std::string& knob_id,
                                      std::int64_t default_value) {
    std::set<std::int64_t> values;
    for (const json& candidate : problem["candidates"]) {
      if (candidate["engine_name"] != engine_name) continue;
      EXPECT_TRUE(candidate["succeeded"].get<bool>()) << candidate.dump();
      std::int64_t value = default_value;
      for (const json& knob : candidate["knobs"]) {
        if (knob["knob_id"] == knob_id) value = knob["value"].get<std::int64_t>();
      }
      EXPECT_TRUE(values.insert(value).second) << engine_name << " tried " << value << " twice";
    }
    return values;
  }
  static const json& sweep_of(const json& problem, const std::string& engine_name) {
    for (const json& sweep : problem["knob_sweeps"]) {
      if (sweep["engine_name"] == engine_name) return sweep;
    }
    static const json none;
    ADD_FAILURE() << "no knob_sweeps entry for " << engine_name;
    return none;
  }

  tunekit::testing::ScratchDir scratch{"tunekit-tune-sweep"};
  std::filesystem::path graph;
};

TEST_F(TuneSweep, EveryValueOfASmallGridIsTriedSo48OfSixteenToSixtyFourIsTried) {
  auto run = tune({"--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json problem = json::parse(run.out).at(0);
  EXPECT_EQ(tried(problem, "grid_matmul", "tile", 32), (std::set<std::int64_t>{16, 32, 48, 64}));
  const json& sweep = sweep_of(problem, "grid_matmul");
  EXPECT_EQ(sweep["candidates"], 4);
  EXPECT_EQ(sweep["combining"], "every_combination");
  ASSERT_EQ(sweep["knobs"].size(), 1u);
  EXPECT_EQ(sweep["knobs"][0]["rule"], "every_value");
  EXPECT_EQ(sweep["knobs"][0]["values"], json({16, 32, 48, 64}));
  EXPECT_EQ(sweep["knobs"][0]["valid_count"], 4);
  EXPECT_EQ(sweep["knobs"][0]["step"], 16);
  EXPECT_EQ(sweep["knobs"][0]["left_out_count"], 0);

  auto table = tune({});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("grid_matmul              tile=48 "), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("knob 'tile'"), std::string::npos) << "nothing was left out:\n" << table.out;
}

TEST_F(TuneSweep, ALargeRangeIsSampledAndItsLineSaysWhatWasLeftOut) {
  auto table = tune({});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("\n  knob 'block' of engine 'wide_matmul': swept 12 of 1000 values (1, 2, 4, 8, 16, 32, "
                           "64, 100, 128, 256, 512, 1000); left out 988 (3, 5..7, 9..15, 17..31, 33..63, 65..99, "
                           "101..127, 129..255, 257..511, 513..999)\n"),
            std::string::npos)
      << table.out;

  auto run = tune({"--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json problem = json::parse(run.out).at(0);
  EXPECT_EQ(tried(problem, "wide_matmul", "block", 100),
            (std::set<std::int64_t>{1, 2, 4, 8, 16, 32, 64, 100, 128, 256, 512, 1000}));
  const json& knob = sweep_of(problem, "wide_matmul")["knobs"][0];
  EXPECT_EQ(knob["rule"], "sampled");
  EXPECT_EQ(knob["default"], 100);
  EXPECT_EQ(knob["valid_count"], 1000);
  EXPECT_EQ(knob["left_out_count"], 988);
  EXPECT_EQ(knob["left_out"], json({{3, 3}, {5, 7}, {9, 15}, {17, 31}, {33, 63}, {65, 99}, {101, 127}, {129, 255},
                                    {257, 511}, {513, 999}}));
}

TEST_F(TuneSweep, KnobsWhoseCombinationsExceedTheLimitAreSweptAloneWithALineSayingSo) {
  auto table = tune({});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("\n  engine 'four_knob_matmul': the 65536 combinations of its knobs exceed the limit of "
                           "10000; each knob is swept alone, the others at their defaults (61 candidates)\n"),
            std::string::npos)
      << table.out;
  auto run = tune({"--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json problem = json::parse(run.out).at(0);
  const json& sweep = sweep_of(problem, "four_knob_matmul");
  EXPECT_EQ(sweep["combining"], "each_knob_alone");
  EXPECT_EQ(sweep["combinations"], 65536);
  EXPECT_EQ(sweep["candidates"], 61);
  std::size_t candidates = 0;
  for (const json& candidate : problem["candidates"]) {
    if (candidate["engine_name"] != "four_knob_matmul") continue;
    ++candidates;
    EXPECT_LE(candidate["knobs"].size(), 1u) << candidate.dump();
  }
  EXPECT_EQ(candidates, 61u);
}

TEST_F(TuneSweep, ExhaustiveModeTriesTheSameValuesAsStandard) {
  auto standard = tune({"--json"});
  auto exhaustive = tune({"--json", "--mode", "exhaustive"});
  ASSERT_EQ(standard.exit_code, 0) << standard.err;
  ASSERT_EQ(exhaustive.exit_code, 0) << exhaustive.err;
  const json a = json::parse(standard.out).at(0);
  const json b = json::parse(exhaustive.out).at(0);
  EXPECT_EQ(a["knob_sweeps"], b["knob_sweeps"]);
  EXPECT_EQ(tried(a, "grid_matmul", "tile", 32), tried(b, "grid_matmul", "tile", 32));
  EXPECT_EQ(tried(a, "wide_matmul", "block", 100), tried(b, "wide_matmul", "block", 100));
}

}  // namespace
