// The path and team rules the unary and binary elementwise kernels share,
// checked on either kernel type (Kernel constructed from an operation and a
// Tuning with simd_min_elements, parallel_minimum_elements, maximum_threads).
#pragma once

#include <gtest/gtest.h>

#include "support/openmp_thread_limit.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"

namespace tunekit::cpu {

template <class Kernel, class Tuning, class Op>
void expect_path_follows_the_thresholds(Op op) {
  const tunekit::testing::OpenMpThreadLimit limit(4);
  Tuning config;
  config.simd_min_elements = 32;
  config.parallel_minimum_elements = 4096;
  config.maximum_threads = 4;
  const Kernel kernel(op, config);
  EXPECT_EQ(kernel.choose_path(31), ExecutionPath::SERIAL_SCALAR);
  EXPECT_EQ(kernel.choose_path(32), ExecutionPath::SERIAL_SIMD);
  EXPECT_EQ(kernel.choose_path(4095), ExecutionPath::SERIAL_SIMD);
  EXPECT_EQ(kernel.choose_path(4096), ExecutionPath::PARALLEL_SIMD);
  config.maximum_threads = 1;
  EXPECT_EQ(Kernel(op, config).choose_path(1 << 20), ExecutionPath::SERIAL_SIMD);
}

template <class Kernel, class Tuning, class Op>
void expect_team_capped_at_the_openmp_limit(Op op) {
  Tuning config;
  config.simd_min_elements = 32;
  config.parallel_minimum_elements = 4096;
  config.maximum_threads = 8;
  const Kernel kernel(op, config);
  {
    const tunekit::testing::OpenMpThreadLimit limit(3);
    EXPECT_EQ(kernel.team(), 3);
    EXPECT_EQ(kernel.team(5), 5) << "a team the caller names is not capped";
    EXPECT_EQ(kernel.choose_path(4096), ExecutionPath::PARALLEL_SIMD);
    config.maximum_threads = 2;
    EXPECT_EQ(Kernel(op, config).team(), 2);
  }
  const tunekit::testing::OpenMpThreadLimit limit(1);
  EXPECT_EQ(kernel.team(), 1);
  EXPECT_EQ(kernel.choose_path(1 << 20), ExecutionPath::SERIAL_SIMD) << "one thread: nothing to parallelise";
}

}  // namespace tunekit::cpu
