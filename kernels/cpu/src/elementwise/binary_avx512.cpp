// The AVX-512 path of the binary kernels: the loops of binary_loops.inc
// compiled for AVX-512 (F, BW, VL, DQ), FLOAT16 converted 16 at a time.
// Compiled with -mavx512f/bw/vl/dq (kernels/cpu/CMakeLists.txt); run only
// when active_isa() says so.
#include "binary_loops.hpp"
#include "unary_paths.hpp"

#if defined(TUNEKIT_CPU_X86_PATHS)
#include <immintrin.h>

#define TK_BINARY_LOOP _Pragma("omp simd")
#define TK_BINARY_ENTRY binary_segment_avx512
#define TK_BINARY_POW_FLOAT tunekit::cpu::detail::pow_float_avx512
#define TK_BINARY_POW_DOUBLE tunekit::cpu::detail::pow_double_avx512

namespace {

void f16_to_float(const std::uint16_t* in, float* out, std::int64_t n) noexcept {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    // The masked forms: GCC 12 warns about the undefined source of the plain ones.
    _mm512_storeu_ps(out + i, _mm512_maskz_cvtph_ps(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i))));
  }
  for (; i < n; ++i) out[i] = _cvtsh_ss(in[i]);
}
void float_to_f16(const float* in, std::uint16_t* out, std::int64_t n) noexcept {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm512_maskz_cvtps_ph(0xFFFF, _mm512_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  for (; i < n; ++i) out[i] = _cvtss_sh(in[i], _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

#include "binary_loops.inc"
#endif
