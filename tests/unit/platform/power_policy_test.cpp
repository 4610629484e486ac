#include "tunekit/platform/power_policy.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/scratch_dir.hpp"

namespace tunekit::platform {
namespace {

namespace fs = std::filesystem;

// A fake /sys/devices/system/cpu in a temporary folder.
class FakeSysfs {
 public:
  const fs::path& root() const { return dir_.path(); }
  void write(const std::string& relative, const std::string& content) {
    const fs::path path = dir_.path() / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << content;
  }
  // One cpufreq policy as intel_pstate exposes it.
  void intel_policy(int index, const std::string& governor, const std::string& preference,
                    const std::string& base_khz, const std::string& max_khz) {
    const std::string p = "cpufreq/policy" + std::to_string(index) + "/";
    write(p + "scaling_driver", "intel_pstate\n");
    write(p + "scaling_governor", governor + "\n");
    write(p + "energy_performance_preference", preference + "\n");
    write(p + "base_frequency", base_khz + "\n");
    write(p + "cpuinfo_max_freq", max_khz + "\n");
  }

 private:
  testing::ScratchDir dir_{"tunekit-sysfs"};
};

TEST(PowerPolicy, ReadsEveryFieldOfOnePolicy) {
  FakeSysfs sysfs;
  sysfs.intel_policy(0, "performance", "balance_performance", "2100000", "3800000");
  sysfs.write("intel_pstate/no_turbo", "0\n");
  const PowerPolicy power = read_power_policy(sysfs.root());
  EXPECT_EQ(power.scaling_driver, "intel_pstate");
  EXPECT_EQ(power.governor, "performance");
  EXPECT_EQ(power.energy_performance_preference, "balance_performance");
  EXPECT_EQ(power.boost, true);
  EXPECT_EQ(power.base_frequency_khz, 2100000u);
  EXPECT_EQ(power.max_frequency_khz, 3800000u);
}

TEST(PowerPolicy, NothingExposedLeavesEveryFieldUnknown) {
  FakeSysfs sysfs;
  sysfs.write("online", "0-1\n");  // a cpu folder without cpufreq, as in many VMs
  EXPECT_EQ(read_power_policy(sysfs.root()), PowerPolicy{});
  EXPECT_EQ(read_power_policy(sysfs.root() / "missing"), PowerPolicy{});
}

TEST(PowerPolicy, NoTurboDisablesBoost) {
  FakeSysfs sysfs;
  sysfs.write("intel_pstate/no_turbo", "1\n");
  EXPECT_EQ(read_power_policy(sysfs.root()).boost, false);
}

TEST(PowerPolicy, TheCpufreqBoostFileWinsOverNoTurbo) {
  FakeSysfs sysfs;
  sysfs.write("cpufreq/boost", "0\n");
  sysfs.write("intel_pstate/no_turbo", "0\n");
  EXPECT_EQ(read_power_policy(sysfs.root()).boost, false);
}

TEST(PowerPolicy, PerPolicyBoostIsEnabledWhenAnyPolicyBoosts) {
  FakeSysfs sysfs;
  sysfs.write("cpufreq/policy0/boost", "0\n");
  sysfs.write("cpufreq/policy1/boost", "1\n");
  EXPECT_EQ(read_power_policy(sysfs.root()).boost, true);
  sysfs.write("cpufreq/policy1/boost", "0\n");
  EXPECT_EQ(read_power_policy(sysfs.root()).boost, false);
}

TEST(PowerPolicy, DisagreeingPoliciesListTextsAndTakeTheHighestFrequency) {
  // A hybrid processor: performance cores in policy0, efficiency cores in
  // policy10 with another governor and lower clocks.
  FakeSysfs sysfs;
  sysfs.intel_policy(0, "powersave", "balance_power", "2400000", "5000000");
  sysfs.intel_policy(10, "performance", "balance_power", "1800000", "3900000");
  sysfs.intel_policy(2, "powersave", "performance", "2400000", "5200000");
  const PowerPolicy power = read_power_policy(sysfs.root());
  EXPECT_EQ(power.scaling_driver, "intel_pstate");
  EXPECT_EQ(power.governor, "performance,powersave");
  EXPECT_EQ(power.energy_performance_preference, "balance_power,performance");
  EXPECT_EQ(power.base_frequency_khz, 2400000u);
  EXPECT_EQ(power.max_frequency_khz, 5200000u);
  EXPECT_EQ(power.boost, std::nullopt);
}

TEST(PowerPolicy, MalformedOrEmptyValuesStayUnknown) {
  FakeSysfs sysfs;
  sysfs.write("cpufreq/policy0/scaling_driver", "acpi-cpufreq\n");
  sysfs.write("cpufreq/policy0/scaling_governor", "  \n");
  sysfs.write("cpufreq/policy0/cpuinfo_max_freq", "fast\n");
  sysfs.write("cpufreq/policy0/base_frequency", "-5\n");
  sysfs.write("cpufreq/boost", "2\n");
  sysfs.write("cpufreq/policyX/scaling_governor", "ondemand\n");  // not a policy folder
  const PowerPolicy power = read_power_policy(sysfs.root());
  EXPECT_EQ(power.scaling_driver, "acpi-cpufreq");
  EXPECT_EQ(power.governor, std::nullopt);
  EXPECT_EQ(power.energy_performance_preference, std::nullopt);
  EXPECT_EQ(power.max_frequency_khz, std::nullopt);
  EXPECT_EQ(power.base_frequency_khz, std::nullopt);
  EXPECT_EQ(power.boost, std::nullopt);
}

TEST(PowerPolicy, AcpiCpufreqWithoutBaseFrequency) {
  FakeSysfs sysfs;
  sysfs.write("cpufreq/policy0/scaling_driver", "acpi-cpufreq\n");
  sysfs.write("cpufreq/policy0/scaling_governor", "schedutil\n");
  sysfs.write("cpufreq/policy0/cpuinfo_max_freq", "3500000\n");
  sysfs.write("cpufreq/boost", "1\n");
  const PowerPolicy power = read_power_policy(sysfs.root());
  EXPECT_EQ(power.governor, "schedutil");
  EXPECT_EQ(power.energy_performance_preference, std::nullopt);
  EXPECT_EQ(power.base_frequency_khz, std::nullopt);
  EXPECT_EQ(power.max_frequency_khz, 3500000u);
  EXPECT_EQ(power.boost, true);
}

}  // namespace
}  // namespace tunekit::platform
