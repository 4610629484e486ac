// The progress bar of calibrate and tune (generator/driver/src/progress_bar.hpp):
// its text, and what it writes in either mode.
#include "progress_bar.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <string>

namespace tunekit::cli {
namespace {

TEST(ProgressBar, TheBarShowsDoneTotalElapsedAndTheTimeLeft) {
  EXPECT_EQ(format_progress(0, 12, 0.0, "keys", "tunekit_cpu/Abs", 10),
            "[..........] 0/12 keys  0:00 elapsed  ~? left  tunekit_cpu/Abs");
  // 3 of 12 in 42 s: 14 s each, 9 left.
  EXPECT_EQ(format_progress(3, 12, 42.0, "keys", "", 12), "[###.........] 3/12 keys  0:42 elapsed  ~2:06 left");
  EXPECT_EQ(format_progress(12, 12, 3725.0, "shapes", "done", 4), "[####] 12/12 shapes  1:02:05 elapsed  ~0:00 left  done");
  EXPECT_EQ(format_progress(0, 0, 0.0, "shapes", "", 3), "[###] 0/0 shapes  0:00 elapsed  ~? left");
  EXPECT_EQ(format_duration(59.6), "1:00");
  EXPECT_EQ(format_duration(-3), "0:00");
}

// What a ProgressBar writes, in the mode TUNEKIT_PROGRESS chooses.
std::string written(const char* mode) {
  setenv("TUNEKIT_PROGRESS", mode, 1);
  std::FILE* out = std::tmpfile();
  {
    ProgressBar bar("keys", 2, out);
    bar.start("a");
    bar.finish("a", "calibrated");
    bar.finish("b", "skipped");  // never started
  }
  unsetenv("TUNEKIT_PROGRESS");
  std::string text(static_cast<std::size_t>(std::ftell(out)), '\0');
  std::rewind(out);
  text.resize(std::fread(text.data(), 1, text.size(), out));
  std::fclose(out);
  return text;
}

TEST(ProgressBar, LinesModeWritesALinePerItemAndBarModeRedrawsInPlace) {
  const std::string lines = written("lines");
  EXPECT_EQ(lines.find('\r'), std::string::npos) << lines;
  EXPECT_EQ(lines.rfind("a ...\n", 0), 0u) << lines;
  EXPECT_NE(lines.find("\na calibrated ("), std::string::npos) << lines;
  EXPECT_NE(lines.find("\nb skipped (0 ms)\n"), std::string::npos) << lines;

  const std::string bar = written("bar");
  EXPECT_EQ(bar.rfind("\r[....................] 0/2 keys", 0), 0u) << bar;
  EXPECT_NE(bar.find("\r\x1b[Ka calibrated ("), std::string::npos) << "the bar is cleared before a line: " << bar;
  EXPECT_NE(bar.find("[##########..........] 1/2 keys"), std::string::npos) << bar;
  EXPECT_NE(bar.find("[####################] 2/2 keys"), std::string::npos) << bar;
  EXPECT_EQ(bar.back(), '\n') << "the finished bar ends its line";
}

}  // namespace
}  // namespace tunekit::cli
