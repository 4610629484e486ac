// `tunekit tune` and the shapes of a graph file: every shape set tuned by
// default (one entry per shape), --shape-set picking some, and graphs whose
// sizes overflow 64 bits or exceed the memory budget refused with exit 2
// before anything is allocated.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>

#include "run_tool.hpp"

namespace {

using nlohmann::json;
using tunekit::testing::run_tool;

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

std::string dims(const std::string& a, const std::string& b) { return "[" + a + ", " + b + "]"; }

// C [m, n] = A [m, k] x B [k, n], float, then the shape sets given as TOML.
std::string matmul_graph(const std::string& m, const std::string& k, const std::string& n,
                         const std::string& shape_sets = "") {
  return "[[tensors]]\nname = \"A\"\nuid = 1\ndims = " + dims(m, k) + "\n[[tensors]]\nname = \"B\"\nuid = 2\ndims = " +
         dims(k, n) + "\n[[tensors]]\nname = \"C\"\nuid = 3\ndims = " + dims(m, n) +
         "\n[[operations]]\nkind = \"matmul\"\ninputs = { A = \"A\", B = \"B\" }\noutputs = { C = \"C\" }\n" +
         shape_sets;
}

const char* kShapeSets = R"([[shape_sets]]
name = "small"
dims = { A = [8, 8], B = [8, 4], C = [8, 4] }
[[shape_sets]]
name = "tall"
dims = { A = [64, 8], B = [8, 4], C = [64, 4] }
)";

class TuneCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tunekit-tune-cli-XXXXXX";
    folder = mkdtemp(pattern);
    graph = folder / "graph.toml";
    output = (folder / "overrides.json").string();
  }
  void TearDown() override { std::filesystem::remove_all(folder); }
  tunekit::testing::ToolRun tune(std::vector<std::string> extra) {
    std::vector<std::string> args{"tune", graph.string(), "--output", output, "--strategy", "fixed_average",
                                  "--iterations", "2", "--warmup", "0"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_tool(args);
  }
  std::vector<std::string> tuned_shapes(const std::string& json_out) {
    std::vector<std::string> shapes;
    for (const json& problem : json::parse(json_out)) shapes.push_back(problem["shape_set"].get<std::string>());
    return shapes;
  }
  std::size_t entries() { return json::parse(read(output))["engine_overrides"].size(); }

  std::filesystem::path folder, graph;
  std::string output;
};

TEST_F(TuneCli, PluginEnginesAreCandidatesAndARefusedPluginIsReportedWithoutStoppingTheTuning) {
  write(graph, matmul_graph("6", "5", "4"));
  auto run = tune({"--plugin", TUNEKIT_TEST_PLUGIN_CLASH, "--plugin", TUNEKIT_TEST_PLUGIN_GOOD});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("PLUGIN_MATMUL_TEST"), std::string::npos) << run.out;
  EXPECT_NE(run.err.find(std::string("tunekit tune: plugin ") + TUNEKIT_TEST_PLUGIN_CLASH +
                         " refused: failed to register: engine registry: engine id 100 ('CPU_MATMUL_TUNEKIT') is "
                         "already registered\n"),
            std::string::npos)
      << run.err;

  // The same plugin from the environment.
  setenv("TUNEKIT_ENGINE_PLUGIN_PATH", TUNEKIT_TEST_PLUGIN_GOOD, 1);
  auto from_environment = tune({});
  unsetenv("TUNEKIT_ENGINE_PLUGIN_PATH");
  ASSERT_EQ(from_environment.exit_code, 0) << from_environment.err;
  EXPECT_NE(from_environment.out.find("PLUGIN_MATMUL_TEST"), std::string::npos) << from_environment.out;
  EXPECT_EQ(tune({}).out.find("PLUGIN_MATMUL_TEST"), std::string::npos);
}

