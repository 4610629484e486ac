// The GPU from the command line on any machine: describe says which HIP
// devices there are or why there are none (no runtime library, no device,
// built without HIP), `tune --device hip` and `calibrate --device hip` stop
// with that reason and write nothing, and the GPU engine plugin loaded into
// a CPU tune adds no candidate.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_test_support.hpp"
#include "support/scratch_dir.hpp"
#include "run_tool.hpp"

namespace {

using nlohmann::json;
using tunekit::testing::run_tool;
using tunekit::testing::ScopedEnvironment;

class HipDeviceCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::filesystem::path& folder = scratch.path();
    ASSERT_FALSE(folder.empty());
    graph = (folder / "relu.toml").string();
    overrides = (folder / "overrides.json").string();
    cache = (folder / "cache.toml").string();
    std::ofstream(graph) << tunekit::testing::kReluGraph;
    const auto described = run_tool({"describe", "--json"});
    ASSERT_EQ(described.exit_code, 0) << described.err;
    hip = json::parse(described.out).at("hip");
  }
  bool has_gpu() const { return !hip.at("devices").empty(); }

  tunekit::testing::ScratchDir scratch{"tunekit-hip-cli"};
  std::string graph, overrides, cache;
  json hip;
};

TEST_F(HipDeviceCli, DescribeListsTheGpusOrSaysWhyThereAreNone) {
  const auto text = run_tool({"describe"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  if (has_gpu()) {
    EXPECT_EQ(hip.at("reason"), "");
    for (const json& d : hip.at("devices")) {
      EXPECT_NE(text.out.find(d.at("signature").get<std::string>()), std::string::npos) << text.out;
      EXPECT_FALSE(d.at("architecture").get<std::string>().empty());
    }
    return;
  }
  const std::string reason = hip.at("reason");
  ASSERT_FALSE(reason.empty());
  EXPECT_NE(text.out.find("  hip: none: " + reason), std::string::npos) << text.out;
  const json all = json::parse(run_tool({"describe", "--json"}).out);
  ASSERT_EQ(all.at("devices").size(), 1u) << "only the CPU";
  EXPECT_EQ(all.at("devices")[0].at("kind"), "cpu");
}

TEST_F(HipDeviceCli, AMissingRuntimeLibraryIsTheReason) {
  if (!hip.at("compiled").get<bool>()) GTEST_SKIP() << hip.at("reason");
  ScopedEnvironment env({{"TUNEKIT_HIP_LIBRARY", "/nonexistent/libamdhip64.so.5"}});
  const auto described = run_tool({"describe", "--json"});
  ASSERT_EQ(described.exit_code, 0) << described.err;
  const json probe = json::parse(described.out).at("hip");
  EXPECT_EQ(probe.at("library"), "/nonexistent/libamdhip64.so.5");
  EXPECT_TRUE(probe.at("devices").empty());
  EXPECT_NE(probe.at("reason").get<std::string>().find("cannot load the HIP runtime /nonexistent/libamdhip64.so.5"),
            std::string::npos)
      << probe.at("reason");

  const auto tuned = run_tool({"tune", graph, "--output", overrides, "--device", "hip"});
  EXPECT_EQ(tuned.exit_code, 1) << tuned.err;
  EXPECT_NE(tuned.err.find("--device hip: cannot load the HIP runtime"), std::string::npos) << tuned.err;
  EXPECT_FALSE(std::filesystem::exists(overrides));
}

TEST_F(HipDeviceCli, TuneOnAMachineWithoutAGpuStopsWithTheReasonAndWritesNothing) {
  if (has_gpu()) GTEST_SKIP() << "this machine has a GPU: the no-device path is not taken";
  const auto tuned = run_tool({"tune", graph, "--output", overrides, "--device", "hip"});
  EXPECT_EQ(tuned.exit_code, 1) << tuned.err;
  EXPECT_NE(tuned.err.find("--device hip: " + hip.at("reason").get<std::string>()), std::string::npos) << tuned.err;
  EXPECT_FALSE(std::filesystem::exists(overrides));
  // Isolated, the parent stops before starting any child.
  const auto isolated = run_tool({"tune", graph, "--output", overrides, "--device", "hip:0", "--isolate"});
  EXPECT_EQ(isolated.exit_code, 1) << isolated.err;
  EXPECT_NE(isolated.err.find("--device hip:0: "), std::string::npos) << isolated.err;
  EXPECT_FALSE(std::filesystem::exists(overrides));
}

TEST_F(HipDeviceCli, AnUnknownDeviceIsBadInput) {
  for (const char* device : {"gpu", "hip:", "hip:x", "hip:-1", "cpu:0"}) {
    const auto tuned = run_tool({"tune", graph, "--output", overrides, "--device", device});
    EXPECT_EQ(tuned.exit_code, 2) << device << ": " << tuned.err;
    EXPECT_NE(tuned.err.find(std::string("--device: unknown device '") + device + "' (cpu, hip or hip:N)"),
              std::string::npos)
        << tuned.err;
  }
  EXPECT_FALSE(std::filesystem::exists(overrides));
}

TEST_F(HipDeviceCli, CalibrateOnAMachineWithoutAGpuStopsWithTheReason) {
  if (has_gpu()) GTEST_SKIP() << "this machine has a GPU: the no-device path is not taken";
  const auto calibrated = run_tool({"calibrate", "--device", "hip", "--cache", cache});
  EXPECT_EQ(calibrated.exit_code, 1) << calibrated.err;
  EXPECT_NE(calibrated.err.find("--device hip: " + hip.at("reason").get<std::string>() + "; nothing was calibrated"),
            std::string::npos)
      << calibrated.err;
  EXPECT_FALSE(std::filesystem::exists(cache));
  const auto wrong = run_tool({"calibrate", "--device", "gpu", "--cache", cache});
  EXPECT_EQ(wrong.exit_code, 2) << wrong.err;
}

#ifdef TUNEKIT_HIP_PLUGIN
TEST_F(HipDeviceCli, TheGpuPluginAddsNoCandidateToACpuTune) {
  const auto tuned = run_tool({"tune", graph, "--output", overrides, "--plugin", TUNEKIT_HIP_PLUGIN, "--strategy",
                               "fixed_average", "--iterations", "3", "--settle-timeout", "0", "--json"});
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  EXPECT_EQ(tuned.err.find("refused"), std::string::npos) << "the plugin loads: " << tuned.err;
  const json shapes = json::parse(tuned.out);
  ASSERT_FALSE(shapes.empty());
  for (const json& shape : shapes) {
    ASSERT_FALSE(shape.at("candidates").empty());
    for (const json& c : shape.at("candidates")) {
      EXPECT_EQ(c.at("engine_name").get<std::string>().rfind("HIP_", 0), std::string::npos) << c.dump();
    }
  }
}
#endif

}  // namespace
