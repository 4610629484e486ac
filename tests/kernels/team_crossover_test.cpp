// The serial/parallel rule of the Gemm calibrations (src/gemm/team_crossover.hpp).
#include "../../kernels/cpu/src/gemm/team_crossover.hpp"

#include <gtest/gtest.h>

namespace tunekit::cpu::gemm_detail {
namespace {

using tuning::ProbeVerdict;
constexpr ProbeVerdict kTeam = ProbeVerdict::CANDIDATE_WINS;
constexpr ProbeVerdict kOneThread = ProbeVerdict::BASELINE_WINS;
constexpr ProbeVerdict kOverlap = ProbeVerdict::OVERLAP;

TEST(TeamCrossover, IsTheSecondOfTwoConsecutiveTeamWins) {
  TeamCrossover search;
  EXPECT_FALSE(search.record(100, kOneThread));   // one thread wins
  EXPECT_FALSE(search.record(200, kOverlap));  // a tie or undecided: not a win
  EXPECT_FALSE(search.record(400, kTeam));  // the team wins once
  EXPECT_FALSE(search.crossover().has_value());
  EXPECT_TRUE(search.record(800, kTeam));   // and again: done
  EXPECT_EQ(search.crossover(), 800.0);
  EXPECT_TRUE(search.record(1600, kOneThread));   // later sizes change nothing
  EXPECT_EQ(search.crossover(), 800.0);
}

TEST(TeamCrossover, AWinThatIsNotConfirmedStartsAgain) {
  TeamCrossover search;
  EXPECT_FALSE(search.record(100, kTeam));  // a fluke
  EXPECT_FALSE(search.record(200, kOverlap));
  EXPECT_FALSE(search.record(400, kTeam));
  EXPECT_TRUE(search.record(800, kTeam));
  EXPECT_EQ(search.crossover(), 800.0);
  TeamCrossover never;
  for (double size : {1.0, 2.0, 4.0}) EXPECT_FALSE(never.record(size, kOverlap));
  EXPECT_FALSE(never.crossover().has_value());
}

TEST(TeamCrossover, KeepsADefaultThatNoMeasurementContradicts) {
  TeamCrossover search;
  search.record(100, kOneThread);   // one thread wins
  search.record(200, kOverlap);  // a tie or undecided
  search.record(400, kTeam);
  search.record(800, kTeam);
  ASSERT_EQ(search.crossover(), 800.0);
  EXPECT_TRUE(search.keeps(800));
  EXPECT_TRUE(search.keeps(150)) << "above the last one-thread win, below the confirmed crossover";
  EXPECT_FALSE(search.keeps(100)) << "one thread won at 100";
  EXPECT_FALSE(search.keeps(50));
  EXPECT_FALSE(search.keeps(1600)) << "the team is already faster from 800";
  TeamCrossover unconfirmed;
  unconfirmed.record(100, kTeam);
  EXPECT_FALSE(unconfirmed.keeps(100)) << "one win is no crossover";
}

TEST(TeamCrossover, AOneThreadWinAtOrAboveAThresholdContradictsIt) {
  TeamCrossover search;
  search.record(100, kOverlap);
  search.record(200, kOneThread);
  search.record(400, kOverlap);
  EXPECT_FALSE(search.crossover().has_value());
  EXPECT_TRUE(search.contradicts(150)) << "one thread won at 200, where 150 would run the team";
  EXPECT_TRUE(search.contradicts(200));
  EXPECT_FALSE(search.contradicts(300)) << "nothing won at or above 300";
  TeamCrossover nothing_won;
  nothing_won.record(100, kOverlap);
  EXPECT_FALSE(nothing_won.contradicts(1));
}

}  // namespace
}  // namespace tunekit::cpu::gemm_detail
