// The epilogue of the CPU matmul engines: C[i, :] += bias, then the
// activation, over a range of rows, with tunekit_cpu's vectorised
// transcendentals (GELU is x/2 * (1 + erf(x / sqrt 2)), as the reference
// pointwise operation computes it).
#pragma once

#include <cstdint>

#include "tunekit/engines/matmul_pattern.hpp"

namespace tunekit::engines {

// Floats of scratch one thread needs for a row of n elements (GELU keeps
// erf's argument and result beside the row).
std::int64_t epilogue_scratch_floats(Activation activation, std::int64_t n) noexcept;

// Applies the epilogue to rows [row_begin, row_end) of c (leading dimension
// ldc) on the calling thread. `scratch` holds epilogue_scratch_floats(...)
// floats (may be null when that is 0).
void apply_epilogue_rows(const MatmulPattern& pattern, const float* bias, float* c, std::int64_t row_begin,
                         std::int64_t row_end, float* scratch);

// Applies the epilogue to every row of c with a team of `threads`; `scratch`
// holds threads * epilogue_scratch_floats(...) floats.
void apply_epilogue(const MatmulPattern& pattern, const float* bias, float* c, int threads, float* scratch);

}  // namespace tunekit::engines
