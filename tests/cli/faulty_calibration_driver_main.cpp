// The tunekit tool's kernels (tunekit_cpu), except that the calibration of
// the kernel named by TUNEKIT_TEST_CRASH_KERNEL raises SIGSEGV and that of
// TUNEKIT_TEST_HANG_KERNEL never returns, for the tests of
// `calibrate --isolate`.
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>

#include "tunekit/cpu/register.hpp"
#include "tunekit/driver/driver.hpp"
#include "tunekit/tuning/calibration.hpp"

namespace {

using namespace tunekit;

std::string environment(const char* name) {
  const char* text = std::getenv(name);
  return text ? text : "";
}

void register_faulty_kernels(tuning::KernelTuningRegistry& registry) {
  cpu::register_tunekit_cpu(registry);
  const std::string crash = environment("TUNEKIT_TEST_CRASH_KERNEL");
  const std::string hang = environment("TUNEKIT_TEST_HANG_KERNEL");
  tuning::KernelCalibrationRegistry& functions = tuning::KernelCalibrationRegistry::global();
  for (const tuning::KernelCalibrationRegistry::Entry& entry : functions.entries()) {
    if (entry.key.kernel == crash) {
      functions.register_function(entry.key, [](const tuning::KernelTuningKey& key, tuning::CalibrationContext&) {
        std::raise(SIGSEGV);
        return tuning::KernelTuningParameters{key, {}};
      }, entry.library_version);
    } else if (entry.key.kernel == hang) {
      functions.register_function(entry.key, [](const tuning::KernelTuningKey& key, tuning::CalibrationContext&) {
        for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
        return tuning::KernelTuningParameters{key, {}};
      }, entry.library_version);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  tunekit::driver::Registrations registrations;
  registrations.program = "tunekit-faulty-calibration-test";
  registrations.kernels.push_back(register_faulty_kernels);
  return tunekit::driver::run(argc, argv, registrations);
}
