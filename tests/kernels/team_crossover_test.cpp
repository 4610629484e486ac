// The serial/parallel rule of the Gemm calibrations (src/gemm/team_crossover.hpp).
#include "../../kernels/cpu/src/gemm/team_crossover.hpp"

#include <gtest/gtest.h>

namespace tunekit::cpu::gemm_detail {
namespace {

TEST(TeamCrossover, IsTheSecondOfTwoConsecutiveTeamWins) {
  TeamCrossover search(0.05);
  EXPECT_FALSE(search.record(100, 1.0, 1.2));   // one thread wins
  EXPECT_FALSE(search.record(200, 1.0, 0.97));  // within the margin: not a win
  EXPECT_FALSE(search.record(400, 1.0, 0.90));  // the team wins once
  EXPECT_FALSE(search.crossover().has_value());
  EXPECT_TRUE(search.record(800, 1.0, 0.60));   // and again: done
  EXPECT_EQ(search.crossover(), 800.0);
  EXPECT_TRUE(search.record(1600, 1.0, 2.0));   // later sizes change nothing
  EXPECT_EQ(search.crossover(), 800.0);
}

TEST(TeamCrossover, AWinThatIsNotConfirmedStartsAgain) {
  TeamCrossover search(0.05);
  EXPECT_FALSE(search.record(100, 1.0, 0.5));  // a fluke
  EXPECT_FALSE(search.record(200, 1.0, 1.0));
  EXPECT_FALSE(search.record(400, 1.0, 0.8));
  EXPECT_TRUE(search.record(800, 1.0, 0.7));
  EXPECT_EQ(search.crossover(), 800.0);
  TeamCrossover never(0.05);
  for (double size : {1.0, 2.0, 4.0}) EXPECT_FALSE(never.record(size, 1.0, 0.96));
  EXPECT_FALSE(never.crossover().has_value());
}

TEST(TeamCrossover, KeepsADefaultThatNoMeasurementContradicts) {
  TeamCrossover search(0.05);
  search.record(100, 1.0, 1.2);   // one thread wins
  search.record(200, 1.0, 0.97);  // within the margin
  search.record(400, 1.0, 0.90);
  search.record(800, 1.0, 0.60);
  ASSERT_EQ(search.crossover(), 800.0);
  EXPECT_TRUE(search.keeps(800));
  EXPECT_TRUE(search.keeps(150)) << "above the last one-thread win, below the confirmed crossover";
  EXPECT_FALSE(search.keeps(100)) << "one thread won at 100";
  EXPECT_FALSE(search.keeps(50));
  EXPECT_FALSE(search.keeps(1600)) << "the team is already faster from 800";
  TeamCrossover unconfirmed(0.05);
  unconfirmed.record(100, 1.0, 0.5);
  EXPECT_FALSE(unconfirmed.keeps(100)) << "one win is no crossover";
}

}  // namespace
}  // namespace tunekit::cpu::gemm_detail
