// Runs a program as a child process with a time limit and captures what it
// prints, so that a crash, a hang or an abort in the child is a result the
// caller reports instead of the end of the caller (tune --isolate).
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace tunekit::cli {

struct ChildRun {
  bool started = false;   // false: the program could not be started (start_error says why)
  bool exited = false;    // it exited by itself; exit_code is then its status
  int exit_code = -1;
  int signal = 0;         // the signal that ended it, else 0 (SIGKILL after a timeout too)
  bool timed_out = false; // the time limit ran out and the child's process group was killed
  std::string out;        // its standard output and error, whole
  std::string err;
  std::string start_error;
};

// Starts `arguments` (the program's path first; no shell) in a process group
// of its own, reads its standard output and error until both close and waits
// for it. When `time_limit` runs out first, the whole group is killed with
// SIGKILL (threads and grandchildren included) and timed_out is set. The
// child inherits the environment and standard input is /dev/null.
ChildRun run_child(const std::vector<std::string>& arguments, std::chrono::milliseconds time_limit);

// "killed by signal 11 (Segmentation fault)", "timed out after 2.5 s",
// "exited with code 1" or "could not start: ..." (the last line of
// standard error follows an exit code when there is one).
std::string describe_child_failure(const ChildRun& run, std::chrono::milliseconds time_limit);

// The path of the running executable (/proc/self/exe), so that a driver can
// start itself; empty when the system does not say.
std::string own_executable();

}  // namespace tunekit::cli
