// Runs the tunekit executable with arguments and captures its exit code,
// standard output and standard error.
#pragma once

#include <string>
#include <vector>

namespace tunekit::testing {

struct ToolRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

ToolRun run_tool(const std::vector<std::string>& arguments);

}  // namespace tunekit::testing
