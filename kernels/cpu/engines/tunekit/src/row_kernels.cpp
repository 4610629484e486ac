// Chooses the row loops of the active instruction-set path.
#include "row_kernels.hpp"

namespace tunekit::engines::detail {

const RowKernels& row_kernels(cpu::CpuIsa isa) noexcept {
#if defined(TUNEKIT_CPU_X86_PATHS)
  switch (isa) {
    case cpu::CpuIsa::AVX512: return row_kernels_avx512();
    case cpu::CpuIsa::AVX2: return row_kernels_avx2();
    case cpu::CpuIsa::PORTABLE: break;
  }
#else
  (void)isa;
#endif
  return row_kernels_portable();
}

const RowKernels& row_kernels() noexcept { return row_kernels(cpu::active_isa()); }

}  // namespace tunekit::engines::detail
