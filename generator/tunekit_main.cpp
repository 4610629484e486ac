// The tunekit tool: the driver with the kernels and engines of tunekit_cpu.
#include "tunekit/cpu/engines.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/driver/driver.hpp"

int main(int argc, char** argv) {
  tunekit::driver::Registrations registrations;
  registrations.build_type = TUNEKIT_KERNELS_BUILD_TYPE;
  registrations.kernels.push_back([](tunekit::tuning::KernelTuningRegistry& registry) {
    tunekit::cpu::register_tunekit_cpu(registry);
  });
  registrations.engines.push_back(tunekit::cpu::register_reference_engines);
  return tunekit::driver::run(argc, argv, registrations);
}
