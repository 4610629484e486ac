// Parallel regions that cost nothing when they would run on one thread.
// libgomp spends about 1 us entering and leaving a parallel region even of
// a single thread (num_threads(1) or a false `if` clause; measured on an AMD
// EPYC zen3), as long as a 16 x 8 matmul with its bias or an RMSNorm of one
// row takes; these run the body on the calling thread instead when the team
// is one thread and no parallel region is active. The bodies may use
// orphaned OpenMP constructs (`omp for`, `omp barrier`, omp_get_thread_num()):
// outside a region they bind to the calling thread alone, and inside an
// active one (a batch of products run side by side) a team of one is still
// a region of its own, so that they never refer to the enclosing team. This
// header holds no OpenMP pragma: it behaves the same in a program compiled
// without OpenMP.
#pragma once

#include <cstdint>
#include <type_traits>

namespace tunekit::cpu {

namespace team_detail {
void run_on_team(int threads, void (*body)(void*), void* context);
void parallel_for(int threads, std::int64_t count, void (*body)(void*, std::int64_t), void* context);
}  // namespace team_detail

// body() on each thread of a team of `threads` (the calling thread alone when threads <= 1).
template <typename Body>
void run_on_team(int threads, Body&& body) {
  using B = std::remove_reference_t<Body>;
  team_detail::run_on_team(
      threads, [](void* context) { (*static_cast<B*>(context))(); }, const_cast<std::remove_const_t<B>*>(&body));
}

// body(i) for i in [0, count), split statically (in contiguous ranges) over
// a team of `threads`; in order on the calling thread when threads <= 1 or
// count <= 1.
template <typename Body>
void parallel_for(int threads, std::int64_t count, Body&& body) {
  using B = std::remove_reference_t<Body>;
  team_detail::parallel_for(
      threads, count, [](void* context, std::int64_t i) { (*static_cast<B*>(context))(i); },
      const_cast<std::remove_const_t<B>*>(&body));
}

}  // namespace tunekit::cpu
