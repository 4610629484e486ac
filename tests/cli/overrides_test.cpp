// `tunekit tune` and `tunekit overrides` end to end: tuning graph files into
// an override file (append and replace, the ranked table and its JSON), the
// refusal to append to a version-1 file, and show, validate, merge and
// lookup with their exit codes.
#include <gtest/gtest.h>
#include <gmock/gmock.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_tool.hpp"

namespace {

using nlohmann::json;
using tunekit::testing::run_tool;

std::filesystem::path temporary_folder() {
  char pattern[] = "/tmp/tunekit-overrides-cli-XXXXXX";
  return mkdtemp(pattern);
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

std::string matmul_graph(int m, int k, int n) {
  return "[[tensors]]\nname = \"A\"\nuid = 1\ndims = [" + std::to_string(m) + ", " + std::to_string(k) +
         "]\n[[tensors]]\nname = \"B\"\nuid = 2\ndims = [" + std::to_string(k) + ", " + std::to_string(n) +
         "]\n[[tensors]]\nname = \"C\"\nuid = 3\ndims = [" + std::to_string(m) + ", " + std::to_string(n) +
         "]\n[[operations]]\nkind = \"matmul\"\ninputs = { A = \"A\", B = \"B\" }\noutputs = { C = \"C\" }\n";
}

class OverridesCli : public ::testing::Test {
 protected:
  void SetUp() override {
    folder = temporary_folder();
    small = folder / "small.toml";
    large = folder / "large.toml";
    output = (folder / "out" / "overrides.json").string();
    write(small, matmul_graph(16, 24, 8));
    write(large, matmul_graph(40, 24, 8));
  }
  void TearDown() override { std::filesystem::remove_all(folder); }
  std::vector<std::string> tune(std::vector<std::string> extra) {
    std::vector<std::string> args{"tune", small.string(), "--output", output, "--strategy", "fixed_average",
                                  "--iterations", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  std::filesystem::path folder, small, large;
  std::string output;
};

TEST_F(OverridesCli, TunePrintsTheRankedTableAndWritesTheWinner) {
  auto run = run_tool(tune({}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("rank  engine"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("winner"), std::string::npos);
  EXPECT_NE(run.out.find("cpu_matmul_blocked"), std::string::npos);
  EXPECT_NE(run.out.find("tile=8"), std::string::npos);
  const json doc = json::parse(read(output));
  EXPECT_EQ(doc["version"], 2);
  ASSERT_EQ(doc["engine_overrides"].size(), 1u);
  EXPECT_EQ(doc["engine_overrides"][0]["op"], "matmul");
  // The winner's provider's catalogue: the reference engines' or one that
  // names its library and version.
  const std::string winner = doc["engine_overrides"][0]["engine_name"];
  const std::string catalogue = doc["engine_overrides"][0]["validators"]["engine_catalogue_version"];
  const std::string expected_prefix = winner.rfind("CPU_MATMUL_BLIS", 0) == 0       ? "blis-"
                                      : winner.rfind("CPU_MATMUL_OPENBLAS", 0) == 0 ? "openblas-"
                                      : winner.rfind("CPU_MATMUL_TUNEKIT", 0) == 0  ? "tunekit-"
                                                                                    : "reference-1";
  EXPECT_EQ(catalogue.rfind(expected_prefix, 0), 0u) << "engine " << winner << ": " << catalogue;
}

TEST_F(OverridesCli, TuneJsonListsEveryCandidateWinnerFirst) {
  auto run = run_tool(tune({"--json"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json out = json::parse(run.out);
  ASSERT_EQ(out.size(), 1u);
  const json& candidates = out[0]["candidates"];
  ASSERT_GE(candidates.size(), 5u);
  EXPECT_EQ(candidates[0]["rank"], 0);
  for (const char* key : {"engine_id", "engine_name", "knobs", "min_time_ms", "avg_time_ms", "stddev_ms", "iterations_run",
                          "workspace_size", "rank", "succeeded", "error_message"}) {
    EXPECT_TRUE(candidates[0].contains(key)) << key;
  }
  EXPECT_EQ(candidates[0]["succeeded"], true);
  EXPECT_EQ(candidates[0]["iterations_run"], 2);
  const json winner = json::parse(read(output))["engine_overrides"][0];
  EXPECT_EQ(winner["engine_name"], candidates[0]["engine_name"]);
}

TEST_F(OverridesCli, TuneAppendsByDefaultAndReplacesOnRequest) {
  ASSERT_EQ(run_tool(tune({})).exit_code, 0);
  auto both = run_tool({"tune", large.string(), "--output", output, "--strategy", "fixed_average", "--iterations", "2"});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_EQ(json::parse(read(output))["engine_overrides"].size(), 2u);
  ASSERT_EQ(run_tool(tune({})).exit_code, 0);  // the same key: replaced, not added
  EXPECT_EQ(json::parse(read(output))["engine_overrides"].size(), 2u);
  auto replaced = run_tool(tune({"--replace"}));
  ASSERT_EQ(replaced.exit_code, 0) << replaced.err;
  EXPECT_EQ(json::parse(read(output))["engine_overrides"].size(), 1u);
  EXPECT_EQ(run_tool(tune({"--replace", "--append"})).exit_code, 2);
}

TEST_F(OverridesCli, TuneRefusesToAppendToAVersionOneFile) {
  std::filesystem::create_directories(folder / "out");
  const std::string v1 = R"({"engine_overrides": []})";
  write(output, v1);
  auto run = run_tool(tune({}));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("refusing to append"), std::string::npos) << run.err;
  EXPECT_EQ(read(output), v1);
}

TEST_F(OverridesCli, TuneNamesTheFileAndLineOfABadGraph) {
  write(small, "[[tensors]]\nname = 3\n");
  auto run = run_tool(tune({}));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find(small.string() + ":2:"), std::string::npos) << run.err;
}

TEST_F(OverridesCli, TuneOfAGraphWithAFiftyThousandPartHeaderExitsTwoNamingTheFile) {
  std::string deep = "x";
  for (int i = 1; i < 50000; ++i) deep += ".x";
  write(small, matmul_graph(16, 24, 8) + "[" + deep + "]\n");
  auto run = run_tool(tune({}));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find(small.string() + ":17:1: table header with more than 64 dotted parts (limit: 64 parts per key)"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(std::filesystem::exists(output));
}

TEST_F(OverridesCli, EveryOverridesCommandRefusesAFileNestedAHundredThousandLevelsNamingIt) {
  const std::string deep = (folder / "deep.json").string();
  write(deep, "{\"version\": " + std::string(100000, '[') + "2" + std::string(100000, ']') + ", \"engine_overrides\": []}");
  const std::string reason = deep + ": line 1, column 76: arrays and objects nested more than 64 levels deep (limit: 64 levels)";
  for (const char* command : {"show", "validate"}) {
    auto run = run_tool({"overrides", command, deep});
    EXPECT_EQ(run.exit_code, 2) << command;
    EXPECT_NE(run.err.find(reason), std::string::npos) << command << ": " << run.err;
  }
  auto merge = run_tool({"overrides", "merge", deep, "--output", (folder / "merged.json").string()});
  EXPECT_EQ(merge.exit_code, 2);
  EXPECT_NE(merge.err.find(reason), std::string::npos) << merge.err;
  EXPECT_FALSE(std::filesystem::exists(folder / "merged.json"));
  // lookup reads files as the selection policy does: an unreadable file is
  // skipped with its reason (exit 0, as for any unreadable file).
  auto lookup = run_tool({"overrides", "lookup", deep, "--op", "matmul", "--json"});
  EXPECT_EQ(lookup.exit_code, 0) << lookup.err;
  const json out = json::parse(lookup.out);
  ASSERT_EQ(out["skipped"].size(), 1u);
  EXPECT_EQ(out["skipped"][0]["file"], deep);
  EXPECT_EQ(out["skipped"][0]["reason"], reason);
  // tune appends to such a file by moving it aside, as to any file that is not JSON.
  std::filesystem::create_directories(folder / "out");
  std::filesystem::copy_file(deep, output);
  auto tuned = run_tool(tune({}));
  EXPECT_EQ(tuned.exit_code, 0) << tuned.err;
  EXPECT_EQ(json::parse(read(output))["engine_overrides"].size(), 1u);
}

TEST_F(OverridesCli, LookupExplainsAMatchAndAMissAndExitsZeroEitherWay) {
  ASSERT_EQ(run_tool(tune({})).exit_code, 0);
  auto hit = run_tool({"overrides", "lookup", output, "--op", "matmul", "--tensor", "A=16x24", "--tensor", "B=24x8",
                       "--tensor", "C=16x8:8x1", "--json"});
  ASSERT_EQ(hit.exit_code, 0) << hit.err;
  const json match = json::parse(hit.out);
  EXPECT_EQ(match["matched"], true);
  EXPECT_EQ(match["file"], output);
  EXPECT_EQ(match["entry_index"], 0);
  EXPECT_EQ(match["exact"], true);
  // One of the CPU engines of the tool (kernels/cpu/engines, the reference ones).
  EXPECT_THAT((std::vector<int>{100, 101, 200, 300, 9001, 9002, 9003, 9004}),
              ::testing::Contains(match["engine_id"].get<int>()));
  EXPECT_TRUE(match["knobs"].is_array());
  EXPECT_EQ(match["skipped"], json::array());
  EXPECT_EQ(match.size(), 8u);

  // With nearest-shape selection off, a shape nobody tuned misses...
  auto miss = run_tool({"overrides", "lookup", output, "--op", "matmul", "--tensor", "A=16x25", "--tensor", "B=25x8",
                        "--tensor", "C=16x8", "--json", "--nearest-limit", "0"});
  ASSERT_EQ(miss.exit_code, 0) << miss.err;
  const json missed = json::parse(miss.out);
  EXPECT_EQ(missed["matched"], false);
  ASSERT_EQ(missed["misses"].size(), 1u);
  EXPECT_EQ(missed["misses"][0]["file"], output);
  EXPECT_EQ(missed["misses"][0]["entry_index"], 0);
  EXPECT_EQ(missed["misses"][0]["reason"], "tensor A dims 16x24 do not fit 16x25");

  // ...and by default the tuned 16x24 stands in for it (K 24 against 25, in A and B), naming the tuned shape.
  auto near = run_tool({"overrides", "lookup", output, "--op", "matmul", "--tensor", "A=16x25", "--tensor", "B=25x8",
                        "--tensor", "C=16x8", "--json"});
  ASSERT_EQ(near.exit_code, 0) << near.err;
  const json nearest = json::parse(near.out);
  EXPECT_EQ(nearest["matched"], true);
  EXPECT_EQ(nearest["exact"], false);
  EXPECT_NEAR(nearest["nearest"]["distance"].get<double>(), 2 * std::log2(25.0 / 24.0), 1e-9);
  ASSERT_EQ(nearest["nearest"]["tensors"].size(), 2u);
  EXPECT_EQ(nearest["nearest"]["tensors"][0]["tensor_id"], "A");
  EXPECT_EQ(nearest["nearest"]["tensors"][0]["dim"], json::array({16, 24}));
  auto text = run_tool({"overrides", "lookup", output, "--op", "matmul", "--tensor", "A=16x25", "--tensor", "B=25x8"});
  EXPECT_NE(text.out.find("(the nearest tuned shape, A=16x24 B=24x8, at distance 0.118)"), std::string::npos) << text.out;
  auto far = run_tool({"overrides", "lookup", output, "--op", "matmul", "--tensor", "A=16x25", "--tensor", "B=25x8",
                       "--json", "--nearest-limit", "0.1"});
  EXPECT_EQ(json::parse(far.out)["matched"], false);
  EXPECT_EQ(json::parse(far.out)["misses"][0]["reason"],
            "tensor A dims 16x24 do not fit 16x25; its tuned shape is at distance 0.118, beyond the limit of 0.1");

  auto bad = run_tool({"overrides", "lookup", output, "--op", "matmul", "--tensor", "A=16by8"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--tensor 'A=16by8'"), std::string::npos) << bad.err;
}

// An entry applies on the device it was tuned on: lookup matches the
// entries of the device --device names (the CPU by default; a GPU's
// signature is "hip:..."), stops with the reason where that device is
// absent, and --any-device ignores the validators.
TEST_F(OverridesCli, LookupMatchesTheEntriesOfTheDeviceItNames) {
  ASSERT_EQ(run_tool(tune({})).exit_code, 0);
  const std::vector<std::string> query{"overrides", "lookup", output,     "--op",     "matmul", "--tensor",
                                       "A=16x24",   "--tensor", "B=24x8", "--json"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = query;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_tool(args);
  };
  auto cpu = with({"--device", "cpu"});
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  EXPECT_EQ(json::parse(cpu.out)["matched"], true);

  // The same entry as a GPU had tuned it: the CPU's lookup misses it, naming both signatures.
  json file = json::parse(read(output));
  const std::string cpu_signature = file["engine_overrides"][0]["validators"]["device_signature"];
  file["engine_overrides"][0]["validators"]["device_signature"] = "hip:0123456789abcdef";
  write(output, file.dump());
  auto missed = with({"--device", "cpu"});
  ASSERT_EQ(missed.exit_code, 0) << missed.err;
  const json miss = json::parse(missed.out);
  EXPECT_EQ(miss["matched"], false);
  ASSERT_EQ(miss["misses"].size(), 1u);
  const std::string reason = miss["misses"][0]["reason"];
  EXPECT_NE(reason.find("hip:0123456789abcdef"), std::string::npos) << reason;
  EXPECT_NE(reason.find(cpu_signature), std::string::npos) << reason;
  EXPECT_EQ(json::parse(with({"--any-device"}).out)["matched"], true);

  const auto described = run_tool({"describe", "--json"});
  ASSERT_EQ(described.exit_code, 0);
  const json hip = json::parse(described.out)["hip"];
  if (hip["devices"].empty()) {
    auto gpu = with({"--device", "hip"});
    EXPECT_EQ(gpu.exit_code, 1) << gpu.err;
    EXPECT_NE(gpu.err.find("--device hip: " + hip["reason"].get<std::string>()), std::string::npos) << gpu.err;
    EXPECT_TRUE(gpu.out.empty()) << gpu.out;
  }
  auto unknown = with({"--device", "gpu"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--device: unknown device 'gpu' (cpu, hip or hip:N)"), std::string::npos) << unknown.err;
  EXPECT_EQ(with({"--device", "cpu", "--any-device"}).exit_code, 2);
}

TEST_F(OverridesCli, LookupSkipsAnUnreadableOrMissingFileAsThePolicyDoesAndMatchesInTheOthers) {
  ASSERT_EQ(run_tool(tune({})).exit_code, 0);
  const std::string broken = (folder / "broken.json").string();
  const std::string missing = (folder / "missing.json").string();
  write(broken, "{ nope");
  const std::vector<std::string> query{"--op", "matmul", "--tensor", "A=16x24", "--tensor", "B=24x8", "--tensor", "C=16x8"};
  std::vector<std::string> args{"overrides", "lookup", broken, missing, output};
  args.insert(args.end(), query.begin(), query.end());

  auto text = run_tool(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("skipped " + broken + ": " + broken + ": line 1, column 4: syntax error"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("skipped " + missing + ": does not exist\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("matched: entry 0 of " + output + " (exact)"), std::string::npos) << text.out;

  args.push_back("--json");
  auto run = run_tool(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json out = json::parse(run.out);
  EXPECT_EQ(out["matched"], true);
  EXPECT_EQ(out["file"], output);
  ASSERT_EQ(out["skipped"].size(), 2u);
  EXPECT_EQ(out["skipped"][0]["file"], broken);
  EXPECT_EQ(out["skipped"][0]["reason"].get<std::string>().rfind(broken + ": line 1, column 4: syntax error", 0), 0u)
      << out["skipped"][0]["reason"];
  EXPECT_EQ(out["skipped"][1], json({{"file", missing}, {"reason", "does not exist"}}));

  // Nothing left to read: no match, the reasons, still exit 0.
  auto none = run_tool({"overrides", "lookup", broken, "--op", "matmul", "--json"});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  const json nothing = json::parse(none.out);
  EXPECT_EQ(nothing["matched"], false);
  EXPECT_EQ(nothing["misses"], json::array());
  ASSERT_EQ(nothing["skipped"].size(), 1u);
  EXPECT_EQ(nothing["skipped"][0]["file"], broken);
}

TEST_F(OverridesCli, ValidateShowAndMerge) {
  const std::filesystem::path a = folder / "a.json", b = folder / "b.json", merged = folder / "merged.json";
  write(a, R"({"version": 2, "engine_overrides": [
      {"op": "matmul", "engine_name": "x", "tensors": [{"tensor_id": "A", "dim": [2, 2]}]},
      {"op": "matmul", "tensors": []}]})");
  write(b, R"({"version": 2, "engine_overrides": [
      {"op": "matmul", "engine_name": "y", "tensors": [{"tensor_id": "A", "dim": [2, 2]}]},
      {"op": "matmul", "engine_name": "z", "tensors": [{"tensor_id": "A", "dim": [3, 3]}]}]})");
  auto invalid = run_tool({"overrides", "validate", a.string()});
  EXPECT_EQ(invalid.exit_code, 2);
  EXPECT_NE(invalid.err.find("entry 1: engine_name: missing"), std::string::npos) << invalid.err;
  EXPECT_EQ(run_tool({"overrides", "validate", b.string()}).exit_code, 0);

  auto show = run_tool({"overrides", "show", a.string()});
  EXPECT_EQ(show.exit_code, 0);
  EXPECT_NE(show.out.find("version 2, 1 entries, 1 rejected"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("[0] matmul A=2x2 -> 'x'"), std::string::npos) << show.out;

  auto merge = run_tool({"overrides", "merge", a.string(), b.string(), "--output", merged.string()});
  ASSERT_EQ(merge.exit_code, 0) << merge.err;
  const json out = json::parse(read(merged));
  ASSERT_EQ(out["engine_overrides"].size(), 2u);
  EXPECT_EQ(out["engine_overrides"][0]["engine_name"], "x");
  EXPECT_EQ(out["engine_overrides"][1]["engine_name"], "z");

  write(folder / "broken.json", "{ nope");
  auto broken = run_tool({"overrides", "show", (folder / "broken.json").string()});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find("broken.json: line 1, column 4: syntax error"), std::string::npos) << broken.err;
}

}  // namespace
