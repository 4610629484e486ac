// Reading of the cpufreq sysfs files, folded over the policies.
#include "tunekit/platform/power_policy.hpp"

#include <algorithm>
#include <charconv>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "small_file.hpp"
#include "tunekit/core/log.hpp"

namespace tunekit::platform {
namespace {

namespace fs = std::filesystem;

// The file's first line without surrounding blanks; nullopt when the file is
// missing or holds nothing.
std::optional<std::string> read_value(const fs::path& path) {
  std::optional<std::string> text = detail::read_small_file(path);
  if (!text) return std::nullopt;
  std::string_view v = *text;
  v = v.substr(0, v.find('\n'));
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r')) v.remove_suffix(1);
  if (v.empty()) return std::nullopt;
  return std::string(v);
}

std::optional<std::uint64_t> read_number(const fs::path& path) {
  std::optional<std::string> text = read_value(path);
  if (!text) return std::nullopt;
  std::uint64_t value = 0;
  const char* end = text->data() + text->size();
  auto [stop, error] = std::from_chars(text->data(), end, value);
  if (error != std::errc() || stop != end) {
    log::debug("platform: {}: '{}' is not a whole number; recorded as unknown", path.string(), *text);
    return std::nullopt;
  }
  return value;
}

// "1"/"0" files; `inverted` for intel_pstate's no_turbo.
std::optional<bool> read_flag(const fs::path& path, bool inverted) {
  std::optional<std::uint64_t> value = read_number(path);
  if (!value) return std::nullopt;
  if (*value > 1) {
    log::debug("platform: {}: '{}' is neither 0 nor 1; recorded as unknown", path.string(), *value);
    return std::nullopt;
  }
  return (*value == 1) != inverted;
}

// policy0, policy1, ... in numeric order (policy10 after policy9).
std::vector<fs::path> policy_folders(const fs::path& cpufreq) {
  std::vector<std::pair<std::uint64_t, fs::path>> found;
  std::error_code error;
  for (fs::directory_iterator it(cpufreq, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with("policy")) continue;
    std::uint64_t index = 0;
    const char* first = name.data() + 6;
    const char* last = name.data() + name.size();
    auto [stop, parse_error] = std::from_chars(first, last, index);
    if (parse_error == std::errc() && stop == last && first != last) found.emplace_back(index, it->path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> folders;
  for (auto& entry : found) folders.push_back(std::move(entry.second));
  return folders;
}

std::optional<std::string> joined(const std::set<std::string>& values) {
  if (values.empty()) return std::nullopt;
  std::string text;
  for (const std::string& v : values) {
    if (!text.empty()) text += ',';
    text += v;
  }
  return text;
}

void keep_highest(std::optional<std::uint64_t>& field, std::optional<std::uint64_t> value) {
  if (value && (!field || *value > *field)) field = value;
}

}  // namespace

PowerPolicy read_power_policy(const fs::path& cpu_root) {
  PowerPolicy power;
  const fs::path cpufreq = cpu_root / "cpufreq";
  std::set<std::string> drivers, governors, preferences;
  std::optional<bool> policy_boost;
  for (const fs::path& policy : policy_folders(cpufreq)) {
    if (auto v = read_value(policy / "scaling_driver")) drivers.insert(*v);
    if (auto v = read_value(policy / "scaling_governor")) governors.insert(*v);
    if (auto v = read_value(policy / "energy_performance_preference")) preferences.insert(*v);
    keep_highest(power.base_frequency_khz, read_number(policy / "base_frequency"));
    keep_highest(power.max_frequency_khz, read_number(policy / "cpuinfo_max_freq"));
    if (auto b = read_flag(policy / "boost", false)) policy_boost = policy_boost.value_or(false) || *b;
  }
  power.scaling_driver = joined(drivers);
  power.governor = joined(governors);
  power.energy_performance_preference = joined(preferences);
  power.boost = read_flag(cpufreq / "boost", false);
  if (!power.boost) power.boost = read_flag(cpu_root / "intel_pstate" / "no_turbo", true);
  if (!power.boost) power.boost = policy_boost;
  return power;
}

PowerPolicy detect_power_policy() { return read_power_policy("/sys/devices/system/cpu"); }

}  // namespace tunekit::platform
