// The header `tunekit gen-profiles` generates from processor profile files:
// one inline function that builds every profile as C++ values and registers
// them all in one try_register_profiles call, so committed profiles need no
// TOML parsing or file I/O at run time. The text depends only on the
// profiles and the names chosen for the function, so equal inputs give
// byte-identical headers.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "tunekit/core/result.hpp"
#include "tunekit/tuning/tuning_profile.hpp"

namespace tunekit::codegen {

// A profile and the file it was read from (the header names only the file
// name; errors name the whole path).
struct SourcedProfile {
  std::filesystem::path source;
  tuning::KernelTuningProfile profile;
};

struct ProfilesHeaderOptions {
  std::string cpp_namespace = "tunekit_profiles";  // "a::b" allowed
  std::string function = "register_processor_profiles";
};

// The constexpr profile count the header declares next to `function`:
// "register_processor_profiles" -> "kProcessorProfilesCount" (a leading
// "register_" is dropped), "load_mine" -> "kLoadMineCount".
std::string profile_count_name(std::string_view function);

// Profiles are emitted sorted by key, then name. INVALID_VALUE when the
// namespace or function is not a C++ name, or a parameter is a double that no
// C++ literal spells (inf, nan), naming the file, profile and parameter.
Result<std::string> generate_profiles_header(std::span<const SourcedProfile> profiles,
                                             const ProfilesHeaderOptions& options);

}  // namespace tunekit::codegen
