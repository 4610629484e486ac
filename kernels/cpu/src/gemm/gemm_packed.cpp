// The packed Gemm (BLIS loop order on row-major C): for each tile_n column
// block and tile_k depth block, B is packed once into NR-wide micro-panels
// shared by the team; each task packs a tile_m row block of A into MR-row
// micro-panels and runs the micro-kernel over its B micro-panels (outer) and
// A micro-panels (inner), so a B micro-panel stays in L1 while A streams from
// L2. The streamed-B path packs A whole and reads each B row in place once;
// the row-streamed path (the fewest rows) reads B in its memory order, a few
// whole rows side by side, C's rows kept in cache.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>

#include "gemm_arguments.hpp"
#include "gemm_microkernel.hpp"
#include "gemm_workspace.hpp"
#include "tunekit/cpu/isa.hpp"
#include "tunekit/cpu/team.hpp"

namespace tunekit::cpu {
namespace {

namespace gd = gemm_detail;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept { return (a + b - 1) / b; }
std::int64_t round_up(std::int64_t a, std::int64_t b) noexcept { return ceil_div(a, b) * b; }

thread_local gd::Workspace t_pack_a;
thread_local gd::Workspace t_pack_b;

template <typename T>
struct MicroKernel {
  std::int64_t mr, nr;
  void (*fn)(std::int64_t, const T*, const T*, std::int64_t, T*, std::int64_t, T, T, std::int64_t, const T*, bool);
  void (*pack_a)(const T*, std::int64_t, std::int64_t, T*) noexcept;   // full panels of a plain A
  void (*pack_bt)(const T*, std::int64_t, std::int64_t, T*) noexcept;  // full panels of a transposed B
  void (*row_stream)(std::int64_t, const T*, std::int64_t, const T*, std::int64_t, T*, std::int64_t, std::int64_t);
};

template <typename T>
MicroKernel<T> micro_kernel() noexcept {
  gd::MicroKernels set = gd::portable_microkernels();
#if defined(TUNEKIT_CPU_X86_PATHS)
  switch (active_isa()) {
    case CpuIsa::AVX512: set = gd::avx512_microkernels(); break;
    case CpuIsa::AVX2: set = gd::avx2_microkernels(); break;
    case CpuIsa::PORTABLE: break;
  }
#endif
  if constexpr (sizeof(T) == sizeof(float)) {
    return {set.mr_f32, set.nr_f32, set.f32, set.pack_a_f32, set.pack_bt_f32, set.row_stream_f32};
  } else {
    return {set.mr_f64, set.nr_f64, set.f64, set.pack_a_f64, set.pack_bt_f64, set.row_stream_f64};
  }
}

template <typename T>
struct Problem {
  Transpose ta, tb;
  std::int64_t m, n, k;
  T alpha;
  const T* a;
  std::int64_t lda;
  const T* b;
  std::int64_t ldb;
  T beta;
  T* c;
  std::int64_t ldc;
  // The epilogue (GemmKernel::Epilogue): n values added to every row of C, then max(., 0).
  const T* bias = nullptr;
  bool relu = false;
  bool has_epilogue() const noexcept { return bias != nullptr || relu; }
};

// The epilogue on `rows` x `cols` elements of C at c whose first column is
// column `col` of C: where no micro-kernel applied it in its registers.
// One element of the epilogue: x plus its column's bias (none when null), then ReLU.
template <typename T>
T finished(T x, const T* bias, bool relu) noexcept {
  if (bias != nullptr) x += *bias;
  return relu ? (x > T(0) ? x : T(0)) : x;
}

template <typename T>
void finish_block(const Problem<T>& p, T* c, std::int64_t col, std::int64_t rows, std::int64_t cols) noexcept {
  if (!p.has_epilogue()) return;
  for (std::int64_t i = 0; i < rows; ++i) {
    T* row = c + i * p.ldc;
    for (std::int64_t j = 0; j < cols; ++j) row[j] = finished(row[j], p.bias ? p.bias + col + j : nullptr, p.relu);
  }
}

// Rows [ic, ic + mc) x depth [pc, pc + kc) of op(A) as MR-row micro-panels
// ([kc][mr] each), rows past mc zero.
template <typename T>
void pack_a(const Problem<T>& p, const MicroKernel<T>& u, std::int64_t ic, std::int64_t mc, std::int64_t pc,
            std::int64_t kc, T* out) noexcept {
  const std::int64_t mr = u.mr;
  for (std::int64_t g = 0; g < mc; g += mr) {
    const std::int64_t rows = std::min(mr, mc - g);
    T* dst = out + (g / mr) * kc * mr;
    if (p.ta == Transpose::NO && rows == mr) {
      u.pack_a(p.a + (ic + g) * p.lda + pc, p.lda, kc, dst);
    } else if (p.ta == Transpose::NO) {
      const T* src = p.a + (ic + g) * p.lda + pc;
      for (std::int64_t q = 0; q < kc; ++q) {
        for (std::int64_t i = 0; i < rows; ++i) dst[q * mr + i] = src[i * p.lda + q];
        for (std::int64_t i = rows; i < mr; ++i) dst[q * mr + i] = T(0);
      }
    } else {
      for (std::int64_t q = 0; q < kc; ++q) {
        const T* src = p.a + (pc + q) * p.lda + ic + g;
        for (std::int64_t i = 0; i < rows; ++i) dst[q * mr + i] = src[i];
        for (std::int64_t i = rows; i < mr; ++i) dst[q * mr + i] = T(0);
      }
    }
  }
}

// Depth [pc, pc + kc) x columns [j0, j0 + cols) of op(B) as one [kc][nr]
// micro-panel, columns past cols zero.
template <typename T>
void pack_b_panel(const Problem<T>& p, const MicroKernel<T>& u, std::int64_t pc, std::int64_t kc, std::int64_t j0,
                  std::int64_t cols, T* dst) noexcept {
  const std::int64_t nr = u.nr;
  if (p.tb == Transpose::NO) {
    for (std::int64_t q = 0; q < kc; ++q) {
      std::memcpy(dst + q * nr, p.b + (pc + q) * p.ldb + j0, static_cast<std::size_t>(cols) * sizeof(T));
      for (std::int64_t j = cols; j < nr; ++j) dst[q * nr + j] = T(0);
    }
  } else if (cols == nr) {
    u.pack_bt(p.b + j0 * p.ldb + pc, p.ldb, kc, dst);
  } else {
    for (std::int64_t j = 0; j < cols; ++j) {
      const T* src = p.b + (j0 + j) * p.ldb + pc;
      for (std::int64_t q = 0; q < kc; ++q) dst[q * nr + j] = src[q];
    }
    for (std::int64_t q = 0; q < kc; ++q) {
      for (std::int64_t j = cols; j < nr; ++j) dst[q * nr + j] = T(0);
    }
  }
}

// Micro-panels [q_begin, q_end) of the tile_n block starting at column jc
// (nc columns) for depth [pc, pc + kc). A B that is not transposed is read
// row by row, each row's whole range at once: long contiguous reads that the
// hardware prefetchers follow, where one micro-panel at a time would touch a
// new page for every NR elements.
template <typename T>
void pack_b_panels(const Problem<T>& p, std::int64_t pc, std::int64_t kc, std::int64_t jc, std::int64_t nc,
                   std::int64_t q_begin, std::int64_t q_end, const MicroKernel<T>& u, T* panels) noexcept {
  if (q_begin >= q_end) return;
  const std::int64_t nr = u.nr;
  if (p.tb == Transpose::YES) {
    for (std::int64_t q = q_begin; q < q_end; ++q) {
      pack_b_panel(p, u, pc, kc, jc + q * nr, std::min(nr, nc - q * nr), panels + q * kc * nr);
    }
    return;
  }
  const std::int64_t full_end = std::min(q_end, nc / nr);  // panels with nr real columns
  for (std::int64_t r = 0; r < kc; ++r) {
    const T* src = p.b + (pc + r) * p.ldb + jc;
    for (std::int64_t q = q_begin; q < full_end; ++q) {
      std::memcpy(panels + q * kc * nr + r * nr, src + q * nr, static_cast<std::size_t>(nr) * sizeof(T));
    }
  }
  if (full_end < q_end) {
    const std::int64_t q = full_end;
    pack_b_panel(p, u, pc, kc, jc + q * nr, nc - q * nr, panels + q * kc * nr);
  }
}

// One rows x cols tile of C. The micro-kernel writes the first `rows` rows
// itself; a tile narrower than NR goes through a scratch tile so that the
// micro-kernel never writes outside C. `bias` (the tile's first column's
// value; null: none) and `relu` are the epilogue, given on the tile's last
// depth block only.
template <typename T>
void tile(const MicroKernel<T>& u, std::int64_t kc, const T* ap, const T* bp, std::int64_t rs_b, T* c,
          std::int64_t ldc, std::int64_t rows, std::int64_t cols, T alpha, T beta, const T* bias = nullptr,
          bool relu = false) noexcept {
  if (cols == u.nr) {
    u.fn(kc, ap, bp, rs_b, c, ldc, alpha, beta, rows, bias, relu);
    return;
  }
  alignas(64) T scratch[gd::kMaxTileElements];
  u.fn(kc, ap, bp, rs_b, scratch, u.nr, T(1), T(0), rows, nullptr, false);
  for (std::int64_t i = 0; i < rows; ++i) {
    T* row = c + i * ldc;
    const T* s = scratch + i * u.nr;
    // Rounded as the micro-kernels do: one fma of alpha * AB onto beta * C,
    // then the bias, then ReLU.
    for (std::int64_t j = 0; j < cols; ++j) {
      const T x = beta == T(0) ? alpha * s[j] : std::fma(alpha, s[j], beta * row[j]);
      row[j] = finished(x, bias ? bias + j : nullptr, relu);
    }
  }
}

// C's `rows` x `cols` elements at c times beta (0 when beta is 0, so that a
// NaN there is never read into the result).
template <typename T>
void scale_block(const Problem<T>& p, T* c, std::int64_t rows, std::int64_t cols) noexcept {
  for (std::int64_t i = 0; i < rows; ++i) {
    T* row = c + i * p.ldc;
    for (std::int64_t j = 0; j < cols; ++j) row[j] = p.beta == T(0) ? T(0) : p.beta * row[j];
  }
}

template <typename T>
Error run_packed(const Problem<T>& p, const GemmPackedTuning& config, int threads) {
  const MicroKernel<T> u = micro_kernel<T>();
  std::int64_t mc_max = round_up(std::min(std::max<std::int64_t>(config.algorithm_tile_m, 1), p.m), u.mr);
  if (threads > 1 && ceil_div(p.m, mc_max) >= threads) {
    // As many row blocks as a multiple of the team, of near-equal height, so
    // that no thread gets one block more than another. With fewer rows than
    // one block per thread, the threads split the B micro-panels of one row
    // block instead (below): each panel is then read by one thread and
    // serves all the rows (64 x 11008 x 4096 split into two row blocks ran
    // at 0.55-0.73 of OpenBLAS's speed).
    const std::int64_t blocks = round_up(ceil_div(p.m, mc_max), threads);
    mc_max = round_up(ceil_div(p.m, blocks), u.mr);
  }
  const std::int64_t nc_max = round_up(std::min(std::max<std::int64_t>(config.algorithm_tile_n, 1), p.n), u.nr);
  const std::int64_t kc_max = std::min(std::max<std::int64_t>(config.algorithm_tile_k, 1), p.k);
  const std::int64_t a_elements = mc_max * kc_max;
  const std::size_t a_bytes = static_cast<std::size_t>(a_elements * threads) * sizeof(T);
  const std::size_t b_bytes = static_cast<std::size_t>(nc_max * kc_max) * sizeof(T);
  T* a_buffer = static_cast<T*>(t_pack_a.get(a_bytes));
  if (!a_buffer) return gd::out_of_memory(a_bytes);
  T* b_buffer = static_cast<T*>(t_pack_b.get(b_bytes));
  if (!b_buffer) return gd::out_of_memory(b_bytes);
  const std::int64_t ic_blocks = ceil_div(p.m, mc_max);

  run_on_team(threads, [&] {
    T* my_a = a_buffer + omp_get_thread_num() * a_elements;
    const std::int64_t team = omp_get_num_threads();
    for (std::int64_t jc = 0; jc < p.n; jc += nc_max) {
      const std::int64_t nc = std::min(nc_max, p.n - jc);
      const std::int64_t panels = ceil_div(nc, u.nr);
      // Fewer row blocks than threads: each row block is also split over
      // its B micro-panels (its A block is then packed by several threads).
      const std::int64_t chunks = std::min(panels, std::max<std::int64_t>(1, ceil_div(team, ic_blocks)));
      const std::int64_t tasks = ic_blocks * chunks;
      for (std::int64_t pc = 0; pc < p.k; pc += kc_max) {
        const std::int64_t kc = std::min(kc_max, p.k - pc);
        const T beta = pc == 0 ? p.beta : T(1);
        // The epilogue with the last depth block, when the sums are final.
        const bool last = pc + kc == p.k;
        const bool relu = last && p.relu;
        // Each thread packs the micro-panels its tasks use most (the same
        // static split), then all wait for the whole block.
        pack_b_panels(p, pc, kc, jc, nc, panels * omp_get_thread_num() / team,
                      panels * (omp_get_thread_num() + 1) / team, u, b_buffer);
#pragma omp barrier
        std::int64_t packed_ic = -1;
#pragma omp for schedule(static)
        for (std::int64_t t = 0; t < tasks; ++t) {
          const std::int64_t ic = (t / chunks) * mc_max;
          const std::int64_t chunk = t % chunks;
          const std::int64_t mc = std::min(mc_max, p.m - ic);
          if (ic != packed_ic) {
            pack_a(p, u, ic, mc, pc, kc, my_a);
            packed_ic = ic;
          }
          const std::int64_t q_end = panels * (chunk + 1) / chunks;
          for (std::int64_t q = panels * chunk / chunks; q < q_end; ++q) {
            const std::int64_t j = q * u.nr;
            const std::int64_t cols = std::min(u.nr, nc - j);
            const T* bp = b_buffer + q * kc * u.nr;
            const T* bias = last && p.bias != nullptr ? p.bias + jc + j : nullptr;
            for (std::int64_t ir = 0; ir < mc; ir += u.mr) {
              tile(u, kc, my_a + (ir / u.mr) * kc * u.mr, bp, u.nr, p.c + (ic + ir) * p.ldc + jc + j, p.ldc,
                   std::min(u.mr, mc - ir), cols, p.alpha, beta, bias, relu);
            }
          }
        }
      }
    }
  });
  return Error::ok();
}

// Each thread owns a fixed range of B micro-panels (columns of C) and walks
// K in blocks of streamed_tile_k rows, all its panels per block: the
// panels read each of those B rows left to right, so every row is one
// sequential stream that the hardware prefetchers follow, as long as there
// are few enough of them (a few dozen; one panel striding down all K rows
// would touch a new page at every step).
template <typename T>
Error run_streamed(const Problem<T>& p, const GemmPackedTuning& config, int threads) {
  const MicroKernel<T> u = micro_kernel<T>();
  const std::int64_t kc_max = std::min(std::max<std::int64_t>(config.algorithm_streamed_tile_k, 1), p.k);
  const std::int64_t a_elements = round_up(p.m, u.mr) * p.k;
  const std::int64_t panel_elements = kc_max * u.nr;
  const std::size_t a_bytes = static_cast<std::size_t>(a_elements) * sizeof(T);
  const std::size_t b_bytes = static_cast<std::size_t>(panel_elements * threads) * sizeof(T);
  T* a_buffer = static_cast<T*>(t_pack_a.get(a_bytes));
  if (!a_buffer) return gd::out_of_memory(a_bytes);
  T* b_buffer = static_cast<T*>(t_pack_b.get(b_bytes));
  if (!b_buffer) return gd::out_of_memory(b_bytes);
  pack_a(p, u, 0, p.m, 0, p.k, a_buffer);
  const std::int64_t panels = ceil_div(p.n, u.nr);

  run_on_team(threads, [&] {
    const std::int64_t team = omp_get_num_threads();
    const std::int64_t me = omp_get_thread_num();
    const std::int64_t q_begin = panels * me / team;
    const std::int64_t q_end = panels * (me + 1) / team;
    T* mine = b_buffer + me * panel_elements;
    for (std::int64_t pc = 0; pc < p.k; pc += kc_max) {
      const std::int64_t kc = std::min(kc_max, p.k - pc);
      const T beta = pc == 0 ? p.beta : T(1);
      const bool last = pc + kc == p.k;
      for (std::int64_t q = q_begin; q < q_end; ++q) {
        const std::int64_t j = q * u.nr;
        const std::int64_t cols = std::min(u.nr, p.n - j);
        const T* bias = last && p.bias != nullptr ? p.bias + j : nullptr;
        const T* bp = p.b + pc * p.ldb + j;
        std::int64_t rs_b = p.ldb;
        // A transposed B or the last, partial panel is packed: a micro-kernel
        // reads whole rows of NR contiguous elements.
        if (p.tb == Transpose::YES || cols < u.nr) {
          pack_b_panel(p, u, pc, kc, j, cols, mine);
          bp = mine;
          rs_b = u.nr;
        }
        for (std::int64_t ir = 0; ir < p.m; ir += u.mr) {
          // Packed A is [k][mr] per row group: the block of depth pc starts at pc * mr.
          tile(u, kc, a_buffer + (ir / u.mr) * p.k * u.mr + pc * u.mr, bp, rs_b, p.c + ir * p.ldc + j, p.ldc,
               std::min(u.mr, p.m - ir), cols, p.alpha, beta, bias, last && p.relu);
        }
      }
    }
  });
  return Error::ok();
}

// The bytes of C one row-streamed block keeps in cache: a few rows of a wide
// block fit in L2 beside the B lines in flight on every processor tunekit
// targets (512 KiB and more), and the block is as wide as that allows, for
// long sequential reads of each B row (a 16 KiB block read a LLaMA-sized B
// 1.3x slower than one of 128 KiB on a Zen 3).
constexpr std::int64_t kRowStreamBlockBytes = 96 * 1024;

// Each thread owns a contiguous range of C's columns (whole vector chunks)
// and walks it in blocks: C's block is set to beta * C (zero when beta is 0,
// so that C is only written), then every row of B adds its part once.
template <typename T>
Error run_row_streamed(const Problem<T>& p, int threads) {
  const MicroKernel<T> u = micro_kernel<T>();
  const std::size_t a_bytes = static_cast<std::size_t>(p.m * p.k) * sizeof(T);
  T* packed = static_cast<T*>(t_pack_a.get(a_bytes));
  if (!packed) return gd::out_of_memory(a_bytes);
  // A' = alpha * op(A) as [k][m]: the rows of C that one B row serves side by side.
  for (std::int64_t q = 0; q < p.k; ++q) {
    for (std::int64_t i = 0; i < p.m; ++i) {
      const T x = p.ta == Transpose::NO ? p.a[i * p.lda + q] : p.a[q * p.lda + i];
      packed[q * p.m + i] = p.alpha * x;
    }
  }
  const std::int64_t chunk = u.nr;  // two vectors of the active path
  const std::int64_t width =
      std::max(chunk, kRowStreamBlockBytes / static_cast<std::int64_t>(sizeof(T)) / p.m / chunk * chunk);

  run_on_team(threads, [&] {
    const std::int64_t team = omp_get_num_threads();
    const std::int64_t me = omp_get_thread_num();
    const std::int64_t chunks = ceil_div(p.n, chunk);
    const std::int64_t begin = std::min(p.n, chunks * me / team * chunk);
    const std::int64_t end = std::min(p.n, chunks * (me + 1) / team * chunk);
    for (std::int64_t j = begin; j < end; j += width) {
      const std::int64_t cols = std::min(width, end - j);
      scale_block(p, p.c + j, p.m, cols);
      u.row_stream(p.k, packed, p.m, p.b + j, p.ldb, p.c + j, p.ldc, cols);
      finish_block(p, p.c + j, j, p.m, cols);  // the block is still in L2
    }
  });
  return Error::ok();
}

template <typename T>
Error run_gemm(const GemmKernel& kernel, const Problem<T>& p, GemmPath path, int threads) {
  if (Error e = gd::check_arguments(p.ta, p.tb, p.m, p.n, p.k, p.lda, p.ldb, p.ldc); e.is_bad()) return e;
  if (p.m == 0 || p.n == 0) return Error::ok();
  if (p.alpha == T(0) || p.k == 0) {
    scale_block(p, p.c, p.m, p.n);
    finish_block(p, p.c, 0, p.m, p.n);
    return Error::ok();
  }
  if (path == GemmPath::AUTO) path = kernel.choose_path(p.m, p.n, p.k, p.tb);
  if (path == GemmPath::STREAMED_ROWS && p.tb == Transpose::YES) path = GemmPath::STREAMED_B;
  if (path == GemmPath::STREAMED_ROWS) {
    // A row-streamed product reads all of B however few its rows: its team
    // is chosen as for a product of MR rows (a one-row product of 768 x 3072
    // ran 1.3x faster on two threads than on one).
    return run_row_streamed(p, kernel.team(std::max(p.m, micro_kernel<T>().mr), p.n, p.k, threads));
  }
  const int team = kernel.team(p.m, p.n, p.k, threads);
  return path == GemmPath::STREAMED_B ? run_streamed(p, kernel.config(), team) : run_packed(p, kernel.config(), team);
}

}  // namespace

tuning::KernelTuningKey gemm_key(DataType type) {
  if (type == DataType::FLOAT16 || type == DataType::BFLOAT16) return gemm_widening_key(type);
  return gemm_packed_key(type);
}

GemmRegisterBlock gemm_register_block(DataType type) noexcept {
  if (type == DataType::FLOAT) {
    const MicroKernel<float> u = micro_kernel<float>();
    return {u.mr, u.nr};
  }
  const MicroKernel<double> u = micro_kernel<double>();
  return {u.mr, u.nr};
}

GemmPath GemmKernel::choose_path(std::int64_t m, std::int64_t n, std::int64_t k, Transpose trans_b) const noexcept {
  if (trans_b == Transpose::NO && m <= config_.algorithm_row_stream_m_limit) return GemmPath::STREAMED_ROWS;
  if (m <= config_.algorithm_skinny_m_limit) return GemmPath::STREAMED_B;
  if (trans_b == Transpose::NO && k * n < config_.algorithm_pack_b_minimum_elements) return GemmPath::STREAMED_B;
  return GemmPath::PACKED;
}

int GemmKernel::thread_limit(int threads) const noexcept {
  if (threads > 0) return threads;
  return threads_ > 0 ? threads_ : omp_get_max_threads();
}

int GemmKernel::choose_threads(std::int64_t m, std::int64_t n, std::int64_t k, int maximum) const noexcept {
  if (maximum <= 1) return 1;
  // In double: m * n * k overflows int64 long before memory runs out.
  const double units = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) /
                       static_cast<double>(std::max<std::int64_t>(config_.parallel_fmas_per_work_unit, 1));
  if (units < static_cast<double>(config_.parallel_minimum_tasks) || units < 2.0) return 1;
  return units >= maximum ? maximum : static_cast<int>(units);
}

Error GemmKernel::run(Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                      const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
                      std::int64_t ldc, GemmPath path, int threads) const {
  return run(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, Epilogue{}, path, threads);
}

Error GemmKernel::run(Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                      const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
                      std::int64_t ldc, const Epilogue& epilogue, GemmPath path, int threads) const {
  Problem<float> p{ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc};
  p.bias = epilogue.bias;
  p.relu = epilogue.relu;
  return run_gemm<float>(*this, p, path, threads);
}

Error GemmKernel::run(Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
                      const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c,
                      std::int64_t ldc, GemmPath path, int threads) const {
  return run_gemm<double>(*this, {ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc}, path, threads);
}

}  // namespace tunekit::cpu
