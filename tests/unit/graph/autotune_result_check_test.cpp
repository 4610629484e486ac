// The result check of autotune: every candidate's outputs are compared
// with a reference engine's before it is timed, so that a fast engine with
// a wrong result fails with "wrong result" and its largest error instead of
// winning. Fake engines compute C = A x B on random inputs (each its own
// way, some wrongly); their times are scripted.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "graph_test_support.hpp"

namespace tunekit::graph::testing {
namespace {

constexpr std::int64_t kM = 4, kK = 8, kN = 2;

// C = A x B over the pack's float buffers, in double, then `damage` applied
// to the result (index, value) before it is stored.
std::function<void(const VariantPack&)> matmul(std::function<void(float*)> damage = {}) {
  return [damage](const VariantPack& pack) {
    const float* a = static_cast<const float*>(pack.at(1));
    const float* b = static_cast<const float*>(pack.at(2));
    float* c = static_cast<float*>(pack.at(3));
    for (std::int64_t i = 0; i < kM; ++i) {
      for (std::int64_t j = 0; j < kN; ++j) {
        double sum = 0.0;
        for (std::int64_t p = 0; p < kK; ++p) sum += static_cast<double>(a[i * kK + p]) * b[p * kN + j];
        c[i * kN + j] = static_cast<float>(sum);
      }
    }
    if (damage) damage(c);
  };
}

class AutotuneResultCheck : public GraphFixture {
 protected:
  static constexpr std::int64_t kReference = 1, kRight = 2, kWrong = 3, kForgetful = 4, kRounded = 5;

  void SetUp() override {
    GraphFixture::SetUp();
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (float& x : a_data) x = u(rng);
    for (float& x : b_data) x = u(rng);
  }

  // The reference (slowest), a right engine, one that gets element 5 wrong
  // (fastest), one that never writes the last element, and one off by a
  // relative 1e-4 everywhere (within float's tolerance of 1e-3).
  void add_engines(bool with_reference_flag = true) {
    FakeBehaviour reference = behaviour(kReference, "reference", 2.0);
    reference.descriptor.reference = with_reference_flag;
    reference.compute = matmul();
    add(reference);
    FakeBehaviour right = behaviour(kRight, "right", 0.5);
    right.compute = matmul();
    add(right);
    FakeBehaviour wrong = behaviour(kWrong, "wrong", 0.1);
    wrong.compute = matmul([](float* c) { c[5] += 0.5f; });
    add(wrong);
    FakeBehaviour forgetful = behaviour(kForgetful, "forgetful", 0.2);
    forgetful.compute = [full = matmul()](const VariantPack& pack) {
      float* c = static_cast<float*>(pack.at(3));
      const float last = c[kM * kN - 1];  // the poison the check put there
      full(pack);
      c[kM * kN - 1] = last;
    };
    add(forgetful);
    FakeBehaviour rounded = behaviour(kRounded, "rounded", 0.4);
    rounded.compute = matmul([](float* c) {
      for (std::int64_t i = 0; i < kM * kN; ++i) c[i] *= 1.0f + 1e-4f;
    });
    add(rounded);
    build();
    ASSERT_TRUE(graph.add_all_engines().is_good());
  }

  std::vector<AutotuneResult> tune(AutotuneConfig config, Error* error_out = nullptr) {
    config.check_machine_load = false;
    std::vector<AutotuneResult> results;
    const Error error = graph.autotune(handle.get(), pack, workspace.data(), static_cast<std::int64_t>(workspace.size()),
                                       config, {}, &results);
    if (error_out) {
      *error_out = error;
    } else {
      EXPECT_TRUE(error.is_good()) << error.message();
    }
    return results;
  }
};

class AutotuneResultCheckStrategies : public AutotuneResultCheck,
                                      public ::testing::WithParamInterface<AutotuneStrategy> {};

TEST_P(AutotuneResultCheckStrategies, AFastWrongEngineFailsWithItsLargestErrorAndNeverWins) {
  add_engines();
  AutotuneConfig config;
  config.strategy = GetParam();
  const std::vector<AutotuneResult> results = tune(config);
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].engine_name, "rounded");
  EXPECT_EQ(results[1].engine_name, "right");

