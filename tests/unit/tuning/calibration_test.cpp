#include "tunekit/tuning/calibration.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tuning_fixtures.hpp"

namespace tunekit::tuning {
namespace {

using testing::gemm_binding;
using testing::gemm_key;
using testing::milan;
using testing::params;

KernelTuningKey key_of(std::string kernel, DataType type = DataType::FLOAT) {
  KernelTuningKey k = gemm_key(type);
  k.kernel = std::move(kernel);
  return k;
}

// A callback that "measures" by recording two candidates and selecting a tile.
KernelTuningParameters fake_calibration(const KernelTuningKey& key, CalibrationContext& context) {
  context.reporter.record_candidate("algorithm.tile_k", "tile_k=128", {1.0, 1.1, 0.9, 1.0, 1.0});
  context.reporter.record_candidate("algorithm.tile_k", "tile_k=256", {2.0, 2.1, 1.9, 2.0, 2.0});
  context.reporter.select("algorithm.tile_k", std::int64_t{128}, "fastest median");
  return params(key, {{"algorithm.tile_k", 128}});
}

class CalibrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* kernel : {"Gemm", "Conv", "Pool"}) {
      for (DataType t : {DataType::FLOAT, DataType::DOUBLE}) {
        registry.register_schema(gemm_binding().schema(key_of(kernel, t)));
        functions.register_function(key_of(kernel, t), fake_calibration, "2.5.0");
      }
    }
    options.registry = &registry;
    options.execution = milan();
  }
  std::vector<std::string> calibrated_kernels(const CalibrationBatchReport& report) {
    std::vector<std::string> names;
    for (const CalibratedKey& c : report.calibrated) {
      names.push_back(c.profile.parameters.key.kernel + "/" + std::string(core::to_string(c.profile.parameters.key.element_type)));
    }
    return names;
  }
  KernelTuningRegistry registry;
  KernelCalibrationRegistry functions;
  CalibrationOptions options;
};

TEST_F(CalibrationTest, SelectionChoosesTheKeysToCalibrate) {
  KernelCalibrationSelection selection;
  selection.kernels = {"Gemm", "Pool"};
  selection.element_types = {DataType::DOUBLE};
  CalibrationBatchReport report = CalibrateRegisteredKernels(selection, options, &functions);
  EXPECT_EQ(calibrated_kernels(report), (std::vector<std::string>{"Gemm/double", "Pool/double"}));
  EXPECT_TRUE(report.skipped.empty());
  EXPECT_TRUE(report.unsupported.empty());
}

TEST_F(CalibrationTest, ResultsArePublishedInOneGenerationAndResolve) {
  const std::uint64_t before = registry.generation_number();
  CalibrationBatchReport report = CalibrateRegisteredKernels({}, options, &functions);
  ASSERT_EQ(report.calibrated.size(), 6u);
  EXPECT_EQ(registry.generation_number(), before + 1);
  EXPECT_EQ(report.published_generation, before + 1);
  Resolution r = registry.snapshot()->resolve(key_of("Conv"), milan());
  EXPECT_EQ(r.source, ResolutionSource::CALIBRATED);
  EXPECT_EQ(r.parameters.values.at("algorithm.tile_k"), Value(128));
  const CalibratedKernelProfile& p = report.calibrated.front().profile;
  EXPECT_EQ(p.library_version, "2.5.0");
  EXPECT_EQ(p.report_digest.size(), 32u);
  EXPECT_EQ(platform::execution_identity_string(p.execution), platform::execution_identity_string(milan()));
}

TEST_F(CalibrationTest, OnlyMissingSkipsKeysAlreadyCalibratedForThisExecution) {
  KernelCalibrationSelection gemm;
  gemm.kernels = {"Gemm"};
  (void)CalibrateRegisteredKernels(gemm, options, &functions);
  KernelCalibrationSelection missing;
  missing.only_missing = true;
  CalibrationBatchReport report = CalibrateRegisteredKernels(missing, options, &functions);
  EXPECT_EQ(report.skipped.size(), 2u);
  EXPECT_EQ(report.skipped[0].key.kernel, "Gemm");
  EXPECT_EQ(report.skipped[0].reason, "a compatible calibrated profile is already loaded");
  EXPECT_EQ(report.calibrated.size(), 4u);
  // Another thread count is another execution: nothing is skipped there.
  options.execution = milan(1);
  EXPECT_TRUE(CalibrateRegisteredKernels(missing, options, &functions).skipped.empty());
}

