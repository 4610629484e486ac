#include "run_tool.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace tunekit::testing {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// stdout_path null: standard output is captured into `out`.
ToolRun run_with(const std::string& program, const std::vector<std::string>& arguments, const char* stdout_path) {
  char out_path[] = "/tmp/tunekit-cli-out-XXXXXX";
  char err_path[] = "/tmp/tunekit-cli-err-XXXXXX";
  const int out_fd = stdout_path ? ::open(stdout_path, O_WRONLY | O_CLOEXEC) : mkstemp(out_path);
  const int err_fd = mkstemp(err_path);
  ToolRun run;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    std::vector<char*> argv;
    std::string tool = program;
    argv.push_back(tool.data());
    std::vector<std::string> copies = arguments;
    for (std::string& a : copies) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(tool.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  close(out_fd);
  close(err_fd);
  if (!stdout_path) {
    run.out = slurp(out_path);
    std::remove(out_path);
  }
  run.err = slurp(err_path);
  std::remove(err_path);
  return run;
}

}  // namespace

ToolRun run_tool(const std::vector<std::string>& arguments) { return run_with(TUNEKIT_TOOL_PATH, arguments, nullptr); }

ToolRun run_program(const std::string& program, const std::vector<std::string>& arguments) {
  return run_with(program, arguments, nullptr);
}

ToolRun run_tool_with_stdout(const std::vector<std::string>& arguments, const std::string& stdout_path) {
  return run_with(TUNEKIT_TOOL_PATH, arguments, stdout_path.c_str());
}

}  // namespace tunekit::testing
