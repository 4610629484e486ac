// Processor and execution descriptors as JSON.
#include "descriptor_json.hpp"

#include "tunekit/core/hash.hpp"

namespace tunekit::cli {
namespace {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

}  // namespace

nlohmann::json to_json(const platform::CpuDescriptor& cpu) {
  nlohmann::json j;
  j["architecture"] = text_or_null(cpu.architecture);
  j["vendor"] = text_or_null(cpu.vendor);
  j["family"] = optional_json(cpu.family);
  j["model"] = optional_json(cpu.model);
  j["stepping"] = optional_json(cpu.stepping);
  j["microarchitecture"] = text_or_null(cpu.microarchitecture);
  j["model_name"] = text_or_null(cpu.model_name);
  j["features"] = cpu.features.names();
  j["cache_line_bytes"] = optional_json(cpu.cache_line_bytes);
  j["l1_data_bytes"] = optional_json(cpu.l1_data_bytes);
  j["l1_data_instances"] = optional_json(cpu.l1_data_instances);
  j["l2_bytes"] = optional_json(cpu.l2_bytes);
  j["l2_instances"] = optional_json(cpu.l2_instances);
  j["l3_bytes"] = optional_json(cpu.l3_bytes);
  j["l3_instances"] = optional_json(cpu.l3_instances);
  j["physical_cores"] = optional_json(cpu.physical_cores);
  j["logical_cores"] = optional_json(cpu.logical_cores);
  j["identity"] = platform::identity_string(cpu);
  j["identity_signature"] = core::to_hex(platform::identity_signature(cpu));
  return j;
}

nlohmann::json to_json(const platform::CpuExecutionDescriptor& execution) {
  nlohmann::json j;
  j["effective_threads"] = execution.effective_threads;
  j["affinity"] = execution.affinity.to_string();
  j["affinity_count"] = execution.affinity.count();
  j["numa_policy"] = execution.numa_policy.to_string();
  j["cgroup_cpu_limit"] = optional_json(execution.cgroup_cpu_limit);
  j["requested_threads"] = optional_json(execution.requested_threads);
  j["identity"] = platform::execution_identity_string(execution);
  j["identity_signature"] = core::to_hex(platform::execution_identity_signature(execution));
  return j;
}

nlohmann::json to_json(const platform::PowerPolicy& power) {
  nlohmann::json j;
  j["scaling_driver"] = optional_json(power.scaling_driver);
  j["governor"] = optional_json(power.governor);
  j["energy_performance_preference"] = optional_json(power.energy_performance_preference);
  j["boost"] = optional_json(power.boost);
  j["base_frequency_khz"] = optional_json(power.base_frequency_khz);
  j["max_frequency_khz"] = optional_json(power.max_frequency_khz);
  return j;
}

nlohmann::json to_json(const platform::HipProbe& hip) {
  nlohmann::json out;
  out["compiled"] = hip.compiled;
  out["library"] = hip.library;
  out["reason"] = hip.reason;
  out["devices"] = nlohmann::json::array();
  for (const platform::HipDeviceProperties& d : hip.devices) {
    out["devices"].push_back({{"kind", "hip"},
                              {"index", d.index},
                              {"name", d.name},
                              {"architecture", d.architecture},
                              {"target", d.target},
                              {"compute_units", d.compute_units},
                              {"memory_bytes", d.memory_bytes},
                              {"l2_bytes", d.l2_bytes},
                              {"warp_size", d.warp_size},
                              {"max_threads_per_block", d.max_threads_per_block},
                              {"clock_mhz", d.clock_mhz},
                              {"runtime_version", d.runtime_version},
                              {"driver_version", d.driver_version},
                              {"signature", platform::hip_device_signature(d)}});
  }
  return out;
}

}  // namespace tunekit::cli
