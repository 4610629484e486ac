#include "tunekit/tuning/calibration_reporter.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tuning_fixtures.hpp"

namespace tunekit::tuning {
namespace {

platform::PowerPolicy intel_pstate_policy() {
  platform::PowerPolicy power;
  power.scaling_driver = "intel_pstate";
  power.governor = "performance";
  power.energy_performance_preference = "balance_performance";
  power.boost = false;
  power.base_frequency_khz = 2100000;
  power.max_frequency_khz = 3800000;
  return power;
}

TEST(CalibrationReporter, ReportJsonCarriesThePowerPolicy) {
  CalibrationReporter reporter(testing::gemm_key(), testing::milan(), 2);
  reporter.set_power_policy(intel_pstate_policy());
  const nlohmann::json power = nlohmann::json::parse(reporter.to_json())["power"];
  EXPECT_EQ(power["scaling_driver"], "intel_pstate");
  EXPECT_EQ(power["governor"], "performance");
  EXPECT_EQ(power["energy_performance_preference"], "balance_performance");
  EXPECT_EQ(power["boost"], false);
  EXPECT_EQ(power["base_frequency_khz"], 2100000);
  EXPECT_EQ(power["max_frequency_khz"], 3800000);
  EXPECT_EQ(power.size(), 6u);
}

TEST(CalibrationReporter, PowerFieldsTheMachineDoesNotExposeAreUnknown) {
  CalibrationReporter reporter(testing::gemm_key(), testing::milan(), 2);
  platform::PowerPolicy partial;
  partial.governor = "schedutil";
  reporter.set_power_policy(partial);
  const nlohmann::json power = nlohmann::json::parse(reporter.to_json())["power"];
  EXPECT_EQ(power["governor"], "schedutil");
  for (const char* field : {"scaling_driver", "energy_performance_preference", "boost", "base_frequency_khz",
                            "max_frequency_khz"}) {
    EXPECT_EQ(power[field], "unknown") << field;
  }
}

TEST(CalibrationReporter, PowerPolicyIsNoPartOfTheExecutionIdentity) {
  CalibrationReporter quiet(testing::gemm_key(), testing::milan(), 2);
  CalibrationReporter boosted(testing::gemm_key(), testing::milan(), 2);
  boosted.set_power_policy(intel_pstate_policy());
  const nlohmann::json a = nlohmann::json::parse(quiet.to_json());
  const nlohmann::json b = nlohmann::json::parse(boosted.to_json());
  EXPECT_EQ(a["execution"], b["execution"]);
  EXPECT_EQ(a["processor"], b["processor"]);
  EXPECT_NE(a["power"], b["power"]);
}

}  // namespace
}  // namespace tunekit::tuning
