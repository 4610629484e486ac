// `tunekit report`: one self-contained page from a calibration report, a
// calibration cache, an override file and `tune --json` tables, with a chart
// spec per measured parameter and shape (the points each must draw), what
// changed since --before inputs, text from the inputs escaped, and bad inputs
// refused naming the file. (tests/report draws the page in a browser.)
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "cli_test_support.hpp"
#include "run_tool.hpp"

namespace {

using nlohmann::json;
using tunekit::testing::read_text;
using tunekit::testing::run_tool;

// A calibration report as `calibrate --report` writes it: one crossover
// parameter (probes of two paths at three sizes), one parameter measured by
// other candidates, and a reason that would be markup if not escaped.
json calibration_report() {
  json candidates = json::array();
  for (int size : {64, 128, 256}) {
    candidates.push_back({{"parameter", "algorithm.simd_min_elements"}, {"candidate", "size=" + std::to_string(size) + " path=serial_scalar"},
                          {"median_ms", 0.001 * size}, {"mad_ms", 0.0001}, {"samples_ms", {0.001 * size}}});
    candidates.push_back({{"parameter", "algorithm.simd_min_elements"}, {"candidate", "size=" + std::to_string(size) + " path=serial_simd"},
                          {"median_ms", 0.05 + 0.0002 * size}, {"mad_ms", 0.0001}, {"samples_ms", {0.05}}});
  }
  candidates.push_back({{"parameter", "algorithm.tiles"}, {"candidate", "tile_m=64"}, {"median_ms", 2.0}, {"mad_ms", 0.1}});
  candidates.push_back({{"parameter", "algorithm.tiles"}, {"candidate", "tile_m=64"}, {"median_ms", 2.1}, {"mad_ms", 0.1}});
  candidates.push_back({{"parameter", "algorithm.tiles"}, {"candidate", "tile_m=96"}, {"median_ms", 1.5}, {"mad_ms", 0.1}});
  json report{{"key", {{"library", "tunekit_cpu"}, {"kernel", "Abs"}, {"implementation", "openmp_simd"},
                        {"element_type", "float"}, {"device", "cpu"}, {"tuning_abi", 1}}},
              {"candidates", candidates},
              {"selected", {{{"parameter", "algorithm.simd_min_elements"}, {"value", 96}, {"reason", "wins <script>alert(1)</script>"}}}},
              {"processor", {{"vendor", "AMD"}, {"model_name", "Test CPU"}}},
              {"execution", {{"effective_threads", 2}}},
              {"power", {{"governor", "unknown"}}},
              {"elapsed_ms", 12.5}};
  json kept_report = report;
  kept_report["key"]["kernel"] = "Exp";
  kept_report["candidates"] = json::array({candidates[0], candidates[1]});
  kept_report["selected"] = {{{"parameter", "algorithm.simd_min_elements"}, {"value", 32}, {"reason", "portable default kept: close"}}};
  return {{"calibrated", {{{"key", "tunekit_cpu/Abs/openmp_simd/float/cpu/abi1"}, {"profile", "p"}, {"digest", "d"}, {"report", report}}}},
          {"not_calibrated", {{{"key", "tunekit_cpu/Neg/openmp_simd/float/cpu/abi1"}, {"reason", "time budget spent"}},
                              // Measured, every value kept: shown with its charts.
                              {{"key", "tunekit_cpu/Exp/openmp_simd/float/cpu/abi1"}, {"reason", "all kept"},
                               {"report", kept_report}}}},
          {"skipped", json::array()},
          {"unsupported", json::array()}};
}

// `tune --json` for one shape: two successes and a failure.
json tune_tables(const char* winner) {
  const auto candidate = [](const char* engine, int rank, double median, bool succeeded) {
    return json{{"engine_name", engine}, {"rank", rank}, {"succeeded", succeeded}, {"median_time_ms", median},
                {"min_time_ms", median * 0.9}, {"samples_ms", {median * 0.9, median, median * 1.1}},
                {"knobs", json::array()}, {"error_message", succeeded ? "" : "wrong result: 3.5 off"}};
  };
  const bool a_wins = std::string(winner) == "engine_a";
  return json::array({{{"graph", "relu.toml"}, {"shape_set", "base"},
                       {"candidates", {candidate(a_wins ? "engine_a" : "engine_b", 0, 1.0, true),
                                       candidate(a_wins ? "engine_b" : "engine_a", 1, 1.5, true),
                                       candidate("engine_c", -1, 0.0, false)}}}});
}

class ReportCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tunekit-report-XXXXXX";
    folder = mkdtemp(pattern);
    write(folder / "calibration.json", calibration_report().dump());
    write(folder / "tune.json", tune_tables("engine_b").dump());
    write(folder / "tune_before.json", tune_tables("engine_a").dump());
  }
  void TearDown() override { std::filesystem::remove_all(folder); }
  static void write(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }
  std::string page_at(const std::string& name) { return read_text(folder / name); }
  std::filesystem::path folder;
};

