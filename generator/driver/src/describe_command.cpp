// Prints what tunekit detects about this machine, as text or JSON.
#include "describe_command.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "descriptor_json.hpp"
#include "tunekit/core/version.hpp"
#include "tunekit/internal/json_text.hpp"
#include "tunekit/platform/cpu_device.hpp"
#include "tunekit/platform/hip_device.hpp"
#include "tunekit/platform/power_policy.hpp"

namespace tunekit::cli {
namespace {

struct DescribeOptions {
  bool json = false;
  std::uint32_t threads = 0;
};

template <typename T>
std::string text(const std::optional<T>& value) {
  return value ? fmt::format("{}", *value) : std::string("unknown");
}

std::string text(const std::string& value) { return value.empty() ? "unknown" : value; }

std::string bytes_text(const std::optional<std::size_t>& bytes,
                       const std::optional<std::uint32_t>& instances) {
  if (!bytes) return "unknown";
  std::string size = *bytes % (1024 * 1024) == 0 ? fmt::format("{} MiB", *bytes / (1024 * 1024))
                                                 : fmt::format("{} KiB", *bytes / 1024);
  return instances ? fmt::format("{} x {}", size, *instances) : size;
}

std::string khz_text(const std::optional<std::uint64_t>& khz) {
  return khz ? fmt::format("{} MHz", *khz / 1000) : std::string("unknown");
}

void print_text(const platform::CpuExecutionDescriptor& execution, const platform::PowerPolicy& power,
                const platform::CpuDevice& device, const platform::HipProbe& hip) {
  const platform::CpuDescriptor& cpu = execution.processor;
  fmt::print("tunekit {}\n\nprocessor\n", kVersion);
  fmt::print("  architecture       {}\n", text(cpu.architecture));
  fmt::print("  vendor             {}\n", text(cpu.vendor));
  fmt::print("  model name         {}\n", text(cpu.model_name));
  fmt::print("  family             {}\n", text(cpu.family));
  fmt::print("  model              {}\n", text(cpu.model));
  fmt::print("  stepping           {}\n", text(cpu.stepping));
  fmt::print("  microarchitecture  {}\n", text(cpu.microarchitecture));
  fmt::print("  features           {}\n", cpu.features.empty() ? "none" : cpu.features.to_string());
  fmt::print("  cache line         {}\n", text(cpu.cache_line_bytes));
  fmt::print("  L1 data            {}\n", bytes_text(cpu.l1_data_bytes, cpu.l1_data_instances));
  fmt::print("  L2                 {}\n", bytes_text(cpu.l2_bytes, cpu.l2_instances));
  fmt::print("  L3                 {}\n", bytes_text(cpu.l3_bytes, cpu.l3_instances));
  fmt::print("  physical cores     {}\n", text(cpu.physical_cores));
  fmt::print("  logical cores      {}\n", text(cpu.logical_cores));
  fmt::print("  identity           {:016x}  {}\n", platform::identity_signature(cpu),
             platform::identity_string(cpu));
  fmt::print("\nexecution\n");
  fmt::print("  effective threads  {}\n", execution.effective_threads);
  fmt::print("  affinity           {}\n", execution.affinity.to_string());
  fmt::print("  cgroup CPU limit   {}\n", execution.cgroup_cpu_limit
                                             ? fmt::format("{:g}", *execution.cgroup_cpu_limit)
                                             : std::string("none"));
  fmt::print("  NUMA policy        {}\n", execution.numa_policy.to_string());
  fmt::print("  identity           {:016x}\n", platform::execution_identity_signature(execution));
  fmt::print("\npower (diagnostics, not part of any identity)\n");
  fmt::print("  scaling driver     {}\n", text(power.scaling_driver));
  fmt::print("  governor           {}\n", text(power.governor));
  fmt::print("  energy preference  {}\n", text(power.energy_performance_preference));
  fmt::print("  boost              {}\n",
             power.boost ? (*power.boost ? "enabled" : "disabled") : "unknown");
  fmt::print("  base frequency     {}\n", khz_text(power.base_frequency_khz));
  fmt::print("  max frequency      {}\n", khz_text(power.max_frequency_khz));
  fmt::print("\ndevices\n  {}  {}\n", device.signature(), device.name());
  if (hip.devices.empty()) fmt::print("  hip: none: {}\n", hip.reason);
  for (const platform::HipDeviceProperties& d : hip.devices) {
    fmt::print("  {}  {}\n", platform::hip_device_signature(d), platform::describe_hip_device(d));
    fmt::print("      target {}, L2 {} KiB, warp {}, {} MHz, HIP runtime {}, driver {}\n", d.target, d.l2_bytes / 1024,
               d.warp_size, d.clock_mhz, d.runtime_version, d.driver_version);
  }
}

int run_describe(const DescribeOptions& options) {
  std::optional<std::uint32_t> requested;
  if (options.threads > 0) requested = options.threads;
  platform::CpuDevice device(platform::detect_execution_descriptor(requested));
  const platform::CpuExecutionDescriptor& execution = device.execution();
  const platform::PowerPolicy power = platform::detect_power_policy();
  const platform::HipProbe hip = platform::probe_hip_devices();
  if (options.json) {
    nlohmann::json out;
    out["tunekit_version"] = kVersion;
    out["processor"] = to_json(execution.processor);
    out["execution"] = to_json(execution);
    out["power"] = to_json(power);
    out["devices"] = nlohmann::json::array(
        {{{"kind", "cpu"}, {"name", device.name()}, {"signature", device.signature()}}});
    // The GPUs (also in "devices") and, when there are none, why.
    out["hip"] = to_json(hip);
    for (const nlohmann::json& gpu : out["hip"]["devices"]) out["devices"].push_back(gpu);
    std::cout << internal::json_text(out, 2) << '\n';
  } else {
    print_text(execution, power, device, hip);
  }
  return 0;
}

}  // namespace

void add_describe_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<DescribeOptions>();
  CLI::App* describe =
      app.add_subcommand("describe", "Print the processor and execution descriptors of this machine");
  describe->add_flag("--json", options->json, "Print JSON instead of text");
  describe->add_option("--threads", options->threads,
                       "Describe a run limited to this many threads (0: no limit)")
      ->check(CLI::NonNegativeNumber);
  describe->callback([options, &exit_code] { exit_code = run_describe(*options); });
}

}  // namespace tunekit::cli
