// The tunekit tool's kernels (tunekit_cpu), except that the calibration of
// the kernel named by TUNEKIT_TEST_CRASH_KERNEL raises SIGSEGV and that of
// TUNEKIT_TEST_HANG_KERNEL never returns, for the tests of
// `calibrate --isolate`; and that of TUNEKIT_TEST_SCRIPTED_KERNEL finds the
// parallel.minimum_elements crossover of two scripted paths whose costs
// cross near 5,600 elements (a fixed 100 us against 18 ns per element more),
// through the shared crossover calibration, for the tests of
// `calibrate --keep-unless-faster` and `check --profiles`; and that of each
// kernel of TUNEKIT_TEST_SLEEP_KERNELS (comma separated) sleeps 600 ms or
// its key's whole time budget, whichever is shorter, then returns
// simd_min_elements = 16, for the tests of `calibrate --total-time-budget`.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>

#include "tunekit/cpu/register.hpp"
#include "tunekit/driver/driver.hpp"
#include "tunekit/tuning/calibration.hpp"
#include "tunekit/tuning/crossover_calibration.hpp"

namespace {

using namespace tunekit;

std::string environment(const char* name) {
  const char* text = std::getenv(name);
  return text ? text : "";
}

// Whether `name` is one of the comma-separated names of `list`.
bool listed(const std::string& list, const std::string& name) {
  for (std::size_t start = 0; start <= list.size();) {
    std::size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    if (list.compare(start, end - start, name) == 0) return true;
    start = end + 1;
  }
  return false;
}

void spin_for(std::chrono::nanoseconds duration) {
  const auto end = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < end) {
  }
}

// out = |a|, then a wait of fixed + per_element * size.
tuning::CalibrationPath scripted_path(std::string name, std::chrono::nanoseconds fixed,
                                      std::chrono::nanoseconds per_element) {
  return {std::move(name), 1, [=](tuning::CalibrationProblem& p) {
            const float* a = p.inputs[0].as<float>();
            float* out = p.output.as<float>();
            for (std::int64_t i = 0; i < p.size; ++i) out[i] = a[i] < 0 ? -a[i] : a[i];
            spin_for(fixed + per_element * p.size);
            return Error::ok();
          }};
}

tuning::KernelTuningParameters calibrate_scripted(const tuning::KernelTuningKey& key,
                                                  tuning::CalibrationContext& context) {
  tuning::KernelTuningParameters values{key, {}};
  tuning::CrossoverCalibration spec;
  spec.parameter = "parallel.minimum_elements";
  spec.minimum_size = 256;
  spec.maximum_size = 1 << 16;
  spec.portable_default = 1 << 20;
  spec.operand_shapes = [](std::int64_t size) { return std::vector<tuning::Shape>{{size}}; };
  spec.reference = scripted_path("serial", {}, {});
  spec.baseline = scripted_path("serial", {}, std::chrono::nanoseconds(20));
  spec.candidate = scripted_path("scripted", std::chrono::microseconds(100), std::chrono::nanoseconds(2));
  tuning::calibrate_crossover(context, spec, values);
  return values;
}

tuning::KernelTuningParameters calibrate_by_sleeping(const tuning::KernelTuningKey& key,
                                                     tuning::CalibrationContext& context) {
  std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(std::chrono::milliseconds(600),
                                                                  context.options.time_budget));
  context.reporter.select("algorithm.simd_min_elements", Value(std::int64_t{16}), "slept");
  return {key, {{"algorithm.simd_min_elements", Value(std::int64_t{16})}}};
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
    } else if (listed(environment("TUNEKIT_TEST_SLEEP_KERNELS"), entry.key.kernel) &&
               entry.key.element_type == DataType::FLOAT) {
      functions.register_function(entry.key, calibrate_by_sleeping, entry.library_version);
    } else if (entry.key.kernel == environment("TUNEKIT_TEST_SCRIPTED_KERNEL") &&
               entry.key.element_type == DataType::FLOAT) {
      functions.register_function(entry.key, calibrate_scripted, entry.library_version);
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
