// Whole-file reads of the small text files that the kernel exposes under
// /proc and /sys, shared by the detection code of this module.
#pragma once

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace tunekit::platform::detail {

// The file's content, or nullopt when it cannot be opened (missing, no
// permission): callers treat both as "not exposed here".
inline std::optional<std::string> read_small_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace tunekit::platform::detail
