// The epilogue of the CPU matmul engines: C[i, :] += bias, then the
// activation, over a range of rows, with tunekit_cpu's vectorised
// transcendentals (GELU is x/2 * (1 + erf(x / sqrt 2)), as the reference
// pointwise operation computes it).
#pragma once

#include <cstdint>

#include <functional>
#include <memory>

#include "tunekit/engines/matmul_pattern.hpp"
#include "tunekit/engines/pattern_engine.hpp"

namespace tunekit::engines {

// Applies the epilogue to rows [row_begin, row_end) of c (leading dimension
// ldc) on the calling thread, in place.
void apply_epilogue_rows(const MatmulPattern& pattern, const float* bias, float* c, std::int64_t row_begin,
                         std::int64_t row_end);

// Applies the epilogue to every row of c with a team of `threads`.
void apply_epilogue(const MatmulPattern& pattern, const float* bias, float* c, int threads);

// The product C = op(A) x op(B) of one matrix of a pattern (the batch's
// buffers) into buffers.c, on `threads` threads: a library's call.
using MatmulProduct = std::function<Error(const MatmulPattern&, const MatmulBuffers&, int threads)>;

// An engine of the matmul pattern (matched by `match`) whose kernel runs, for
// each batch, `product`, then apply_epilogue on as many threads; no workspace.
// The engines of OpenBLAS
// and BLIS, and tunekit's Gemm-then-epilogue, are this with their own call.
std::shared_ptr<const graph::Engine> product_then_epilogue_engine(graph::EngineDescriptor descriptor,
                                                                  PatternEngine<MatmulPattern>::Match match,
                                                                  MatmulProduct product);

// The product a plan compiles for its knobs and team of `threads` (for
// example BLIS's context of the configuration knob, or libxsmm's JIT kernels
// for the team's blocks of rows), or the reason it cannot.
using MatmulProductForKnobs =
    std::function<Result<MatmulProduct>(const MatmulPattern&, const graph::KnobValues&, int threads)>;

// The same engine whose product is made when a plan compiles, so that its
// cost counts as compile time and its failure fails the compile.
std::shared_ptr<const graph::Engine> product_then_epilogue_engine(graph::EngineDescriptor descriptor,
                                                                  PatternEngine<MatmulPattern>::Match match,
                                                                  MatmulProductForKnobs make_product);

}  // namespace tunekit::engines