  const AutotuneResult* wrong = find(results, kWrong);
  ASSERT_NE(wrong, nullptr);
  EXPECT_FALSE(wrong->succeeded);
  EXPECT_EQ(wrong->rank, -1);
  EXPECT_EQ(wrong->iterations_run, 0) << "a wrong candidate is not timed";
  EXPECT_EQ(wrong->result_check, "wrong result against reference");
  EXPECT_NE(wrong->error_message.find("wrong result against reference: tensor 'C' (uid 3): largest error"),
            std::string::npos)
      << wrong->error_message;
  EXPECT_NE(wrong->error_message.find("at element 5), 1 of 8 elements beyond the tolerance 0.001"), std::string::npos)
      << wrong->error_message;
  EXPECT_GT(wrong->result_error, 0.1);

  const AutotuneResult* forgetful = find(results, kForgetful);
  ASSERT_NE(forgetful, nullptr);
  EXPECT_FALSE(forgetful->succeeded);
  EXPECT_NE(forgetful->error_message.find("got nan at element 7"), std::string::npos) << forgetful->error_message;
  EXPECT_TRUE(std::isinf(forgetful->result_error));

  const AutotuneResult* rounded = find(results, kRounded);
  EXPECT_TRUE(rounded->succeeded);
  EXPECT_GT(rounded->result_error, 0.0);
  EXPECT_LT(rounded->result_error, 1e-3);
  EXPECT_EQ(rounded->result_check.rfind("agrees with reference (largest error ", 0), 0u) << rounded->result_check;
  const AutotuneResult* reference = find(results, kReference);
  EXPECT_TRUE(reference->succeeded);
  EXPECT_EQ(reference->result_error, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Strategies, AutotuneResultCheckStrategies,
                         ::testing::Values(AutotuneStrategy::RUN_UNTIL_STABLE, AutotuneStrategy::FIXED_AVERAGE,
                                           AutotuneStrategy::RACE),
                         [](const auto& info) { return std::string(measure::to_string(info.param)); });

// On a GPU the outputs are not the host's to read: the reference runs on the
// CPU over host copies of the inputs, each candidate's outputs are poisoned
// and read back through the device's copies, and the verdicts are the same.
TEST_F(AutotuneResultCheck, OnADeviceTheHostCannotAddressTheOutputsAreComparedThroughCopies) {
  sim->host_addressable = false;
  add_engines();
  const std::vector<AutotuneResult> results = tune(AutotuneConfig{});
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].engine_name, "rounded");
  EXPECT_EQ(results[1].engine_name, "right");
  EXPECT_EQ(results[1].result_check.rfind("agrees with reference", 0), 0u) << results[1].result_check;
  const AutotuneResult* wrong = find(results, kWrong);
  ASSERT_NE(wrong, nullptr);
  EXPECT_FALSE(wrong->succeeded);
  EXPECT_EQ(wrong->result_check, "wrong result against reference");
  const AutotuneResult* forgetful = find(results, kForgetful);
  ASSERT_NE(forgetful, nullptr);
  EXPECT_FALSE(forgetful->succeeded) << "the poison written through the copy stayed in its output";
  // The two inputs copied to the host once for the reference (not the
  // output it writes), then per candidate one poisoning copy to the device
  // and one copy back.
  EXPECT_EQ(sim->copies_to_host, 2 + 5);
  EXPECT_EQ(sim->copies_to_device, 5);
}

TEST_F(AutotuneResultCheck, TheReferenceChecksTheOthersWhenTheFilterLeavesItOut) {
  add_engines();
  AutotuneConfig config;
  config.engine_id_filter = {kRight, kWrong};
  const std::vector<AutotuneResult> results = tune(config);
  EXPECT_EQ(results[0].engine_name, "right");
  EXPECT_FALSE(find(results, kWrong)->succeeded);
  EXPECT_EQ(engines[0]->counters().executions, 1) << "the reference runs once, untimed";
}

