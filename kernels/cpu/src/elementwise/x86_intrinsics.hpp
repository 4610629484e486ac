// <immintrin.h> for the instruction-set files of the elementwise kernels.
// GCC 12 reports the intrinsics headers' deliberately undefined vectors
// (`__m512i __Y = __Y;` as the pass-through of unmasked forms) as maybe (or
// plainly) uninitialised once inlined deep enough; they are never read, so
// the two warnings are off for the rest of the including file.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
