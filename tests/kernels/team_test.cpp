// tunekit/cpu/team.hpp: a team of one runs on the calling thread without a
// parallel region, a larger team runs in one, and inside an active region a
// team of one is a region of its own (its thread numbers and barriers never
// refer to the enclosing team).
#include "tunekit/cpu/team.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <mutex>
#include <set>
#include <vector>

namespace tunekit::cpu {
namespace {

TEST(Team, ATeamOfOneRunsOnTheCallingThreadOutsideARegion) {
  int calls = 0;
  bool in_region = true;
  int team = 0;
  run_on_team(1, [&] {
    ++calls;
    in_region = omp_in_parallel() != 0;
    team = omp_get_num_threads();
  });
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(in_region);
  EXPECT_EQ(team, 1);
  run_on_team(0, [&] { ++calls; });
  EXPECT_EQ(calls, 2);
}

TEST(Team, ALargerTeamRunsTheBodyOnEachOfItsThreads) {
  if (omp_get_dynamic() || omp_get_thread_limit() < 3) GTEST_SKIP() << "OpenMP may give a smaller team here";
  std::mutex lock;
  std::multiset<int> seen;
  std::vector<int> sizes;
  run_on_team(3, [&] {
    std::lock_guard<std::mutex> hold(lock);
    seen.insert(omp_get_thread_num());
    sizes.push_back(omp_get_num_threads());
  });
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen, (std::multiset<int>{0, 1, 2}));
  EXPECT_EQ(sizes, (std::vector<int>{3, 3, 3}));
}

TEST(Team, InsideAnActiveRegionATeamOfOneIsARegionOfItsOwn) {
  std::atomic<int> wrong{0}, bodies{0};
#pragma omp parallel num_threads(2)
  {
    run_on_team(1, [&] {
      // The enclosing team's numbers here would say 2 threads (and split
      // the body's work between both, each doing half of its own product).
      if (omp_get_num_threads() != 1 || omp_get_thread_num() != 0) ++wrong;
#pragma omp barrier
      ++bodies;
    });
    parallel_for(1, 3, [&](std::int64_t) {
      if (omp_get_num_threads() != 1) ++wrong;
    });
  }
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(bodies.load(), 2);
}

TEST(Team, ParallelForRunsEveryIndexOnceInContiguousRanges) {
  for (int threads : {0, 1, 2, 3}) {
    for (std::int64_t count : {0, 1, 5, 64}) {
      std::vector<std::atomic<int>> hits(static_cast<std::size_t>(count));
      std::vector<int> owner(static_cast<std::size_t>(count), -1);
      parallel_for(threads, count, [&](std::int64_t i) {
        ++hits[static_cast<std::size_t>(i)];
        owner[static_cast<std::size_t>(i)] = omp_get_thread_num();
      });
      for (std::int64_t i = 0; i < count; ++i) {
        EXPECT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << threads << " threads, index " << i << " of " << count;
        if (i > 0) {
          EXPECT_LE(owner[static_cast<std::size_t>(i - 1)], owner[static_cast<std::size_t>(i)]) << "static ranges";
        }
      }
    }
  }
}

}  // namespace
}  // namespace tunekit::cpu
