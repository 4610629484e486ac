// The OpenMP side of tunekit/cpu/team.hpp.
#include "tunekit/cpu/team.hpp"

#include <omp.h>

namespace tunekit::cpu::team_detail {
namespace {

// Inside an active parallel region (a batch of products run side by side),
// a team of one is still a region of its own: the body's thread numbers and
// its worksharing constructs and barriers must refer to it, not to the
// enclosing team.
bool runs_alone(int threads) { return threads <= 1 && !omp_in_parallel(); }

}  // namespace

void run_on_team(int threads, void (*body)(void*), void* context) {
  if (runs_alone(threads)) {
    body(context);
    return;
  }
#pragma omp parallel num_threads(threads > 1 ? threads : 1)
  body(context);
}

void parallel_for(int threads, std::int64_t count, void (*body)(void*, std::int64_t), void* context) {
  if (runs_alone(count <= 1 ? 1 : threads)) {
    for (std::int64_t i = 0; i < count; ++i) body(context, i);
    return;
  }
#pragma omp parallel for num_threads(threads > 1 ? threads : 1) schedule(static)
  for (std::int64_t i = 0; i < count; ++i) body(context, i);
}

}  // namespace tunekit::cpu::team_detail
