// Sets OpenMP's thread limit (omp_set_num_threads) for a scope and puts the
// previous one back: the kernels cap their teams at it, so a test names the
// limit it needs instead of depending on the machine's core count.
#pragma once

#include <omp.h>

namespace tunekit::testing {

class OpenMpThreadLimit {
 public:
  explicit OpenMpThreadLimit(int threads) : previous_(omp_get_max_threads()) { omp_set_num_threads(threads); }
  ~OpenMpThreadLimit() { omp_set_num_threads(previous_); }
  OpenMpThreadLimit(const OpenMpThreadLimit&) = delete;
  OpenMpThreadLimit& operator=(const OpenMpThreadLimit&) = delete;

 private:
  int previous_;
};

}  // namespace tunekit::testing
