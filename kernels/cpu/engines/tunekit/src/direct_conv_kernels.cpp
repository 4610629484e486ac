// Chooses the direct convolution's tiles of an instruction-set path.
#include "direct_conv_kernels.hpp"

namespace tunekit::engines::detail {

const DirectConvKernels& direct_conv_kernels(cpu::CpuIsa isa) noexcept {
#if defined(TUNEKIT_CPU_X86_PATHS)
  switch (isa) {
    case cpu::CpuIsa::AVX512: return direct_conv_kernels_avx512();
    case cpu::CpuIsa::AVX2: return direct_conv_kernels_avx2();
    case cpu::CpuIsa::PORTABLE: break;
  }
#else
  (void)isa;
#endif
  return direct_conv_kernels_portable();
}

}  // namespace tunekit::engines::detail