// The JSON model the page embeds.
json embedded_model(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"tunekit-report-data\">";
  const std::size_t start = page.find(open);
  const std::size_t end = page.find("</script>", start);
  EXPECT_NE(start, std::string::npos);
  return json::parse(page.substr(start + open.size(), end - start - open.size()));
}

TEST_F(ReportCli, OnePageWithAChartPerMeasuredParameterAndShapeTheInputsEscaped) {
  const std::string cache = (folder / "cache.toml").string();
  // A real cache: one calibrated key.
  auto calibrated = run_tool({"calibrate", "--kernel", "Abs", "--element-type", "float", "--time-budget", "1",
                              "--cache", cache});
  ASSERT_EQ(calibrated.exit_code, 0) << calibrated.err;
  const std::string page_file = (folder / "report.html").string();
  auto run = run_tool({"report", (folder / "calibration.json").string(), (folder / "tune.json").string(), cache,
                       "-o", page_file, "--title", "Nightly <tuning>"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string page = page_at("report.html");
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("<title>Nightly &lt;tuning&gt;</title>"), std::string::npos);
  EXPECT_NE(page.find("Chart.js v3.9.1"), std::string::npos) << "Chart.js is inlined";
  EXPECT_NE(page.find("Permission is hereby granted"), std::string::npos) << "with its licence";
  EXPECT_EQ(page.find("<script src"), std::string::npos) << "nothing loaded from elsewhere";
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("<script>alert(1)"), std::string::npos) << "a reason is text, never markup";
  EXPECT_NE(page.find("wins &lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("tunekit_cpu/Neg/openmp_simd/float/cpu/abi1"), std::string::npos);
  EXPECT_NE(page.find("time budget spent"), std::string::npos);
  EXPECT_NE(page.find("failed: wrong result: 3.5 off"), std::string::npos);
  EXPECT_NE(page.find("Calibration cache"), std::string::npos);
  EXPECT_NE(page.find("tunekit_cpu/Abs/openmp_simd/float/cpu/abi1"), std::string::npos);

  EXPECT_NE(page.find("tunekit_cpu/Exp/openmp_simd/float/cpu/abi1 <span class=\"muted\">every value kept</span>"),
            std::string::npos);
  EXPECT_NE(page.find("portable default kept: close"), std::string::npos);
  const json model = embedded_model(page);
  ASSERT_EQ(model["charts"].size(), 4u) << model["charts"].dump(1);
  // The crossover: 2 paths x 3 probes x (median and both band edges), and
  // two markers (the chosen 96, the portable default 32) of 2 points.
  const json& crossover = model["charts"]["chart0"];
  EXPECT_EQ(crossover["kind"], "crossover");
  EXPECT_EQ(crossover["expected_points"], 2 * 3 * 3 + 2 * 2);
  EXPECT_EQ(crossover["markers"][0]["x"], 96);
  EXPECT_EQ(crossover["markers"][1]["x"], 32) << "the registered schema's portable default";
  // The tiles: three rows (the second tile_m=64 is its own row), 2 points each.
  const json& tiles = model["charts"]["chart1"];
  EXPECT_EQ(tiles["rows"].size(), 3u);
  EXPECT_EQ(tiles["rows"][1]["label"], "tile_m=64 (#2)");
  // The key that kept every value: its probes (two paths at one size) and both markers.
  EXPECT_EQ(model["charts"]["chart2"]["expected_points"], 2 * 1 * 3 + 2 * 2);
  // The shape: the two successes, each a median, a sample range and the tie band.
  const json& shape = model["charts"]["chart3"];
  EXPECT_EQ(shape["rows"].size(), 2u);
  EXPECT_EQ(shape["expected_points"], 6);
  EXPECT_DOUBLE_EQ(shape["band"][1].get<double>(), 1.0 * 1.02);
  // Every chart's canvas says how many points it must draw.
  std::size_t canvases = 0;
  const std::regex canvas(R"rx(<canvas data-chart="(chart\d+)" data-expected-points="(\d+)">)rx");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), canvas); it != std::sregex_iterator(); ++it) {
    EXPECT_EQ(std::stoul((*it)[2]), model["charts"][(*it)[1].str()]["expected_points"].get<std::size_t>());
    ++canvases;
  }
  EXPECT_EQ(canvases, 4u);
}

