// The driver's child processes (tune --isolate, calibrate --isolate): exit
// codes, signals, timeouts that kill the whole process group, captured
// output, and programs that cannot start.
#include "child_process.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>

namespace tunekit::cli {
namespace {

using std::chrono::milliseconds;

ChildRun shell(const std::string& script, milliseconds limit = milliseconds(10000)) {
  return run_child({"/bin/sh", "-c", script}, limit);
}

TEST(ChildProcess, ExitCodeAndBothOutputsAreCapturedWhole) {
  // More than a pipe's buffer on each stream, so both must be read as they come.
  const ChildRun run = shell("head -c 200000 /dev/zero | tr '\\0' a; head -c 150000 /dev/zero | tr '\\0' b >&2; exit 3");
  ASSERT_TRUE(run.started) << run.start_error;
  EXPECT_TRUE(run.exited);
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.signal, 0);
  EXPECT_FALSE(run.timed_out);
  EXPECT_EQ(run.out, std::string(200000, 'a'));
  EXPECT_EQ(run.err, std::string(150000, 'b'));
  // The last line of standard error says why, cut to a readable length.
  const std::string why = describe_child_failure(run, milliseconds(10000));
  EXPECT_EQ(why.rfind("exited with code 3: bbbb", 0), 0u) << why.substr(0, 80);
  EXPECT_LE(why.size(), 240u);
}

TEST(ChildProcess, TheLastLineOfStandardErrorSaysWhyAChildExitedBadly) {
  const ChildRun run = shell("echo first >&2; echo 'the reason' >&2; exit 2");
  EXPECT_EQ(describe_child_failure(run, milliseconds(10000)), "exited with code 2: the reason");
}

TEST(ChildProcess, ASignalIsReportedWithItsName) {
  const ChildRun run = shell("kill -SEGV $$");
  EXPECT_FALSE(run.exited);
  EXPECT_EQ(run.signal, SIGSEGV);
  EXPECT_EQ(describe_child_failure(run, milliseconds(10000)), "killed by signal 11 (Segmentation fault)");
  EXPECT_EQ(shell("kill -ABRT $$").signal, SIGABRT);
}

TEST(ChildProcess, ATimeoutKillsTheChildAndWhatItStartedAndReturnsPromptly) {
  const auto start = std::chrono::steady_clock::now();
  // The grandchild keeps the output pipe open: only killing the group ends it.
  const ChildRun run = shell("sleep 30 & echo started; wait", milliseconds(300));
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(run.timed_out);
  EXPECT_EQ(run.signal, SIGKILL);
  EXPECT_EQ(run.out, "started\n");
  EXPECT_LT(took, std::chrono::seconds(5));
  EXPECT_EQ(describe_child_failure(run, milliseconds(300)), "timed out after 0.3 s");
}

TEST(ChildProcess, AChildThatClosesItsOutputsAndHangsStillTimesOut) {
  const ChildRun run = shell("exec >&- 2>&-; sleep 30", milliseconds(300));
  EXPECT_TRUE(run.timed_out);
  EXPECT_FALSE(run.exited);
}

TEST(ChildProcess, AProgramThatDoesNotExistIsNotStarted) {
  const ChildRun run = run_child({"/nonexistent/tunekit-child"}, milliseconds(1000));
  EXPECT_FALSE(run.started);
  EXPECT_EQ(describe_child_failure(run, milliseconds(1000)),
            "could not start: /nonexistent/tunekit-child: No such file or directory");
  EXPECT_FALSE(run_child({}, milliseconds(1000)).started);
}

TEST(ChildProcess, OwnExecutableIsThisTestProgram) {
  const std::string self = own_executable();
  EXPECT_NE(self.find("tunekit_driver_tests"), std::string::npos) << self;
}

}  // namespace
}  // namespace tunekit::cli
