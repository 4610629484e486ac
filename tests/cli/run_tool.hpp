// Runs the tunekit executable (or another program) with arguments and captures its exit code,
// standard output and standard error.
#pragma once

#include <string>
#include <vector>

namespace tunekit::testing {

struct ToolRun {
  int exit_code = -1;  // -1 when the tool did not exit by itself
  int signal = 0;      // the signal that ended it (SIGABRT for an uncaught exception), else 0
  std::string out;
  std::string err;
};

ToolRun run_tool(const std::vector<std::string>& arguments);

// As run_tool, for another executable (a driver built for a test).
ToolRun run_program(const std::string& program, const std::vector<std::string>& arguments);

// As run_tool, with standard output going to `stdout_path` (such as
// /dev/full) instead of being captured; `out` stays empty.
ToolRun run_tool_with_stdout(const std::vector<std::string>& arguments, const std::string& stdout_path);

}  // namespace tunekit::testing
