#include "processor_profile.hpp"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <optional>

#include "tunekit/tuning/cpu_selector.hpp"
#include "tunekit/tuning/deployment_profile.hpp"

namespace tunekit::cli {
namespace {

std::string lowercase_word(std::string_view text) {
  std::string out;
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) out += static_cast<char>(std::tolower(u));
  }
  return out.empty() ? "unknown" : out;
}

std::string number_or_x(const std::optional<std::uint32_t>& value) {
  return value ? std::to_string(*value) : "x";
}

}  // namespace

tuning::CpuSelector exact_processor_selector(const platform::CpuExecutionDescriptor& execution) {
  const platform::CpuDescriptor& cpu = execution.processor;
  tuning::CpuSelector selector;
  if (!cpu.architecture.empty()) selector.architecture = cpu.architecture;
  if (!cpu.vendor.empty()) selector.vendor = cpu.vendor;
  selector.family = cpu.family;
  if (cpu.family && cpu.model) {
    selector.models = {*cpu.model};
    selector.stepping = cpu.stepping;
  }
  selector.minimum_threads = execution.effective_threads;
  selector.maximum_threads = execution.effective_threads;
  return selector;
}

std::string processor_profile_stem(const platform::CpuExecutionDescriptor& execution) {
  const platform::CpuDescriptor& cpu = execution.processor;
  return fmt::format("{}-{}-{}-{}-{}t", lowercase_word(cpu.vendor), number_or_x(cpu.family), number_or_x(cpu.model),
                     number_or_x(cpu.stepping), execution.effective_threads);
}

std::vector<tuning::KernelTuningParameters> profile_values(std::span<const tuning::CalibratedKey> calibrated,
                                                           std::span<const tuning::KernelTuningParameters> incumbents) {
  std::map<std::string, tuning::KernelTuningParameters> by_key;
  for (const tuning::KernelTuningParameters& incumbent : incumbents) by_key[incumbent.key.to_string()] = incumbent;
  for (const tuning::CalibratedKey& c : calibrated) {
    const tuning::KernelTuningParameters& measured = c.profile.parameters;
    tuning::KernelTuningParameters& merged = by_key[measured.key.to_string()];
    merged.key = measured.key;
    for (const auto& [name, value] : measured.values) merged.values.insert_or_assign(name, value);
  }
  std::vector<tuning::KernelTuningParameters> out;
  for (auto& [name, values] : by_key) out.push_back(std::move(values));
  return out;
}

std::vector<tuning::KernelTuningProfile> processor_profiles(std::span<const tuning::KernelTuningParameters> values,
                                                            const platform::CpuExecutionDescriptor& execution,
                                                            int priority) {
  const std::string stem = processor_profile_stem(execution);
  const tuning::CpuSelector selector = exact_processor_selector(execution);
  std::vector<tuning::KernelTuningProfile> profiles;
  for (const tuning::KernelTuningParameters& parameters : values) {
    profiles.push_back({stem + "/" + parameters.key.to_string(), selector, parameters, priority});
  }
  return profiles;
}

std::string format_processor_profile_file(std::span<const tuning::KernelTuningProfile> profiles,
                                          const platform::CpuExecutionDescriptor& execution,
                                          const std::string& build_type) {
  const platform::CpuDescriptor& cpu = execution.processor;
  std::string text = fmt::format("# Processor profile calibrated on: {} ({}), {} threads.\n",
                                 cpu.model_name.empty() ? "an unnamed processor" : cpu.model_name,
                                 platform::identity_string(cpu), execution.effective_threads);
  if (!build_type.empty()) text += fmt::format("# build type: {}\n", build_type);
  text += fmt::format("# file name: {}.toml\n", processor_profile_stem(execution));
  return text + tuning::format_deployment_profiles(profiles);
}

CoverageReport find_coverage(std::span<const std::filesystem::path> folders,
                             std::span<const tuning::KernelTuningKey> keys,
                             const platform::CpuExecutionDescriptor& execution) {
  CoverageReport report;
  struct Loaded {
    std::string file;
    std::vector<tuning::KernelTuningProfile> profiles;
  };
  std::vector<Loaded> loaded;
  for (const std::filesystem::path& folder : folders) {
    // A folder that does not exist (or cannot be listed) covers nothing.
    Result<std::vector<std::filesystem::path>> files = tuning::ListProfileFiles(folder);
    if (!files.ok()) continue;
    for (const std::filesystem::path& file : *files) {
      Result<std::vector<tuning::KernelTuningProfile>> read = tuning::ReadDeploymentProfiles(file);
      if (!read.ok()) {
        report.unreadable.push_back(read.error().message());
        continue;
      }
      loaded.push_back({file.string(), std::move(*read)});
    }
  }
  auto cover = [&](const tuning::KernelTuningKey& key) -> std::optional<Coverage> {
    for (const Loaded& l : loaded) {
      for (const tuning::KernelTuningProfile& p : l.profiles) {
        if (p.parameters.key == key && tuning::matches(p.selector, execution)) {
          return Coverage{key, l.file, p.name, p.parameters};
        }
      }
    }
    return std::nullopt;
  };
  for (const tuning::KernelTuningKey& key : keys) {
    if (std::optional<Coverage> c = cover(key)) {
      report.covered.push_back(std::move(*c));
    } else {
      report.uncovered.push_back(key);
    }
  }
  return report;
}

}  // namespace tunekit::cli
