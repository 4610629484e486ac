// What `tunekit calibrate` was asked, shared by the in-process run and the
// isolated one (calibrate_isolated.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tunekit::cli {

struct CalibrateOptions {
  std::string library;
  std::string device = "cpu";  // "cpu" or "hip": the keys of which device
  std::vector<std::string> kernels;
  std::vector<std::string> implementations;
  std::vector<std::string> element_types;
  bool only_missing = false;
  double time_budget_seconds = 10.0;  // per key
  // Seconds for the whole run (0: none): keys not started when it runs out
  // are not calibrated, and a later run with --only-missing continues.
  double total_time_budget_seconds = 0.0;
  std::size_t memory_budget_mib = 512;
  std::uint32_t threads = 0;
  std::uint64_t seed = 0x7E5EC0DE;
  std::string report_path;
  std::string cache_path;
  bool no_cache = false;
  std::string profile_path;  // write the calibrated keys as this processor's profile
  int profile_priority = 0;
  std::vector<std::string> covering_folders;  // skip keys their profiles cover on this processor
  // Profile folders whose values for this processor each key's calibration
  // starts from and keeps unless a challenger is significantly faster.
  std::vector<std::string> incumbent_folders;
  std::string build_type;                     // of the registered kernels; empty when not known
  // Each key is calibrated in a child process of its own with this time
  // limit, so that a crash or hang in one key's kernels fails that key alone.
  bool isolate = false;
  double key_timeout_seconds = 600.0;
};

}  // namespace tunekit::cli