TEST_F(CalibrationTest, KeysWithoutFunctionOrSchemaOrThatDeclineAreUnsupported) {
  registry.register_schema(gemm_binding().schema(key_of("Softmax")));  // schema, no function
  functions.register_function(key_of("Lrn"), fake_calibration);         // function, no schema
  functions.register_function(key_of("Pool"), [](const KernelTuningKey& key, CalibrationContext& context) {
    context.reporter.mark_unsupported("needs avx512f");
    return KernelTuningParameters{key, {}};
  });
  KernelCalibrationSelection selection;
  selection.kernels = {"Softmax", "Lrn", "Pool"};
  selection.element_types = {DataType::FLOAT};
  CalibrationBatchReport report = CalibrateRegisteredKernels(selection, options, &functions);
  EXPECT_TRUE(report.calibrated.empty());
  ASSERT_EQ(report.unsupported.size(), 3u);
  EXPECT_EQ(report.unsupported[0].key.kernel, "Lrn");
  EXPECT_EQ(report.unsupported[0].reason, "no schema is registered for this key");
  EXPECT_EQ(report.unsupported[1].reason, "needs avx512f");
  EXPECT_EQ(report.unsupported[2].reason, "no calibration function is registered");
  EXPECT_EQ(report.published_generation, 0u);
}

TEST_F(CalibrationTest, AFailingCallbackPropagatesAndPublishesNothing) {
  functions.register_function(key_of("Pool", DataType::FLOAT), [](const KernelTuningKey&, CalibrationContext&)
                                                                   -> KernelTuningParameters {
    throw std::runtime_error("device lost during calibration");
  });
  const std::uint64_t before = registry.generation_number();
  // Gemm and Conv come first and succeed; Pool then throws.
  EXPECT_THROW((void)CalibrateRegisteredKernels({}, options, &functions), std::runtime_error);
  EXPECT_EQ(registry.generation_number(), before);
  EXPECT_EQ(registry.snapshot()->resolve(key_of("Conv"), milan()).source, ResolutionSource::PORTABLE_DEFAULT);
}

