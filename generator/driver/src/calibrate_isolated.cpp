#include "calibrate_isolated.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "child_process.hpp"
#include "exit_codes.hpp"
#include "processor_profile.hpp"
#include "tunekit/core/utf8.hpp"
#include "tunekit/internal/json_text.hpp"
#include "tunekit/store/atomic_file.hpp"
#include "tunekit/tuning/calibration.hpp"
#include "tunekit/tuning/deployment_profile.hpp"

namespace tunekit::cli {
namespace {

std::vector<std::string> child_arguments(const std::string& executable, const CalibrateOptions& o,
                                         const tuning::KernelTuningKey& key, double time_budget_seconds,
                                         const std::filesystem::path& report, const std::filesystem::path& profile) {
  std::vector<std::string> a{executable,
                             "calibrate",
                             "--library",
                             key.library,
                             "--kernel",
                             key.kernel,
                             "--implementation",
                             key.implementation,
                             "--element-type",
                             std::string(core::to_string(key.element_type)),
                             "--time-budget",
                             fmt::format("{}", time_budget_seconds),
                             "--memory-budget",
                             fmt::format("{}", o.memory_budget_mib),
                             "--threads",
                             fmt::format("{}", o.threads),
                             "--seed",
                             fmt::format("{}", o.seed),
                             "--report",
                             report.string()};
  if (!o.profile_path.empty()) {
    a.insert(a.end(), {"--profile-out", profile.string(), "--profile-priority", fmt::format("{}", o.profile_priority)});
  }
  if (o.no_cache) a.push_back("--no-cache");
  if (!o.cache_path.empty()) a.insert(a.end(), {"--cache", o.cache_path});
  if (o.only_missing) a.push_back("--only-missing");
  for (const std::string& folder : o.incumbent_folders) a.insert(a.end(), {"--keep-unless-faster", folder});
  return a;
}

// A scratch folder for the children's reports and profiles, removed at the end.
struct ScratchFolder {
  std::filesystem::path path;
  ScratchFolder() {
    std::error_code ec;
    std::string pattern = (std::filesystem::temp_directory_path(ec) / "tunekit-calibrate-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path = pattern;
  }
  ~ScratchFolder() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

// The child's standard error, less its line about the scratch profile it
// wrote (the parent writes the one the user asked for and says so).
void print_child_errors(const std::string& err, const std::filesystem::path& scratch) {
  const std::string scratch_line = "profile: " + scratch.string();
  std::size_t start = 0;
  while (start < err.size()) {
    std::size_t end = err.find('\n', start);
    end = end == std::string::npos ? err.size() : end + 1;
    const std::string_view line(err.data() + start, end - start);
    if (line.rfind(scratch_line, 0) != 0) std::fwrite(line.data(), 1, line.size(), stderr);
    start = end;
  }
}

}  // namespace

int calibrate_isolated(const CalibrateOptions& o, std::span<const tuning::KernelTuningKey> keys,
                       const platform::CpuExecutionDescriptor& execution,
                       std::optional<std::chrono::steady_clock::time_point> deadline, std::size_t& not_started) {
  not_started = 0;
  const std::string executable = own_executable();
  ScratchFolder scratch;
  if (executable.empty() || scratch.path.empty()) {
    fmt::print(stderr, "tunekit calibrate: --isolate: {}\n",
               executable.empty() ? "this system does not say which program is running"
                                  : "no scratch folder could be made in the temporary folder");
    return kTuningFailure;
  }
  const auto limit = std::chrono::milliseconds(static_cast<std::int64_t>(o.key_timeout_seconds * 1000.0));
  nlohmann::json merged{{"calibrated", nlohmann::json::array()},   {"skipped", nlohmann::json::array()},
                        {"unsupported", nlohmann::json::array()},  {"not_calibrated", nlohmann::json::array()},
                        {"published_generation", 0},               {"build_type", o.build_type.empty() ? "unknown" : o.build_type}};
  std::vector<tuning::KernelTuningProfile> profiles;
  int code = kSuccess;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const tuning::KernelTuningKey& key = keys[i];
    const std::filesystem::path report = scratch.path / fmt::format("{}.json", i);
    const std::filesystem::path profile = scratch.path / fmt::format("{}.toml", i);
    // The run's deadline bounds the key's budget; a key it leaves no time
    // for is not started.
    double key_budget = o.time_budget_seconds;
    if (deadline) {
      const double left = std::chrono::duration<double>(*deadline - std::chrono::steady_clock::now()).count();
      if (left < 0.001) {
        fmt::print("not calibrated: {}  {}\n", key.to_string(), tuning::kRunBudgetSpent);
        merged["not_calibrated"].push_back({{"key", key.to_string()}, {"reason", tuning::kRunBudgetSpent}});
        ++not_started;
        continue;
      }
      key_budget = std::min(key_budget, left);
    }
    const ChildRun run = run_child(child_arguments(executable, o, key, key_budget, report, profile), limit);
    std::fwrite(run.out.data(), 1, run.out.size(), stdout);
    print_child_errors(run.err, scratch.path);
    std::fflush(stdout);
    std::error_code ec;
    const bool reported = run.exited && std::filesystem::exists(report, ec);
    if (!reported) {
      const std::string reason = "isolated calibration " + describe_child_failure(run, limit);
      fmt::print("not calibrated: {}  {}\n", key.to_string(), reason);
      merged["not_calibrated"].push_back({{"key", key.to_string()}, {"reason", reason}});
      if (run.exited) code = std::max(code, run.exit_code);
      continue;
    }
    code = std::max(code, run.exit_code);
    Result<std::string> text = store::read_file(report);
    const nlohmann::json child = text.ok() ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (!child.is_object()) {
      fmt::print(stderr, "tunekit calibrate: the report of {} could not be read back\n", key.to_string());
      code = std::max(code, kTuningFailure);
      continue;
    }
    for (const char* list : {"calibrated", "skipped", "unsupported", "not_calibrated"}) {
      if (child.contains(list) && child[list].is_array()) {
        for (const nlohmann::json& entry : child[list]) merged[list].push_back(entry);
      }
    }
    const bool calibrated = child.contains("calibrated") && child["calibrated"].is_array() && !child["calibrated"].empty();
    // A child that kept every committed value still writes them to its profile.
    if (!o.profile_path.empty() && (calibrated || !o.incumbent_folders.empty())) {
      Result<std::vector<tuning::KernelTuningProfile>> read = tuning::ReadDeploymentProfiles(profile);
      if (read.ok()) {
        profiles.insert(profiles.end(), read->begin(), read->end());
      } else {
        fmt::print(stderr, "tunekit calibrate: {}\n", read.error().message());
        code = std::max(code, kTuningFailure);
      }
    }
  }
  store::AtomicWriteOptions write;
  write.create_parent_folders = true;
  if (!o.report_path.empty()) {
    Error written = store::write_file_atomically(o.report_path, internal::json_text(merged, 2) + "\n", write);
    if (written.is_bad()) {
      fmt::print(stderr, "tunekit calibrate: {}\n", core::replace_invalid_utf8(written.message()));
      code = output_exit_code(written, kTuningFailure);
    }
  }
  if (!o.profile_path.empty()) {
    Error written = store::write_file_atomically(
        o.profile_path, format_processor_profile_file(profiles, execution, o.build_type), write);
    if (written.is_bad()) {
      fmt::print(stderr, "tunekit calibrate: {}\n", core::replace_invalid_utf8(written.message()));
      code = output_exit_code(written, kTuningFailure);
    } else {
      fmt::print(stderr, "profile: {} ({} keys, commit as {}.toml)\n", core::replace_invalid_utf8(o.profile_path),
                 profiles.size(), processor_profile_stem(execution));
    }
  }
  return code;
}

}  // namespace tunekit::cli
