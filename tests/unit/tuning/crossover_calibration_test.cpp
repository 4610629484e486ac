// The shared crossover calibration on a binary Add with equal-shape and
// broadcasting operands. Two paths whose costs differ by construction (a
// fixed overhead against a per-element cost) give a crossover whose region
// is known; a path with a wrong result is rejected and the default kept.
#include "tunekit/tuning/crossover_calibration.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "tuning_fixtures.hpp"

namespace tunekit::tuning {
namespace {

void spin_for(std::chrono::nanoseconds duration) {
  const auto end = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < end) {
  }
}

// out = a + b with b broadcast over the rows of a when it is shorter.
Error add(CalibrationProblem& p) {
  const float* a = p.inputs[0].as<float>();
  const float* b = p.inputs[1].as<float>();
  const std::int64_t n = p.output.size();
  const std::int64_t period = p.inputs[1].size();
  float* out = p.output.as<float>();
  for (std::int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i % period];
  return Error::ok();
}

CalibrationPath path(std::string name, std::chrono::nanoseconds fixed, std::chrono::nanoseconds per_element,
                     bool wrong = false) {
  return {std::move(name), 1, [=](CalibrationProblem& p) {
            TUNEKIT_RETURN_IF_ERROR(add(p));
            if (wrong) p.output.as<float>()[p.output.size() / 2] += 1.0f;
            spin_for(fixed + per_element * p.size);
            return Error::ok();
          }};
}

struct Fixture {
  KernelTuningKey key = testing::gemm_key();
  CalibrationOptions options;
  platform::CpuExecutionDescriptor execution = testing::milan();
  CalibrationReporter reporter{key, execution, 1};
  CalibrationContext context{options, execution, CalibrationBudget(options, 1), reporter};
  KernelTuningParameters values{key, {}};
};

CrossoverCalibration add_spec(bool broadcasting) {
  CrossoverCalibration spec;
  spec.parameter = "parallel.minimum_elements";
  spec.minimum_size = 256;
  spec.maximum_size = 1 << 16;
  spec.portable_default = 1 << 20;
  spec.operand_shapes = [broadcasting](std::int64_t size) {
    return broadcasting ? std::vector<Shape>{{size / 64, 64}, {64}} : std::vector<Shape>{{size}, {size}};
  };
  spec.reference = path("serial", {}, {});
  // Baseline 20 ns per element; candidate 100 us fixed plus 2 ns per element:
  // equal near 5,600 elements, 5% apart from about 6,000.
  spec.baseline = path("serial", {}, std::chrono::nanoseconds(20));
  spec.candidate = path("parallel", std::chrono::microseconds(100), std::chrono::nanoseconds(2));
  return spec;
}

TEST(CrossoverCalibration, FindsTheCrossoverOfAnEqualShapeBinaryKernel) {
  Fixture f;
  calibrate_crossover(f.context, add_spec(false), f.values);
  ASSERT_TRUE(f.values.values.count("parallel.minimum_elements")) << f.reporter.to_json();
  const std::int64_t threshold = *f.values.values.at("parallel.minimum_elements").as_int();
  EXPECT_GE(threshold, 4096) << f.reporter.to_json();
  EXPECT_LE(threshold, 16384) << f.reporter.to_json();
  ASSERT_FALSE(f.reporter.candidates().empty());
  for (const CandidateRecord& c : f.reporter.candidates()) EXPECT_GE(c.samples_ms.size(), 5u);
  EXPECT_TRUE(f.reporter.rejected().empty());
}

TEST(CrossoverCalibration, BroadcastingOperandsAreGeneratedAndChecked) {
  Fixture f;
  calibrate_crossover(f.context, add_spec(true), f.values);
  ASSERT_TRUE(f.values.values.count("parallel.minimum_elements")) << f.reporter.to_json();
  EXPECT_TRUE(f.reporter.rejected().empty());
}

TEST(CrossoverCalibration, AWrongCandidateIsRejectedAndTheDefaultKept) {
  Fixture f;
  CrossoverCalibration spec = add_spec(false);
  spec.candidate = path("parallel", {}, {}, /*wrong=*/true);
  calibrate_crossover(f.context, spec, f.values);
  EXPECT_FALSE(f.values.values.count("parallel.minimum_elements"));
  ASSERT_EQ(f.reporter.rejected().size(), 1u);
  EXPECT_EQ(f.reporter.rejected()[0].candidate, "size=256 parallel");
  EXPECT_NE(f.reporter.rejected()[0].reason.find("wrong result at element 128"), std::string::npos)
      << f.reporter.rejected()[0].reason;
  ASSERT_FALSE(f.reporter.selected().empty());
  EXPECT_EQ(f.reporter.selected().back().value, Value(std::int64_t{1} << 20));
}

// A committed value (calibrate --keep-unless-faster) takes the portable
// default's place: kept where the probes cannot tell it from the crossover,
// replaced where the candidate beats it, and the value kept after a failure.
TEST(CrossoverCalibration, KeepsACommittedThresholdUnlessAChallengerBeatsIt) {
  const std::string parameter = "parallel.minimum_elements";
  const auto calibrate_from = [&](std::int64_t committed, const CrossoverCalibration& spec, Fixture& f) {
    const KernelTuningParameters incumbent{f.key, {{parameter, Value(committed)}}};
    CalibrationContext context{f.options, f.execution, CalibrationBudget(f.options, 1), f.reporter, &incumbent};
    EXPECT_EQ(kept_value(context, parameter, Value(std::int64_t{1})), Value(committed));
    EXPECT_EQ(kept_label(context, parameter), "committed value kept");
    EXPECT_EQ(kept_label(context, "algorithm.simd_min_elements"), "portable default kept");
    calibrate_crossover(context, spec, f.values);
  };
  {
    // 5,800 elements: the paths are within 5% of each other there, so no
    // probe contradicts it (the portable default, 1 << 20, would move).
    Fixture f;
    calibrate_from(5800, add_spec(false), f);
    ASSERT_TRUE(f.values.values.count(parameter)) << f.reporter.to_json();
    EXPECT_EQ(f.values.values.at(parameter), Value(std::int64_t{5800})) << f.reporter.to_json();
    EXPECT_NE(f.reporter.selected().back().reason.find("preferred threshold 5800 is kept"), std::string::npos)
        << f.reporter.selected().back().reason;
  }
  {
    // 65,536: the candidate is five times faster there; it moves down.
    Fixture f;
    calibrate_from(1 << 16, add_spec(false), f);
    ASSERT_TRUE(f.values.values.count(parameter)) << f.reporter.to_json();
    const std::int64_t threshold = *f.values.values.at(parameter).as_int();
    EXPECT_GE(threshold, 4096) << f.reporter.to_json();
    EXPECT_LE(threshold, 16384) << f.reporter.to_json();
  }
  {
    Fixture f;
    CrossoverCalibration wrong = add_spec(false);
    wrong.candidate = path("parallel", {}, {}, /*wrong=*/true);
    calibrate_from(3000, wrong, f);
    EXPECT_FALSE(f.values.values.count(parameter));
    ASSERT_FALSE(f.reporter.selected().empty());
    EXPECT_EQ(f.reporter.selected().back().value, Value(std::int64_t{3000}));
    EXPECT_EQ(f.reporter.selected().back().reason.rfind("committed value kept: ", 0), 0u)
        << f.reporter.selected().back().reason;
  }
}

// The reason of the threshold calibrate_crossover selected, with the
// candidate on `candidate_threads` (a budget of two threads).
std::string selected_reason(std::uint32_t candidate_threads) {
  Fixture f;
  CalibrationContext context{f.options, f.execution, CalibrationBudget(f.options, 2), f.reporter};
  CrossoverCalibration spec = add_spec(false);
  spec.candidate.threads = candidate_threads;
  calibrate_crossover(context, spec, f.values);
  EXPECT_TRUE(f.values.values.count(spec.parameter)) << f.reporter.to_json();
  if (f.reporter.selected().empty()) return {};
  return f.reporter.selected().back().reason;
}

// How the search honours each margin is CrossoverSearch's test; this one
// checks which margin a calibration gives it.
TEST(CrossoverCalibration, ACandidateOnMoreThreadsMustWinByTheParallelMargin) {
  const CalibrationOptions defaults;
  EXPECT_EQ(required_margin_for(defaults, 1, 1), defaults.required_margin);
  EXPECT_EQ(required_margin_for(defaults, 2, 2), defaults.required_margin);
  EXPECT_EQ(required_margin_for(defaults, 1, 2), defaults.parallel_margin);
  EXPECT_GT(defaults.parallel_margin, defaults.required_margin);
  CalibrationOptions lower_parallel;
  lower_parallel.parallel_margin = 0.01;  // never below the required margin
  EXPECT_EQ(required_margin_for(lower_parallel, 1, 2), lower_parallel.required_margin);

  const std::string same_threads = selected_reason(1);
  const std::string more_threads = selected_reason(2);
  EXPECT_NE(same_threads.find("two consecutive wins by at least 5%"), std::string::npos) << same_threads;
  EXPECT_NE(more_threads.find("two consecutive wins by at least 15%"), std::string::npos) << more_threads;
}

TEST(CrossoverCalibration, TheMemoryBudgetBoundsTheSearch) {
  Fixture f;
  f.options.memory_budget_bytes = 4 * 1024 * 4;  // 4 floats per element: sizes up to 1024
  CalibrationContext context{f.options, f.execution, CalibrationBudget(f.options, 1), f.reporter};
  calibrate_crossover(context, add_spec(false), f.values);
  EXPECT_FALSE(f.values.values.count("parallel.minimum_elements"));
  ASSERT_FALSE(f.reporter.rejected().empty());
  EXPECT_EQ(f.reporter.rejected()[0].candidate, "size=2048 serial vs parallel");
  EXPECT_NE(f.reporter.rejected()[0].reason.find("above the memory budget of 16384 bytes"), std::string::npos);
}

}  // namespace
}  // namespace tunekit::tuning
