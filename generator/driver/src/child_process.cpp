#include "child_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace tunekit::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Closes a descriptor once, whatever path leaves the function.
struct Descriptor {
  int fd = -1;
  Descriptor() = default;
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() { close(); }
  void close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

bool make_pipe(Descriptor& read_end, Descriptor& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  read_end.fd = fds[0];
  write_end.fd = fds[1];
  return true;
}

// Milliseconds left before `deadline`, at least 0 and at most an int.
int milliseconds_left(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
}

// Reads what is available on each open descriptor into its text; closes a
// descriptor at end of file. Waits at most `wait_ms` for something to read.
void drain(std::array<Descriptor*, 2> fds, std::array<std::string*, 2> texts, int wait_ms) {
  std::array<pollfd, 2> polled{};
  nfds_t count = 0;
  std::array<int, 2> which{};
  for (int i = 0; i < 2; ++i) {
    if (fds[i]->fd < 0) continue;
    polled[count] = {fds[i]->fd, POLLIN, 0};
    which[count++] = i;
  }
  if (count == 0) return;
  const int ready = ::poll(polled.data(), count, wait_ms);
  if (ready <= 0) return;
  for (nfds_t p = 0; p < count; ++p) {
    if (polled[p].revents == 0) continue;
    char buffer[65536];
    const ssize_t got = ::read(polled[p].fd, buffer, sizeof buffer);
    if (got > 0) {
      texts[which[p]]->append(buffer, static_cast<std::size_t>(got));
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
      fds[which[p]]->close();
    }
  }
}

}  // namespace

ChildRun run_child(const std::vector<std::string>& arguments, std::chrono::milliseconds time_limit) {
  ChildRun run;
  if (arguments.empty()) {
    run.start_error = "no program";
    return run;
  }
  Descriptor out_read, out_write, err_read, err_write;
  if (!make_pipe(out_read, out_write) || !make_pipe(err_read, err_write)) {
    run.start_error = fmt::format("pipe: {}", std::strerror(errno));
    return run;
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_write.fd, STDERR_FILENO);
  // A group of its own, so that a timeout kills whatever the child started.
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attributes, 0);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigfillset(&defaults);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);

  std::vector<std::string> copies = arguments;
  std::vector<char*> argv;
  for (std::string& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = ::posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  out_write.close();
  err_write.close();
  if (spawned != 0) {
    run.start_error = fmt::format("{}: {}", arguments[0], std::strerror(spawned));
    return run;
  }
  run.started = true;

  const Clock::time_point deadline = Clock::now() + time_limit;
  int status = 0;
  bool reaped = false;
  while (!reaped) {
    if (!run.timed_out && Clock::now() >= deadline) {
      run.timed_out = true;
      ::kill(-pid, SIGKILL);
    }
    if (out_read.fd >= 0 || err_read.fd >= 0) {
      // After a timeout the pipes close as the group dies.
      drain({&out_read, &err_read}, {&run.out, &run.err}, run.timed_out ? 100 : std::min(milliseconds_left(deadline), 100));
      continue;
    }
    const pid_t waited = ::waitpid(pid, &status, run.timed_out ? 0 : WNOHANG);
    if (waited == pid) {
      reaped = true;
    } else if (waited < 0 && errno != EINTR) {
      run.start_error = fmt::format("waitpid: {}", std::strerror(errno));
      return run;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min(milliseconds_left(deadline), 5)));
    }
  }
  // A child that closed its outputs and then exited leaves its group behind
  // only when it started others: they die with the group.
  ::kill(-pid, SIGKILL);
  if (WIFEXITED(status)) {
    run.exited = true;
    run.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    run.signal = WTERMSIG(status);
  }
  return run;
}

std::string describe_child_failure(const ChildRun& run, std::chrono::milliseconds time_limit) {
  if (!run.started) return "could not start: " + run.start_error;
  if (run.timed_out) return fmt::format("timed out after {:g} s", static_cast<double>(time_limit.count()) / 1000.0);
  if (run.signal != 0) return fmt::format("killed by signal {} ({})", run.signal, ::strsignal(run.signal));
  std::string text = fmt::format("exited with code {}", run.exit_code);
  // The last line the child printed on standard error says why, as a rule.
  std::string_view err = run.err;
  while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.remove_suffix(1);
  if (const std::size_t start = err.find_last_of('\n'); start != std::string_view::npos) err.remove_prefix(start + 1);
  constexpr std::size_t kLongest = 200;
  if (err.size() > kLongest) {
    text += fmt::format(": {}...", err.substr(0, kLongest));
  } else if (!err.empty()) {
    text += fmt::format(": {}", err);
  }
  return text;
}

std::string own_executable() {
  char path[4096];
  const ssize_t length = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) return {};
  return std::string(path, static_cast<std::size_t>(length));
}

}  // namespace tunekit::cli
