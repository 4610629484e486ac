// The tunekit tool: the driver with the kernels of tunekit_cpu and every CPU
// engine provider of this build.
#include "tunekit/cpu/register.hpp"
#include "tunekit/driver/driver.hpp"
#include "tunekit/engines/cpu_engines.hpp"

int main(int argc, char** argv) {
  tunekit::driver::Registrations registrations;
  registrations.build_type = TUNEKIT_KERNELS_BUILD_TYPE;
  registrations.kernels.push_back([](tunekit::tuning::KernelTuningRegistry& registry) {
    tunekit::cpu::register_tunekit_cpu(registry);
  });
  registrations.engines.push_back(tunekit::engines::register_cpu_engines);
  return tunekit::driver::run(argc, argv, registrations);
}
