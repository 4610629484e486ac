// The tunekit driver: everything `tunekit calibrate`, `tunekit tune` and the
// other subcommands do, behind one entry point that takes the registration
// functions of the kernels and engines to work on. The `tunekit` tool is this
// driver with tunekit_cpu registered; the drivers that calibrate_kernels() and
// tune_graph() generate are this driver with a user's functions:
//
//   void register_my_kernels(tunekit::tuning::KernelTuningRegistry&);
//   tunekit::Error register_my_engines(tunekit::graph::EngineRegistry&);
//
//   int main(int argc, char** argv) {
//     return tunekit::driver::run(argc, argv, {.kernels = {register_my_kernels},
//                                              .engines = {register_my_engines}});
//   }
//
// Exit codes: 0 success, 1 a tuning failure, 2 bad usage or bad input, 3 an
// output that could not be written.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tunekit/core/error.hpp"

namespace tunekit::tuning {
class KernelTuningRegistry;
}
namespace tunekit::graph {
class EngineRegistry;
}

namespace tunekit::driver {

// Registers schemas in the registry it is given and calibration functions
// (tuning::RegisterKernelCalibrationFunction) for the kernels it owns.
using KernelRegistration = std::function<void(tuning::KernelTuningRegistry&)>;
// Adds engine providers; an error stops the commands that need engines.
using EngineRegistration = std::function<Error(graph::EngineRegistry&)>;

struct Registrations {
  // The program name in help and error lines.
  std::string program = "tunekit";
  // The build type the registered kernels were compiled in (CMAKE_BUILD_TYPE,
  // "none" for a build without one; the drivers that calibrate_kernels()
  // generates set it). Calibration reports and profiles record it, and
  // `calibrate` warns when it names an unoptimised build (Debug, none).
  // Empty: not known, and not recorded.
  std::string build_type;
  std::vector<KernelRegistration> kernels;
  std::vector<EngineRegistration> engines;
};

// Runs the command line. Kernel registrations run once, before parsing, on
// the process-wide tuning registry; engine registrations run when a command
// needs engines, each time on a fresh engine registry. A registration that
// throws is reported as a tuning failure (exit 1), never an abort.
int run(int argc, char** argv, const Registrations& registrations);

}  // namespace tunekit::driver
