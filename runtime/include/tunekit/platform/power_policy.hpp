// The power policy and frequency limits of this machine's logical CPUs as
// Linux cpufreq reports them. Diagnostics only: calibration reports record
// them because they explain a measurement, but they are no part of the
// processor or execution identity, so a governor change never turns
// selectors, profiles or cache entries into misses.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace tunekit::platform {

// Every field stays empty (unknown) when the machine does not expose it; a
// virtual machine often exposes none.
struct PowerPolicy {
  std::optional<std::string> scaling_driver;  // "intel_pstate", "acpi-cpufreq", "amd-pstate-epp", ...
  std::optional<std::string> governor;        // "performance", "powersave", "schedutil", ...
  std::optional<std::string> energy_performance_preference;  // "balance_performance", ...
  std::optional<bool> boost;                          // turbo / boost frequencies enabled
  std::optional<std::uint64_t> base_frequency_khz;    // guaranteed (nominal) frequency
  std::optional<std::uint64_t> max_frequency_khz;     // hardware maximum, boost included
  friend bool operator==(const PowerPolicy&, const PowerPolicy&) = default;
};

// Reads cpufreq under `cpu_root`, the folder holding cpufreq/policy*/ and
// intel_pstate/ ("/sys/devices/system/cpu" on Linux):
//   scaling_driver, scaling_governor, energy_performance_preference,
//   base_frequency and cpuinfo_max_freq of every policy*; boost from
//   cpufreq/boost, else intel_pstate/no_turbo (inverted), else the policies'
//   own boost files.
// Policies can disagree (per-CPU governors, hybrid processors): a text field
// then lists the distinct values sorted and comma-separated
// ("performance,powersave"), a frequency is the highest, and boost is enabled
// when any policy boosts. A missing, empty or malformed file leaves its field
// unknown; malformed content is logged at debug level with the file.
PowerPolicy read_power_policy(const std::filesystem::path& cpu_root);

// read_power_policy("/sys/devices/system/cpu"), read afresh on every call:
// unlike the processor, the policy can change while a process runs.
PowerPolicy detect_power_policy();

}  // namespace tunekit::platform
