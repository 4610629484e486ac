// What calibration's timing logs: the shared measurement core writes its
// lines in the calibrate: category when calibration drives it.
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tunekit/core/log.hpp"
#include "tunekit/tuning/calibration.hpp"

namespace tunekit::tuning {
namespace {

class DebugLog {
 public:
  DebugLog() : saved_(log::level()) {
    log::set_level(log::Level::DEBUG);
    log::set_sink([this](log::Level, std::string_view message) {
      std::lock_guard lock(mutex_);
      lines_.emplace_back(message);
    });
  }
  ~DebugLog() {
    log::set_sink(nullptr);
    log::set_level(saved_);
  }
  std::vector<std::string> lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }

 private:
  log::Level saved_;
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

TEST(MeasureRepetitions, MeasurementLinesAreInTheCalibrateCategory) {
  DebugLog captured;
  int runs = 0;
  Result<std::vector<double>> samples = measure_repetitions([&] {
    ++runs;
    return Error::ok();
  }, 5);
  ASSERT_TRUE(samples.ok()) << samples.error().message();
  EXPECT_EQ(samples->size(), 5u);
  const std::vector<std::string> lines = captured.lines();
  int batch_lines = 0;
  for (const auto& line : lines) {
    EXPECT_EQ(line.rfind("calibrate:", 0), 0u) << line;
    if (line.find(" batch size ") != std::string::npos) ++batch_lines;
  }
  EXPECT_EQ(batch_lines, 1);  // one batch-size choice per measurement
}

}  // namespace
}  // namespace tunekit::tuning
