// Reads, replaces and validates profiles for gen-profiles.
#include "profile_collection.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "tunekit/tuning/deployment_profile.hpp"
#include "tunekit/tuning/kernel_tuning_registry.hpp"

namespace tunekit::codegen {
namespace {

namespace fs = std::filesystem;
using tuning::KernelTuningProfile;

struct Collected {
  std::size_t input = 0;
  SourcedProfile sourced;
};

// The files of one input, or an error naming it; nullopt for a folder that
// does not exist.
Result<std::optional<std::vector<fs::path>>> input_files(const fs::path& input) {
  std::error_code ec;
  const fs::file_status status = fs::status(input, ec);
  if (fs::is_directory(status)) {
    Result<std::vector<fs::path>> files = tuning::ListProfileFiles(input);
    if (!files.ok()) return files.error();
    return std::optional<std::vector<fs::path>>(std::move(*files));
  }
  if (fs::exists(status) || input.extension() == ".toml") {
    return std::optional<std::vector<fs::path>>(std::vector<fs::path>{input});  // the reader names a missing file
  }
  return std::optional<std::vector<fs::path>>();
}

// The earlier profile a rejected one conflicts with: the same name, or an
// ambiguous profile of its key (the registry's two reasons that name another).
const Collected* conflicting(std::span<const Collected> earlier, const KernelTuningProfile& p) {
  for (const Collected& c : earlier) {
    if (c.sourced.profile.name == p.name) return &c;
  }
  for (const Collected& c : earlier) {
    const KernelTuningProfile& o = c.sourced.profile;
    if (o.parameters.key == p.parameters.key && o.priority == p.priority &&
        tuning::specificity(o.selector) == tuning::specificity(p.selector) && tuning::may_overlap(o.selector, p.selector)) {
      return &c;
    }
  }
  return nullptr;
}

Error validate(std::span<const Collected> collected, std::span<const tuning::TuningSpec> specs) {
  tuning::KernelTuningRegistry scratch;
  for (const tuning::TuningSpec& spec : specs) {
    for (const tuning::KernelTuningSchema& schema : spec.schemas()) {
      if (Error e = scratch.try_register_schema(schema); e.is_bad()) {
        return Error(ErrorCode::INVALID_VALUE, fmt::format("{}: {}", spec.source, e.message()));
      }
    }
  }
  // One profile at a time, in input order, so that the error blames the
  // later file of a conflicting pair; the registry's rules are pairwise, so
  // this accepts exactly what one registration of all of them accepts.
  for (std::size_t i = 0; i < collected.size(); ++i) {
    const SourcedProfile& s = collected[i].sourced;
    Error e = scratch.try_register_profiles({s.profile});
    if (e.is_good()) continue;
    std::string message = fmt::format("{}: {}", s.source.string(), e.message());
    if (const Collected* other = conflicting(collected.first(i), s.profile)) {
      message += fmt::format(" (profile {} is in {})", other->sourced.profile.name, other->sourced.source.string());
    }
    return Error(ErrorCode::INVALID_VALUE, std::move(message));
  }
  return Error::ok();
}

}  // namespace

Result<ProfileCollection> collect_profiles(std::span<const fs::path> inputs, std::span<const tuning::TuningSpec> specs) {
  ProfileCollection result;
  std::vector<Collected> collected;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Result<std::optional<std::vector<fs::path>>> files = input_files(inputs[i]);
    if (!files.ok()) return files.error();
    if (!files->has_value()) {
      result.notes.push_back(fmt::format("{}: no such folder, so no profiles from it", inputs[i].string()));
      continue;
    }
    for (const fs::path& file : **files) {
      Result<std::vector<KernelTuningProfile>> read = tuning::ReadDeploymentProfiles(file);
      if (!read.ok()) return read.error();
      for (KernelTuningProfile& profile : *read) {
        auto replaced = [&](const Collected& c) {
          const KernelTuningProfile& o = c.sourced.profile;
          if (c.input >= i || o.parameters.key != profile.parameters.key || o.selector != profile.selector) return false;
          result.notes.push_back(fmt::format("{}: profile {} replaces profile {} of {} (key {}, selector {})",
                                             file.string(), profile.name, o.name, c.sourced.source.string(),
                                             profile.parameters.key.to_string(), profile.selector.to_string()));
          return true;
        };
        std::erase_if(collected, replaced);
        collected.push_back({i, {file, std::move(profile)}});
      }
    }
  }
  if (!specs.empty()) TUNEKIT_RETURN_IF_ERROR(validate(collected, specs));
  for (Collected& c : collected) result.profiles.push_back(std::move(c.sourced));
  return result;
}

}  // namespace tunekit::codegen