TEST_F(ReportCli, BeforeInputsShowWhatChanged) {
  auto run = run_tool({"report", (folder / "tune.json").string(), "--before", (folder / "tune_before.json").string(),
                       "-o", (folder / "report.html").string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json model = embedded_model(page_at("report.html"));
  ASSERT_EQ(model["comparison"]["shapes"].size(), 1u);
  const json& shape = model["comparison"]["shapes"][0];
  EXPECT_TRUE(shape["changed"].get<bool>());
  EXPECT_EQ(shape["before"]["label"], "engine_a defaults");
  EXPECT_EQ(shape["after"]["label"], "engine_b defaults");
  EXPECT_NE(page_at("report.html").find("<tr class=\"changed\"><td>relu.toml [base]</td>"), std::string::npos);
  EXPECT_EQ(model["charts"].size(), 1u) << "inputs from before are compared, not charted";
}

TEST_F(ReportCli, InputsThatAreNotReportsAreRefusedNamingTheFile) {
  write(folder / "garbage.txt", "this is [not toml or json\n");
  auto garbage = run_tool({"report", (folder / "garbage.txt").string(), "-o", (folder / "r.html").string()});
  EXPECT_EQ(garbage.exit_code, 2);
  EXPECT_NE(garbage.err.find("garbage.txt: neither JSON nor a calibration cache"), std::string::npos) << garbage.err;
  write(folder / "other.json", R"({"something": 1})");
  auto other = run_tool({"report", (folder / "other.json").string(), "-o", (folder / "r.html").string()});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("other.json: JSON that is neither a calibration report"), std::string::npos) << other.err;
  write(folder / "shapes.json", R"([{"graph": "g"}])");
  auto shapes = run_tool({"report", (folder / "shapes.json").string(), "-o", (folder / "r.html").string()});
  EXPECT_EQ(shapes.exit_code, 2);
  EXPECT_NE(shapes.err.find("shapes.json: an element without \"candidates\""), std::string::npos) << shapes.err;
  // The right kind of document with fields of other types: refused, not a crash.
  write(folder / "odd.json", R"({"calibrated": [{"report": {"selected": [5], "candidates": [7]}}]})");
  auto odd = run_tool({"report", (folder / "odd.json").string(), "-o", (folder / "r.html").string()});
  EXPECT_EQ(odd.exit_code, 2) << odd.err;
  EXPECT_NE(odd.err.find("odd.json: a field has a type tunekit does not write"), std::string::npos) << odd.err;
  EXPECT_FALSE(std::filesystem::exists(folder / "r.html"));
  auto unwritable = run_tool({"report", (folder / "tune.json").string(), "-o", "/proc/tunekit/r.html"});
  EXPECT_EQ(unwritable.exit_code, 3) << unwritable.err;
}

}  // namespace
