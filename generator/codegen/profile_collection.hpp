// The profile inputs of `gen-profiles`: folders and files read in order, a
// later input's profile replacing an earlier input's profile of the same key
// and selector (a freshly calibrated build-tree profile replaces the committed
// one of its processor), and every profile validated against tuning specs in
// a scratch registry, so a bad committed profile fails the build and not the
// program that registers it.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "profiles_header.hpp"
#include "tunekit/core/result.hpp"
#include "tunekit/tuning/tuning_spec.hpp"

namespace tunekit::codegen {

struct ProfileCollection {
  std::vector<SourcedProfile> profiles;  // in input order, replaced ones removed
  // One line each: a folder that does not exist, a replaced profile.
  std::vector<std::string> notes;
};

// Each input is a folder (its *.toml files, not recursive, sorted by file
// name) or a file. A path that does not exist is a folder with no profiles
// (noted) unless its name ends in .toml, when it is a missing file (an error).
// Errors name the file: a file that does not parse (with line and field), and
// with `specs` every reason KernelTuningRegistry::try_register_profiles has
// (no schema for the key, a parameter the schema rejects, a duplicate name, an
// ambiguous pair, then naming the other profile's file too). Without specs
// only the format is checked.
Result<ProfileCollection> collect_profiles(std::span<const std::filesystem::path> inputs,
                                           std::span<const tuning::TuningSpec> specs);

}  // namespace tunekit::codegen