TEST_F(CalibrationTest, InvalidValuesThrowTuningErrorAndPublishNothing) {
  functions.register_function(key_of("Conv"), [](const KernelTuningKey& key, CalibrationContext&) {
    return params(key, {{"algorithm.tile_m", 12}});
  });
  const std::uint64_t before = registry.generation_number();
  try {
    (void)CalibrateRegisteredKernels({}, options, &functions);
    FAIL() << "no exception";
  } catch (const TuningError& e) {
    EXPECT_NE(std::string(e.what()).find("returned invalid values"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("algorithm.tile_m = 12"), std::string::npos) << e.what();
  }
  EXPECT_EQ(registry.generation_number(), before);
}

TEST_F(CalibrationTest, TheReportRecordsEverythingTheSpecNames) {
  KernelCalibrationSelection one;
  one.kernels = {"Gemm"};
  one.element_types = {DataType::FLOAT};
  CalibrationBatchReport report = CalibrateRegisteredKernels(one, options, &functions);
  ASSERT_EQ(report.calibrated.size(), 1u);
  nlohmann::json j = nlohmann::json::parse(report.calibrated[0].report_json);
  EXPECT_EQ(j["key"]["kernel"], "Gemm");
  EXPECT_EQ(j["tuning_abi"], 3);
  EXPECT_EQ(j["threads"], 2);
  EXPECT_EQ(j["processor"]["vendor"], "AMD");
  EXPECT_EQ(j["execution"]["effective_threads"], 2);
  EXPECT_FALSE(j["tunekit_version"].get<std::string>().empty());
  ASSERT_EQ(j["candidates"].size(), 2u);
  EXPECT_EQ(j["candidates"][0]["median_ms"], 1.0);
  EXPECT_EQ(j["candidates"][0]["samples_ms"].size(), 5u);
  EXPECT_EQ(j["selected"][0]["parameter"], "algorithm.tile_k");
  EXPECT_EQ(j["selected"][0]["value"], 128);
  nlohmann::json batch = nlohmann::json::parse(report.to_json());
  EXPECT_EQ(batch["calibrated"].size(), 1u);
  EXPECT_EQ(batch["calibrated"][0]["digest"], report.calibrated[0].profile.report_digest);
}

TEST_F(CalibrationTest, TheReportRecordsThePowerPolicyOfTheBatch) {
  platform::PowerPolicy power;
  power.governor = "powersave";
  power.boost = true;
  power.max_frequency_khz = 4500000;
  options.power_policy = power;
  KernelCalibrationSelection one;
  one.kernels = {"Gemm"};
  one.element_types = {DataType::FLOAT};
  CalibrationBatchReport report = CalibrateRegisteredKernels(one, options, &functions);
  ASSERT_EQ(report.calibrated.size(), 1u);
  nlohmann::json j = nlohmann::json::parse(report.calibrated[0].report_json);
  EXPECT_EQ(j["power"]["governor"], "powersave");
  EXPECT_EQ(j["power"]["boost"], true);
  EXPECT_EQ(j["power"]["max_frequency_khz"], 4500000);
  EXPECT_EQ(j["power"]["base_frequency_khz"], "unknown");
  EXPECT_EQ(j["power"]["energy_performance_preference"], "unknown");
}

TEST_F(CalibrationTest, ProgressIsReportedPerKey) {
  std::vector<std::string> events;
  options.progress = [&](const KernelTuningKey& key, std::string_view event) {
    events.push_back(key.kernel + ":" + std::string(event));
  };
  KernelCalibrationSelection one;
  one.kernels = {"Conv"};
  one.element_types = {DataType::FLOAT};
  (void)CalibrateRegisteredKernels(one, options, &functions);
  EXPECT_EQ(events, (std::vector<std::string>{"Conv:start", "Conv:calibrated"}));
}

TEST_F(CalibrationTest, AThreadCappedCalibrationIsRecordedForTheCappedExecution) {
  std::vector<std::uint32_t> seen;
  functions.register_function(key_of("Gemm"), [&](const KernelTuningKey& key, CalibrationContext& context) {
    seen = {context.execution.effective_threads, context.budget.threads(), context.reporter.threads()};
    return fake_calibration(key, context);
  });
  options.execution = milan(8);
  options.maximum_threads = 3;
  KernelCalibrationSelection gemm;
  gemm.kernels = {"Gemm"};
  gemm.element_types = {DataType::FLOAT};
  CalibrationBatchReport report = CalibrateRegisteredKernels(gemm, options, &functions);
  EXPECT_EQ(seen, (std::vector<std::uint32_t>{3, 3, 3}));
  ASSERT_EQ(report.calibrated.size(), 1u);
  EXPECT_EQ(report.calibrated[0].profile.execution.effective_threads, 3u);
  EXPECT_EQ(nlohmann::json::parse(report.calibrated[0].report_json)["execution"]["effective_threads"], 3);
  auto snapshot = registry.snapshot();
  EXPECT_EQ(snapshot->resolve(key_of("Gemm"), milan(3)).source, ResolutionSource::CALIBRATED);
  EXPECT_EQ(snapshot->resolve(key_of("Gemm"), milan(8)).source, ResolutionSource::PORTABLE_DEFAULT);
  // only_missing asks the same question for the same capped execution.
  gemm.only_missing = true;
  EXPECT_EQ(CalibrateRegisteredKernels(gemm, options, &functions).skipped.size(), 1u);
  // A cap above the execution's threads changes nothing.
  options.maximum_threads = 16;
  gemm.only_missing = false;
  EXPECT_EQ(CalibrateRegisteredKernels(gemm, options, &functions).calibrated.at(0).profile.execution.effective_threads,
            8u);
}

TEST_F(CalibrationTest, AKeyThatMeasuredNothingIsReportedAndNeverPublished) {
  functions.register_function(key_of("Pool"), [](const KernelTuningKey& key, CalibrationContext& context) {
    context.reporter.select("algorithm.tile_k", std::int64_t{256}, "portable default kept: time budget exhausted");
    return KernelTuningParameters{key, {}};
  });
  std::vector<std::string> events;
  options.progress = [&](const KernelTuningKey& key, std::string_view event) {
    events.push_back(key.kernel + ":" + std::string(event));
  };
  KernelCalibrationSelection pool;
  pool.kernels = {"Pool"};
  pool.element_types = {DataType::FLOAT};
  const std::uint64_t before = registry.generation_number();
  CalibrationBatchReport report = CalibrateRegisteredKernels(pool, options, &functions);
  EXPECT_TRUE(report.calibrated.empty());
  EXPECT_TRUE(report.successful_profiles().empty());
  ASSERT_EQ(report.not_calibrated.size(), 1u);
  EXPECT_EQ(report.not_calibrated[0].reason, "algorithm.tile_k: portable default kept: time budget exhausted");
  EXPECT_EQ(report.published_generation, 0u);
  EXPECT_EQ(registry.generation_number(), before);
  EXPECT_EQ(events, (std::vector<std::string>{"Pool:start", "Pool:not_calibrated"}));
  EXPECT_EQ(nlohmann::json::parse(report.to_json())["not_calibrated"][0]["reason"],
            "algorithm.tile_k: portable default kept: time budget exhausted");
  // Nothing loaded, so only_missing measures it again.
  pool.only_missing = true;
  EXPECT_TRUE(CalibrateRegisteredKernels(pool, options, &functions).skipped.empty());
}

TEST(CalibrationBudget, AdmitsOnlyWhatFits) {
  CalibrationOptions options;
  options.memory_budget_bytes = 1000;
  options.time_budget = std::chrono::milliseconds(60'000);
  CalibrationBudget budget(options, 2);
  EXPECT_TRUE(budget.admit(1000, 2).is_good());
  EXPECT_EQ(budget.admit(1001, 1).message(), "needs 1001 bytes, above the memory budget of 1000 bytes");
  EXPECT_EQ(budget.admit(10, 3).message(), "needs 3 threads, above the thread budget of 2");
  options.time_budget = std::chrono::milliseconds(0);
  EXPECT_EQ(CalibrationBudget(options, 2).admit(1, 1).message(), "time budget of 0 ms exhausted");
}

TEST(MeasureRepetitions, ReturnsAtLeastFivePositiveSamples) {
  int runs = 0;
  auto samples = measure_repetitions([&] {
    ++runs;
    return Error::ok();
  }, 3);
  ASSERT_TRUE(samples.ok());
  EXPECT_EQ(samples->size(), 5u);
  EXPECT_GT(runs, 5);
  auto failing = measure_repetitions([] { return Error(ErrorCode::EXECUTION_FAILED, "boom"); }, 5);
  ASSERT_FALSE(failing.ok());
  EXPECT_NE(failing.error().message().find("boom"), std::string::npos);
}

// Runs that sleep different times: the samples keep their order and size,
// each round starts one run further, and every run is sampled every round.
TEST(MeasureInterleaved, SamplesEveryRunEveryRoundStartingOneFurtherEachRound) {
  std::vector<int> first_of_round;
  std::vector<int> order;
  std::vector<std::function<Error()>> runs;
  for (int r = 0; r < 3; ++r) {
    runs.push_back([r, &order] {
      order.push_back(r);
      std::this_thread::sleep_for(std::chrono::microseconds(200 * (r + 1)));
      return Error::ok();
    });
  }
  auto samples = measure_interleaved(runs, 4);
  ASSERT_TRUE(samples.ok()) << samples.error().message();
  ASSERT_EQ(samples->size(), 3u);
  for (int r = 0; r < 3; ++r) {
    ASSERT_EQ((*samples)[r].size(), 4u);
    for (double ms : (*samples)[r]) {
      EXPECT_GE(ms, 0.2 * (r + 1));  // one sleep, at least, per execution
      EXPECT_LT(ms, 0.2 * (r + 1) + 20.0);
    }
  }
  // After the three warm-ups, the runs of each round: 0 1 2, 1 2 0, 2 0 1, 0 1 2
  // (a run may execute several times in a row within its batch).
  std::vector<int> starts;
  int previous = -1;
  for (std::size_t i = 3; i < order.size(); ++i) {
    if (order[i] != previous) starts.push_back(order[i]);
    previous = order[i];
  }
  EXPECT_EQ(starts, (std::vector<int>{0, 1, 2, 1, 2, 0, 2, 0, 1, 0, 1, 2}));
}

TEST(MeasureInterleaved, StopsEarlyWhenAskedAndOnTheFirstError) {
  int calls = 0;
  std::vector<std::function<Error()>> runs = {[&] {
    ++calls;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    return Error::ok();
  }};
  int asked = 0;
  auto two_rounds = measure_interleaved(runs, 10, [&] { return ++asked < 2; });
  ASSERT_TRUE(two_rounds.ok());
  EXPECT_EQ((*two_rounds)[0].size(), 2u);
  EXPECT_EQ(asked, 2);

  int executions = 0;
  runs.push_back([&] {
    return ++executions == 3 ? Error(ErrorCode::EXECUTION_FAILED, "wrong result at 7") : Error::ok();
  });
  auto failed = measure_interleaved(runs, 5);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message().find("wrong result at 7"), std::string::npos);
  EXPECT_FALSE(measure_interleaved(runs, 0).ok());
}

}  // namespace
}  // namespace tunekit::tuning
