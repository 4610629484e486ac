// Pure parts of the execution descriptor: CPU sets, NUMA policy names,
// cgroup file parsing, effective threads and the execution identity.
#include "tunekit/platform/execution_descriptor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "tunekit/core/hash.hpp"

namespace tunekit::platform {
namespace {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

template <typename T>
std::optional<T> parse_number(std::string_view text) {
  text = trim(text);
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

constexpr std::array<std::string_view, 7> kPolicyNames{
    "default", "first_touch", "bind", "interleave", "next_touch", "mixed", "unknown"};

}  // namespace

CpuSet::CpuSet(std::vector<std::uint32_t> ids) : ids_(std::move(ids)) {
  std::sort(ids_.begin(), ids_.end());
  ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
}

std::string CpuSet::to_string() const {
  std::string text;
  for (std::size_t i = 0; i < ids_.size();) {
    std::size_t j = i;
    while (j + 1 < ids_.size() && ids_[j + 1] == ids_[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += j == i ? fmt::format("{}", ids_[i]) : fmt::format("{}-{}", ids_[i], ids_[j]);
    i = j + 1;
  }
  return text;
}

std::optional<CpuSet> CpuSet::parse(std::string_view text) {
  text = trim(text);
  std::vector<std::uint32_t> ids;
  while (!text.empty()) {
    const auto comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const auto dash = part.find('-');
    auto first = parse_number<std::uint32_t>(part.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : parse_number<std::uint32_t>(part.substr(dash + 1));
    if (!first || !last || *last < *first || *last - *first > 65536) return std::nullopt;
    for (std::uint32_t id = *first; id <= *last; ++id) ids.push_back(id);
  }
  return CpuSet(std::move(ids));
}

std::string_view to_string(NumaPolicyKind kind) noexcept {
  return kPolicyNames[static_cast<std::size_t>(kind)];
}

std::optional<NumaPolicyKind> parse_numa_policy_kind(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kPolicyNames.size(); ++i) {
    if (kPolicyNames[i] == name) return static_cast<NumaPolicyKind>(i);
  }
  return std::nullopt;
}

std::string NumaPolicy::to_string() const {
  std::string text(platform::to_string(kind));
  if (!nodes.empty() && kind != NumaPolicyKind::DEFAULT) text += ':' + nodes.to_string();
  return text;
}

std::uint32_t compute_effective_threads(std::size_t affinity_count,
                                        std::optional<double> cgroup_cpu_limit,
                                        std::optional<std::uint32_t> requested_threads) noexcept {
  double threads = affinity_count > 0 ? static_cast<double>(affinity_count) : 1.0;
  if (cgroup_cpu_limit && *cgroup_cpu_limit > 0) threads = std::min(threads, std::ceil(*cgroup_cpu_limit));
  if (requested_threads && *requested_threads > 0) {
    threads = std::min(threads, static_cast<double>(*requested_threads));
  }
  return static_cast<std::uint32_t>(std::max(threads, 1.0));
}

std::optional<double> parse_cgroup_v2_cpu_max(std::string_view content) noexcept {
  content = trim(content);
  const auto space = content.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view quota = content.substr(0, space);
  if (quota == "max") return std::nullopt;
  auto q = parse_number<double>(quota);
  auto p = parse_number<double>(content.substr(space + 1));
  if (!q || !p || *q <= 0 || *p <= 0) return std::nullopt;
  return *q / *p;
}

std::optional<double> parse_cgroup_v1_quota(std::string_view quota, std::string_view period) noexcept {
  auto q = parse_number<double>(quota);
  auto p = parse_number<double>(period);
  if (!q || !p || *q <= 0 || *p <= 0) return std::nullopt;
  return *q / *p;
}

std::optional<std::string> parse_cgroup_v2_path(std::string_view proc_self_cgroup) {
  while (!proc_self_cgroup.empty()) {
    const auto newline = proc_self_cgroup.find('\n');
    std::string_view line = proc_self_cgroup.substr(0, newline);
    proc_self_cgroup = newline == std::string_view::npos ? std::string_view{}
                                                        : proc_self_cgroup.substr(newline + 1);
    if (line.substr(0, 3) == "0::") return std::string(trim(line.substr(3)));
  }
  return std::nullopt;
}

std::string execution_identity_string(const CpuExecutionDescriptor& execution) {
  return fmt::format("{}|threads={}|numa={}", identity_string(execution.processor),
                     execution.effective_threads, execution.numa_policy.to_string());
}

std::uint64_t execution_identity_signature(const CpuExecutionDescriptor& execution) {
  return core::hash64(execution_identity_string(execution));
}

}  // namespace tunekit::platform
