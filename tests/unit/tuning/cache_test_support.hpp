// Shared by the cache tests: a scratch folder, whole-file helpers, and
// calibrated Gemm profiles for the hand-built processors of tuning_fixtures.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tuning_fixtures.hpp"
#include "tunekit/tuning/kernel_tuning_cache.hpp"

namespace tunekit::tuning::testing {

class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tunekit-cache-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// A calibrated Gemm profile: tile_k and pack_ratio vary, the rest is typed
// values of every kind.
inline CalibratedKernelProfile calibrated(DataType type, const platform::CpuExecutionDescriptor& execution,
                                          std::int64_t tile_k = 128, double pack_ratio = 1.0,
                                          std::string name = {}) {
  CalibratedKernelProfile p;
  p.name = std::move(name);
  p.parameters = params(gemm_key(type), {{"algorithm.tile_k", tile_k},
                                         {"algorithm.pack_ratio", pack_ratio},
                                         {"algorithm.prepack", false},
                                         {"algorithm.kind", "packed"}});
  p.execution = execution;
  p.report_digest = "digest-" + std::to_string(tile_k);
  p.library_version = "1.4.0";
  return p;
}

}  // namespace tunekit::tuning::testing
