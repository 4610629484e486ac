// What the command-line tests of isolation, budgets and `check` share: a
// one-operation graph the delayed-engine driver (check_driver_main.cpp)
// runs, environment variables set for one scope, and a file's text.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace tunekit::testing {

// Y = relu(X), float, 64 x 64, with a shape set "wide" of 64 x 256.
inline constexpr const char* kReluGraph = R"([[tensors]]
name = "X"
uid = 1
dims = [64, 64]
[[tensors]]
name = "Y"
uid = 2
dims = [64, 64]
[[operations]]
kind = "pointwise"
inputs = { IN_0 = "X" }
outputs = { OUT_0 = "Y" }
attributes = { mode = "relu" }
[[shape_sets]]
name = "wide"
dims = { X = [64, 256], Y = [64, 256] }
)";

// Sets environment variables (which the tools the test starts inherit) and
// removes them when it goes out of scope.
class ScopedEnvironment {
 public:
  ScopedEnvironment(std::initializer_list<std::pair<const char*, const char*>> values) {
    for (const auto& [name, value] : values) {
      setenv(name, value, 1);
      names_.emplace_back(name);
    }
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;
  ~ScopedEnvironment() {
    for (const std::string& name : names_) unsetenv(name.c_str());
  }

 private:
  std::vector<std::string> names_;
};

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace tunekit::testing
