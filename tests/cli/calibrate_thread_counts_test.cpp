// A program that runs at several thread counts: `tunekit calibrate --threads
// N` once per count into one cache (each run loads the other count's entry
// and still calibrates its own), then one LoadKernelTuningCache in this
// process and a session per count, whose kernel takes that count's
// calibration and threads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "run_tool.hpp"
#include "support/scratch_dir.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"
#include "tunekit/platform/execution_descriptor.hpp"
#include "tunekit/tuning/kernel_tuning_cache.hpp"
#include "tunekit/tuning/tuning_session.hpp"

namespace {

namespace tuning = tunekit::tuning;
using tunekit::DataType;
using tunekit::cpu::UnaryOp;
using tunekit::testing::run_tool;

TEST(CalibrateThreadCounts, OneCacheHoldsEveryCountAndASessionPerCountUsesItsOwn) {
  if (tunekit::platform::detect_execution_descriptor(2).effective_threads < 2) {
    GTEST_SKIP() << "this process may use one CPU only: a 2-thread calibration would be recorded for 1 thread";
  }
  const tunekit::testing::ScratchDir scratch("tunekit-thread-counts");
  const std::string cache = (scratch.path() / "cache.toml").string();
  std::map<std::uint32_t, nlohmann::json> reports;
  for (std::uint32_t threads : {1u, 2u}) {
    SCOPED_TRACE(threads);
    const std::string report = (scratch.path() / ("report-" + std::to_string(threads) + ".json")).string();
    auto run = run_tool({"calibrate", "--cache", cache, "--kernel", "Abs", "--element-type", "float", "--threads",
                         std::to_string(threads), "--only-missing", "--time-budget", "3", "--memory-budget", "8",
                         "--report", report});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::ifstream in(report);
    reports[threads] = nlohmann::json::parse(in);
    // The entry of the other thread count is loaded, yet it is not this
    // execution's: --only-missing skips nothing.
    EXPECT_TRUE(reports[threads]["skipped"].empty()) << reports[threads]["skipped"].dump();
    if (threads == 2 && !reports[1]["calibrated"].empty()) {
      EXPECT_NE(run.err.find("1 loaded (1 for 1 thread)"), std::string::npos) << run.err;
    }
  }

  tuning::KernelTuningRegistry registry;
  tuning::KernelCalibrationRegistry functions;
  tunekit::cpu::register_tunekit_cpu(registry, functions);
  tuning::KernelTuningCacheOptions options;
  options.path = cache;
  options.registry = &registry;
  options.read_only = true;
  const tuning::KernelTuningCacheLoadReport loaded = tuning::LoadKernelTuningCache({}, options);
  EXPECT_EQ(loaded.count(tuning::KernelTuningCacheEntryStatus::LOADED),
            reports[1]["calibrated"].size() + reports[2]["calibrated"].size())
      << loaded.summary();

  const tuning::KernelTuningKey key = tunekit::cpu::unary_key(UnaryOp::ABS, DataType::FLOAT);
  for (std::uint32_t threads : {1u, 2u}) {
    SCOPED_TRACE(threads);
    tuning::TuningSessionOptions o;
    o.threads = threads;
    o.registry = &registry;
    const tuning::TuningSession session = tuning::TuningSession::Create(std::move(o));
    auto abs = tunekit::cpu::UnaryElementwiseKernel::for_session(session, UnaryOp::ABS, DataType::FLOAT);
    ASSERT_TRUE(abs.ok()) << abs.error().message();
    EXPECT_EQ(abs->threads(), static_cast<int>(threads));
    const tuning::Resolution resolution = session.explain(key);
    const nlohmann::json& calibrated = reports[threads]["calibrated"];
    if (calibrated.empty()) {
      // Timings that decided nothing store nothing; the other count's entry must not stand in.
      EXPECT_NE(resolution.source, tuning::ResolutionSource::CALIBRATED) << resolution.to_string();
      continue;
    }
    EXPECT_EQ(resolution.source, tuning::ResolutionSource::CALIBRATED) << resolution.to_string();
    EXPECT_EQ(resolution.profile_name, calibrated[0]["profile"].get<std::string>()) << resolution.to_string();
  }
}

}  // namespace
