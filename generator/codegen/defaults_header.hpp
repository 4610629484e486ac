// The header `tunekit gen-defaults` generates from a tuning spec: one plain
// struct per implementation (member initializers are the portable defaults),
// its TuningBinding, key helpers per kernel and element type, and one
// function that registers every schema of the library. The text depends only
// on the spec's contents, so equal specs give byte-identical headers.
#pragma once

#include <string>

#include "tunekit/core/result.hpp"
#include "tunekit/tuning/tuning_spec.hpp"

namespace tunekit::codegen {

// INVALID_VALUE "<source>:<line>: ..." when two generated names collide (two
// kernels or implementations whose names differ only in case or '_').
Result<std::string> generate_defaults_header(const tuning::TuningSpec& spec);

// "UnaryElementwiseTuning" and "unary_elementwise_binding" for the
// implementation named unary_elementwise.
std::string struct_name(const tuning::TuningSpecImplementation& implementation);
std::string binding_name(const tuning::TuningSpecImplementation& implementation);

// The C++ names the header declares for one kernel of an implementation:
// "<kernel>_<implementation>[_<device>]" in snake case, e.g. abs_openmp_simd.
std::string key_helper_base(const tuning::TuningSpecImplementation& implementation,
                            const tuning::TuningSpecKernel& kernel);

}  // namespace tunekit::codegen