TEST_F(TuneCli, EveryShapeIsTunedByDefaultOneEntryPerShape) {
  write(graph, matmul_graph("16", "24", "8", kShapeSets));
  auto run = tune({"--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(tuned_shapes(run.out), (std::vector<std::string>{"base", "small", "tall"}));
  EXPECT_EQ(entries(), 3u);
  std::set<std::vector<std::int64_t>> a_dims;
  const json doc = json::parse(read(output));
  for (const json& entry : doc["engine_overrides"]) {
    ASSERT_EQ(entry["tensors"][0]["tensor_id"], "A");
    a_dims.insert(entry["tensors"][0]["dim"].get<std::vector<std::int64_t>>());
  }
  EXPECT_EQ(a_dims, (std::set<std::vector<std::int64_t>>{{16, 24}, {8, 8}, {64, 8}}));
}

TEST_F(TuneCli, ShapeSetPicksTheNamedShapesInOrderAndIsRepeatable) {
  write(graph, matmul_graph("16", "24", "8", kShapeSets));
  auto picked = tune({"--json", "--shape-set", "tall", "--shape-set", "base"});
  ASSERT_EQ(picked.exit_code, 0) << picked.err;
  EXPECT_EQ(tuned_shapes(picked.out), (std::vector<std::string>{"tall", "base"}));
  EXPECT_EQ(entries(), 2u);
  auto all = tune({"--json", "--shape-set", "all", "--replace"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(tuned_shapes(all.out), (std::vector<std::string>{"base", "small", "tall"}));
  EXPECT_EQ(entries(), 3u);
  auto table = tune({"--shape-set", "small"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find(graph.string() + " [small]\n"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("[base]"), std::string::npos) << table.out;
}

TEST_F(TuneCli, AnUnknownShapeSetIsBadUsageListingTheShapes) {
  write(graph, matmul_graph("16", "24", "8", kShapeSets));
  auto run = tune({"--shape-set", "wide"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err, "tunekit tune: " + graph.string() +
                         ": shape_sets: no shape set named 'wide' (shapes: base, small, tall)\n");
  EXPECT_FALSE(std::filesystem::exists(output));
}

TEST_F(TuneCli, AFileWithoutShapeSetsTunesItsOwnDims) {
  write(graph, matmul_graph("16", "24", "8"));
  auto run = tune({"--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(tuned_shapes(run.out), (std::vector<std::string>{"base"}));
  EXPECT_EQ(entries(), 1u);
}

// The knob sweep meets combinations an engine refuses for the graph (the
// direct convolution's channel_block and order on a depthwise convolution,
// its padding knob without padding): those are skipped, the others tuned.
// A depthwise sample graph once failed whole here.
TEST_F(TuneCli, SampleConvolutionsWhoseEnginesRefuseSomeKnobCombinationsAreTuned) {
  for (const char* sample : {"mobilenet_v2_depthwise.toml", "resnet50_conv1x1_expand.toml"}) {
    SCOPED_TRACE(sample);
    std::filesystem::copy_file(std::filesystem::path(TUNEKIT_EXAMPLE_GRAPHS_DIR) / sample, graph,
                               std::filesystem::copy_options::overwrite_existing);
    auto run = tune({"--shape-set", "base", "--json"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.err.find("add_engine_variants"), std::string::npos) << run.err;
    EXPECT_EQ(tuned_shapes(run.out), (std::vector<std::string>{"base"}));
  }
  EXPECT_EQ(entries(), 2u);
}

// A bfloat16 graph: random bfloat16 inputs, candidates checked against the
// double oracle (the float reference engines do not run it), and an entry of
// its own beside the float graph's of the same dims.
TEST_F(TuneCli, ABfloat16GraphIsCheckedAgainstTheOracleAndKeepsAnEntryBesideTheFloatOne) {
  std::string text = matmul_graph("16", "24", "8");
  for (const char* uid : {"uid = 1\n", "uid = 2\n", "uid = 3\n"}) {
    text.replace(text.find(uid), std::string(uid).size(), std::string(uid) + "data_type = \"bfloat16\"\n");
  }
  write(graph, text);
  auto run = tune({"--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::set<std::string> engines;
  const json problems = json::parse(run.out);
  for (const json& candidate : problems[0]["candidates"]) {
    if (!candidate["succeeded"].get<bool>()) continue;
    engines.insert(candidate["engine_name"].get<std::string>());
    EXPECT_EQ(candidate["result_check"].get<std::string>().rfind("agrees with cpu_double_oracle", 0), 0u)
        << candidate.dump();
  }
  // oneDNN runs bfloat16 where the processor has AVX-512; tunekit's widening Gemm everywhere.
  EXPECT_TRUE(engines.count("CPU_MATMUL_TUNEKIT")) << run.out;
  for (const std::string& name : engines) EXPECT_TRUE(name == "CPU_MATMUL_TUNEKIT" || name == "CPU_MATMUL_ONEDNN") << name;
  const json first = json::parse(read(output))["engine_overrides"];
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0]["criteria"], json({{"data_type", 4}}));

  write(graph, matmul_graph("16", "24", "8"));
  ASSERT_EQ(tune({}).exit_code, 0);
  const json both = json::parse(read(output))["engine_overrides"];
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0], first[0]);
  EXPECT_FALSE(both[1].contains("criteria"));
}

// Each of these crashed the reference matmul (SIGSEGV) or began zeroing 16 GiB.
TEST_F(TuneCli, DimsWhoseSizesOverflowSixtyFourBitsAreBadInputNamingTheTensorAndDims) {
  struct Case {
    std::string m, k, message;
  };
  const std::vector<Case> cases{
      {"4294967296", "4294967296",
       "validate: tensor 'A' (uid 1): dims [4294967296, 4294967296] hold more than 9223372036854775807 elements"},
      {"4611686018427387904", "1",
       "validate: tensor 'A' (uid 1): dims [4611686018427387904, 1] with strides [1, 1] span 4611686018427387904 "
       "elements of float, more than 9223372036854775807 bytes"},
      {"9223372036854775807", "1",
       "validate: tensor 'A' (uid 1): dims [9223372036854775807, 1] with strides [1, 1] span 9223372036854775807 "
       "elements of float, more than 9223372036854775807 bytes"},
  };
  for (const Case& c : cases) {
    write(graph, matmul_graph(c.m, c.k, "1"));
    auto run = tune({});
    EXPECT_EQ(run.exit_code, 2) << c.m;
    EXPECT_EQ(run.err, "tunekit tune: " + graph.string() + " [base]: " + c.message + "\n");
    EXPECT_FALSE(std::filesystem::exists(output));
  }
}

TEST_F(TuneCli, BuffersAboveTheMemoryBudgetAreRefusedBeforeAnyIsAllocated) {
  // A and C: 2^32 floats each, 16 GiB; the default budget is 1024 MiB.
  write(graph, matmul_graph("4294967296", "1", "1"));
  auto huge = tune({});
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_EQ(huge.err, "tunekit tune: " + graph.string() +
                          " [base]: memory budget: tensor 'A' (uid 1) needs 17179869184 bytes, above the budget of "
                          "1073741824 bytes (--memory-budget 1024 MiB)\n");
  auto low = tune({"--memory-budget", "1"});
  EXPECT_EQ(low.exit_code, 2);
  EXPECT_NE(low.err.find("needs 17179869184 bytes, above the budget of 1048576 bytes (--memory-budget 1 MiB)"),
            std::string::npos)
      << low.err;
  EXPECT_FALSE(std::filesystem::exists(output));
  EXPECT_EQ(tune({"--memory-budget", "0"}).exit_code, 2);  // CLI11 range check
}

TEST_F(TuneCli, TheBudgetRefusesATensorJustAboveItAndATotalJustAboveIt) {
  // A [256, 1025]: 1049600 bytes, just above 1 MiB on its own.
  write(graph, matmul_graph("256", "1025", "1"));
  auto alone = tune({"--memory-budget", "1"});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_EQ(alone.err, "tunekit tune: " + graph.string() +
                           " [base]: memory budget: tensor 'A' (uid 1) needs 1049600 bytes, above the budget of "
                           "1048576 bytes (--memory-budget 1 MiB)\n");
  // A [256, 1024] is exactly 1 MiB; B [1024, 1] takes the total past it.
  write(graph, matmul_graph("256", "1024", "1"));
  auto together = tune({"--memory-budget", "1"});
  EXPECT_EQ(together.exit_code, 2);
  EXPECT_EQ(together.err, "tunekit tune: " + graph.string() +
                              " [base]: memory budget: tensor 'B' (uid 2) needs 4096 bytes, 1052672 with the buffers "
                              "before it, above the budget of 1048576 bytes (--memory-budget 1 MiB)\n");
  auto fits = tune({"--memory-budget", "2"});
  EXPECT_EQ(fits.exit_code, 0) << fits.err;
  EXPECT_EQ(entries(), 1u);
}

TEST_F(TuneCli, HelpDocumentsTheMemoryBudgetAndTheShapeSets) {
  auto run = run_tool({"tune", "--help"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("--memory-budget"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("]=1024"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("default: every shape"), std::string::npos) << run.out;
}

}  // namespace

namespace {

class TuneRaceCli : public TuneCli {};

TEST_F(TuneRaceCli, ARaceReportsEachCandidateAgainstTheFastestAndTheFileSaysRace) {
  write(graph, matmul_graph("48", "32", "40"));
  auto run = run_tool({"tune", graph.string(), "--output", output, "--strategy", "race", "--race-min-samples", "3",
                       "--iterations", "12", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json problems = json::parse(run.out);
  ASSERT_EQ(problems.size(), 1u);
  int fastest = 0, compared = 0, eliminated = 0;
  for (const json& c : problems[0]["candidates"]) {
    if (!c["succeeded"].get<bool>()) continue;
    const auto samples = c["samples_ms"].get<std::vector<double>>();
    EXPECT_GE(samples.size(), 3u);
    EXPECT_LE(samples.size(), 12u);
    EXPECT_EQ(static_cast<int>(samples.size()), c["iterations_run"].get<int>());
    EXPECT_GE(c["median_time_ms"].get<double>(), c["min_time_ms"].get<double>());
    if (c["against_fastest"].is_null()) {
      ++fastest;
      continue;
    }
    ++compared;
    const json& a = c["against_fastest"];
    const std::string verdict = a["verdict"].get<std::string>();
    EXPECT_TRUE(verdict == "slower" || verdict == "tie" || verdict == "undecided" || verdict == "faster") << verdict;
    EXPECT_LE(a["ratio_low"].get<double>(), a["ratio"].get<double>());
    EXPECT_GE(a["ratio_high"].get<double>(), a["ratio"].get<double>());
    if (c["eliminated_after_round"].get<int>() >= 0) {
      ++eliminated;
      EXPECT_EQ(verdict, "slower");
    }
  }
  EXPECT_EQ(fastest, 1);
  EXPECT_GE(compared, 2);
  // The reference engines are orders of magnitude slower than the library ones.
  EXPECT_GE(eliminated, 1);
  const json file = json::parse(read(output));
  ASSERT_EQ(file["engine_overrides"].size(), 1u);
  const json& metadata = file["engine_overrides"][0]["autotune_metadata"];
  EXPECT_EQ(metadata["strategy"], "race");
  EXPECT_TRUE(metadata.contains("converged"));
  EXPECT_TRUE(metadata["tied_with_fastest"].is_boolean());
}

TEST_F(TuneRaceCli, TheTableShowsTheComparisonColumn) {
  write(graph, matmul_graph("8", "8", "8"));
  auto run = tune({});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("vs fastest"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(" fastest "), std::string::npos) << run.out;
}

TEST_F(TuneRaceCli, BadStrategiesAndBandsAreBadUsage) {
  write(graph, matmul_graph("8", "8", "8"));
  auto unknown = run_tool({"tune", graph.string(), "--output", output, "--strategy", "sprint"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown strategy 'sprint' (fixed_average, run_until_stable, race)"), std::string::npos)
      << unknown.err;
  auto band = run_tool({"tune", graph.string(), "--output", output, "--tie-band", "150"});
  EXPECT_EQ(band.exit_code, 2) << band.err;
  EXPECT_NE(band.err.find("--tie-band"), std::string::npos) << band.err;
  auto rounds = run_tool({"tune", graph.string(), "--output", output, "--strategy", "race", "--iterations", "3"});
  EXPECT_EQ(rounds.exit_code, 2);
  EXPECT_NE(rounds.err.find("max_iterations must be at least race_min_samples (5) for race, got 3"),
            std::string::npos)
      << rounds.err;
  EXPECT_FALSE(std::filesystem::exists(output));
}

}  // namespace

namespace {

class TuneStableCli : public TuneCli {};

TEST_F(TuneStableCli, RequireStableFailsAnUnreliableWinnerAndKeepsTheStoredEntry) {
  // Large enough that no two of six samples read the same: a 16^3 product
  // runs in half a microsecond, where more than half of six samples can hit
  // the same tick of the clock and leave no dispersion at all.
  write(graph, matmul_graph("96", "96", "96"));
  auto first = tune({});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string stored = read(output);
  // No real measurement has a dispersion below a millionth of a percent.
  auto strict = run_tool({"tune", graph.string(), "--output", output, "--strategy", "fixed_average", "--iterations",
                          "6", "--dispersion-limit", "0.000001", "--require-stable", "--allow-incomplete"});
  EXPECT_EQ(strict.exit_code, 1) << strict.err;
  EXPECT_NE(strict.err.find("has an unreliable measurement: "), std::string::npos) << strict.err;
  EXPECT_NE(strict.err.find("% above the limit of 1e-06%"), std::string::npos) << strict.err;
  EXPECT_NE(strict.err.find("(--require-stable: not stored)"), std::string::npos) << strict.err;
  EXPECT_EQ(strict.err.find("no successful candidate"), std::string::npos) << strict.err;
  EXPECT_EQ(read(output), stored);
  // Without --require-stable it is named, stored and not a failure.
  auto lenient = run_tool({"tune", graph.string(), "--output", output, "--strategy", "fixed_average", "--iterations",
                           "6", "--dispersion-limit", "0.000001", "--json"});
  EXPECT_EQ(lenient.exit_code, 0) << lenient.err;
  EXPECT_NE(lenient.err.find("has an unreliable measurement"), std::string::npos) << lenient.err;
  const json candidates = json::parse(lenient.out)[0]["candidates"];
  EXPECT_FALSE(candidates[0]["unreliable_reason"].get<std::string>().empty());
  const json metadata = json::parse(read(output))["engine_overrides"][0]["autotune_metadata"];
  EXPECT_EQ(metadata["unreliable_reason"], candidates[0]["unreliable_reason"]);
}

TEST_F(TuneStableCli, RequireStableStoresAReliableWinner) {
  write(graph, matmul_graph("16", "16", "16"));
  // A limit no measurement reaches: only the machine's load could make it unreliable.
  auto run = tune({"--dispersion-limit", "1000", "--require-stable"});
  if (run.err.find("load average") != std::string::npos) GTEST_SKIP() << "the machine is loaded: " << run.err;
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(json::parse(read(output))["engine_overrides"].size(), 1u);
}

}  // namespace
