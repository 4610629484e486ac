// The AVX2 (FMA, F16C) path of the binary kernels: the loops of
// binary_loops.inc compiled for AVX2, FLOAT16 converted with F16C.
// Compiled with -mavx2 -mfma -mf16c (kernels/cpu/CMakeLists.txt); run only
// when active_isa() says so.
#include "binary_loops.hpp"
#include "unary_paths.hpp"

#if defined(TUNEKIT_CPU_X86_PATHS)
#include <immintrin.h>

#define TK_BINARY_LOOP _Pragma("omp simd")
#define TK_BINARY_ENTRY binary_segment_avx2
#define TK_BINARY_POW_FLOAT tunekit::cpu::detail::pow_float_avx2
#define TK_BINARY_POW_DOUBLE tunekit::cpu::detail::pow_double_avx2

namespace {

void f16_to_float(const std::uint16_t* in, float* out, std::int64_t n) noexcept {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
  }
  for (; i < n; ++i) out[i] = _cvtsh_ss(in[i]);
}
void float_to_f16(const float* in, std::uint16_t* out, std::int64_t n) noexcept {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  for (; i < n; ++i) out[i] = _cvtss_sh(in[i], _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

#include "binary_loops.inc"
#endif
