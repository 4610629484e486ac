// The processor profile that a calibration run writes (the profile file
// format of profiles/<library>/*.toml, the same as deployment profiles), and
// the check whether committed profiles already cover this processor.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "tunekit/core/error.hpp"
#include "tunekit/platform/execution_descriptor.hpp"
#include "tunekit/tuning/calibration.hpp"
#include "tunekit/tuning/tuning_profile.hpp"

namespace tunekit::cli {

// A selector that names this processor exactly (architecture, vendor,
// family, model, stepping) and the thread count the values were measured
// with, since parallel crossovers depend on it. The microarchitecture name is
// left out: it follows from the model, and a newer cpuinfo may spell it
// differently.
tuning::CpuSelector exact_processor_selector(const platform::CpuExecutionDescriptor& execution);

// "intel-6-207-2-2t": vendor, family, model, stepping and threads, the file
// name (with ".toml") under which a profile of this processor is committed.
std::string processor_profile_stem(const platform::CpuExecutionDescriptor& execution);

// What a run's profile holds: each calibrated key's values over its
// incumbent's (the committed values calibrate --keep-unless-faster started
// from), and the incumbents of keys that calibrated nothing, unchanged, so
// that rewriting a committed profile loses none of its values. Sorted by key.
std::vector<tuning::KernelTuningParameters> profile_values(std::span<const tuning::CalibratedKey> calibrated,
                                                           std::span<const tuning::KernelTuningParameters> incumbents);

// The values as processor profiles named "<stem>/<key>", each constrained by
// exact_processor_selector(execution) with `priority`.
std::vector<tuning::KernelTuningProfile> processor_profiles(std::span<const tuning::KernelTuningParameters> values,
                                                            const platform::CpuExecutionDescriptor& execution,
                                                            int priority);

// The file text: a comment naming the processor, the build type the kernels
// were measured in (when known: "# build type: Release") and the file name to
// commit it under ("# file name: <stem>.toml", which the <name>-commit target
// of calibrate_kernels() reads), then the profiles. Deterministic.
std::string format_processor_profile_file(std::span<const tuning::KernelTuningProfile> profiles,
                                          const platform::CpuExecutionDescriptor& execution,
                                          const std::string& build_type = {});

// A committed profile that covers a key on this execution: its file and name.
struct Coverage {
  tuning::KernelTuningKey key;
  std::string file;
  std::string profile;
  tuning::KernelTuningParameters parameters;  // the profile's values for the key
};

struct CoverageReport {
  std::vector<Coverage> covered;
  std::vector<tuning::KernelTuningKey> uncovered;
  // Profile files that could not be read: they cover nothing, with the reason.
  std::vector<std::string> unreadable;
};

// For each key, the first profile (files of each folder sorted by name) of
// the key whose selector accepts `execution`. A folder that does not exist
// covers nothing.
CoverageReport find_coverage(std::span<const std::filesystem::path> folders,
                             std::span<const tuning::KernelTuningKey> keys,
                             const platform::CpuExecutionDescriptor& execution);

}  // namespace tunekit::cli