TEST_F(AutotuneResultCheck, WithoutAReferenceEngineNothingIsCheckedAndTheResultsSaySo) {
  add_engines(/*with_reference_flag=*/false);
  LogCapture log;
  const std::vector<AutotuneResult> results = tune(AutotuneConfig{});
  EXPECT_EQ(results[0].engine_name, "wrong");
  for (const AutotuneResult& r : results) {
    EXPECT_EQ(r.result_check, "not checked: no reference engine runs this graph") << r.engine_name;
    EXPECT_EQ(r.result_error, -1.0);
  }
  EXPECT_EQ(log.count_containing("results are not checked: no reference engine runs this graph"), 1);
}

TEST_F(AutotuneResultCheck, TurnedOffTheFastestWinsWhateverItComputes) {
  add_engines();
  AutotuneConfig config;
  config.check_results = false;
  const std::vector<AutotuneResult> results = tune(config);
  EXPECT_EQ(results[0].engine_name, "wrong");
  EXPECT_EQ(results[0].result_check, "");
  EXPECT_EQ(results[0].result_error, -1.0);
}

TEST_F(AutotuneResultCheck, AChosenReferenceEngineIsTheTruth) {
  add_engines();
  AutotuneConfig config;
  config.reference_engine_id = kWrong;  // not flagged: chosen by the caller
  const std::vector<AutotuneResult> results = tune(config);
  EXPECT_EQ(results[0].engine_name, "wrong");
  EXPECT_FALSE(find(results, kRight)->succeeded);
  EXPECT_NE(find(results, kRight)->error_message.find("wrong result against wrong:"), std::string::npos);
}

TEST_F(AutotuneResultCheck, AnUnregisteredReferenceIdChecksNothingAndSaysWhy) {
  add_engines();
  AutotuneConfig config;
  config.reference_engine_id = 99;
  const std::vector<AutotuneResult> results = tune(config);
  EXPECT_EQ(results[0].engine_name, "wrong");
  EXPECT_EQ(results[0].result_check, "not checked: the reference engine id 99 is not registered");
}

TEST_F(AutotuneResultCheck, ATighterToleranceFailsTheRoundedEngine) {
  add_engines();
  AutotuneConfig config;
  config.result_tolerance = 1e-5;
  const std::vector<AutotuneResult> results = tune(config);
  EXPECT_EQ(results[0].engine_name, "right");
  const AutotuneResult* rounded = find(results, kRounded);
  EXPECT_FALSE(rounded->succeeded);
  EXPECT_NE(rounded->error_message.find("8 of 8 elements beyond the tolerance 1e-05"), std::string::npos)
      << rounded->error_message;
}

TEST_F(AutotuneResultCheck, AFailingReferenceChecksNothingAndTheCandidatesAreStillTimed) {
  FakeBehaviour reference = behaviour(kReference, "reference", 2.0);
  reference.descriptor.reference = true;
  reference.fail_execute = true;
  add(reference);
  FakeBehaviour right = behaviour(kRight, "right", 0.5);
  right.compute = matmul();
  add(right);
  build();
  ASSERT_TRUE(graph.add_all_engines().is_good());
  const std::vector<AutotuneResult> results = tune(AutotuneConfig{});
  EXPECT_EQ(results[0].engine_name, "right");
  EXPECT_EQ(results[0].result_check, "not checked: the reference engine reference failed: kernel refused");
  EXPECT_NE(find(results, kReference)->error_message.find("failed warmup"), std::string::npos);
}

TEST_F(AutotuneResultCheck, ANegativeOrNonFiniteToleranceIsRejected) {
  for (double bad : {-1e-3, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    AutotuneConfig config;
    config.result_tolerance = bad;
    const Error error = validate(config);
    EXPECT_EQ(error.code(), ErrorCode::INVALID_VALUE);
    EXPECT_NE(error.message().find("result_tolerance must be at least 0 and finite"), std::string::npos);
  }
}

}  // namespace
}  // namespace tunekit::graph::testing
