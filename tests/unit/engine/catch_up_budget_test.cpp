// How fast the open model may grow its VU pool for arrivals that are already late, on plain
// times.
#include "engine/catch_up_budget.hpp"

#include <gtest/gtest.h>

namespace stampede::engine {
namespace {

TEST(CatchUpBudget, ABurstThenOneEveryInterval) {
  CatchUpBudget budget(kMilli, 3);
  const Nanos t0 = 5 * kSecond;
  EXPECT_TRUE(budget.try_take(t0));
  EXPECT_TRUE(budget.try_take(t0));
  EXPECT_TRUE(budget.try_take(t0));
  EXPECT_FALSE(budget.try_take(t0));
  EXPECT_EQ(budget.next_available(), t0 + kMilli);
  EXPECT_FALSE(budget.try_take(t0 + kMilli - 1));
  EXPECT_TRUE(budget.try_take(t0 + kMilli));
  EXPECT_FALSE(budget.try_take(t0 + kMilli));
  EXPECT_EQ(budget.next_available(), t0 + 2 * kMilli);
}

TEST(CatchUpBudget, UnusedBudgetAccumulatesOnlyUpToTheBurst) {
  CatchUpBudget budget(kMilli, 4);
  const Nanos later = kSecond;  // a thousand intervals unused
  int taken = 0;
  while (budget.try_take(later)) ++taken;
  EXPECT_EQ(taken, 4);
}

TEST(CatchUpBudget, WhileTheBacklogShrinksTheBudgetStaysEmpty) {
  // VUs come free for waiting arrivals whose lag falls: the VUs running are catching up, and
  // no new VU is made for late arrivals.
  CatchUpBudget budget(kMilli, 16);
  Nanos lag = 100 * kMilli;
  int taken = 0;
  for (Nanos t = kSecond; t <= kSecond + 50 * kMilli; t += 100 * kMicro) {
    budget.vu_came_free(t, lag);
    lag -= 10 * kMicro;
    if (t > kSecond + kMilli && budget.try_take(t)) ++taken;  // the first sample only sets the reference
  }
  EXPECT_EQ(taken, 0);
}

TEST(CatchUpBudget, OnceEmptiedNothingComesBackUntilASampleSaysTheBacklogGrows) {
  // Samples come only while arrivals wait for a VU: tens of ms apart, not one per interval.
  CatchUpBudget budget(kMilli, 4);
  const Nanos t0 = 2 * kSecond;
  budget.vu_came_free(t0, 50 * kMilli);
  budget.vu_came_free(t0 + kMilli, 40 * kMilli);  // shrinking: emptied and held
  EXPECT_FALSE(budget.try_take(t0 + 3 * kMilli));
  EXPECT_FALSE(budget.try_take(t0 + 4 * kMilli));  // refilled by now, were it not held
  EXPECT_EQ(budget.next_available(), t0 + 5 * kMilli);
  EXPECT_TRUE(budget.try_take(t0 + 5 * kMilli));  // no news for a full refill's time: it lapses
}

TEST(CatchUpBudget, WhileTheBacklogGrowsTheBudgetComesBackAtItsPace) {
  // VUs come free, but the lag keeps growing (a pool too small for the rate): the pool can
  // still grow by one VU per interval, so it is never stuck at its size.
  CatchUpBudget budget(kMilli, 16);
  const Nanos t0 = kSecond;
  while (budget.try_take(t0)) {
  }
  Nanos lag = 5 * kMilli;
  int taken = 0;
  for (Nanos t = t0; t <= t0 + 100 * kMilli; t += 10 * kMicro) {
    budget.vu_came_free(t, lag);
    lag += 1 * kMicro;
    if (budget.try_take(t)) ++taken;
  }
  EXPECT_EQ(taken, 100);
}

TEST(CatchUpBudget, ALagThatStopsShrinkingLetsTheBudgetRefill) {
  CatchUpBudget budget(kMilli, 4);
  budget.vu_came_free(kSecond, 50 * kMilli);
  budget.vu_came_free(kSecond + kMilli, 40 * kMilli);  // shrinking: emptied
  EXPECT_FALSE(budget.try_take(kSecond + kMilli));
  budget.vu_came_free(kSecond + 2 * kMilli, 45 * kMilli);  // growing again: left alone
  EXPECT_TRUE(budget.try_take(kSecond + 2 * kMilli));
  int taken = 1;
  while (budget.try_take(kSecond + 20 * kMilli)) ++taken;
  EXPECT_EQ(taken, 5);  // the one at +2 ms, then the full burst of 4 by +20 ms
}

TEST(CatchUpBudget, ALoopThatWasHardlyIdleKeepsTheBudgetEmptyWhileTheLagGrows) {
  // The worker is short of CPU, not of VUs: its loop had no moment to wait for replies.
  CatchUpBudget budget(kMilli, 4);
  const Nanos t0 = 2 * kSecond;
  budget.vu_came_free(t0, 10 * kMilli, 0.5);
  EXPECT_FALSE(budget.samples_at(t0 + kMilli - 1));
  EXPECT_TRUE(budget.samples_at(t0 + kMilli));
  budget.vu_came_free(t0 + kMilli, 20 * kMilli, 0.02);  // growing, but the loop was hardly idle
  EXPECT_FALSE(budget.try_take(t0 + kMilli));
  budget.vu_came_free(t0 + 2 * kMilli, 30 * kMilli, 0.0);
  EXPECT_FALSE(budget.try_take(t0 + 2 * kMilli));  // emptied again: nothing comes back
  budget.vu_came_free(t0 + 3 * kMilli, 40 * kMilli, 0.3);  // it waited for replies: VUs are short
  EXPECT_TRUE(budget.try_take(t0 + 3 * kMilli));  // so the budget refills at its pace
  EXPECT_FALSE(budget.try_take(t0 + 3 * kMilli));
}

TEST(CatchUpBudget, TheDefaultsAreSixtyFourThenOneEveryFourMilliseconds) {
  CatchUpBudget budget;
  int taken = 0;
  while (budget.try_take(kSecond)) ++taken;
  EXPECT_EQ(taken, 64);
  EXPECT_EQ(budget.next_available(), kSecond + 4 * kMilli);
}

TEST(CatchUpBudget, TheFirstSecondMayBuildThePoolWithItsAllowanceWhateverTheLagDoes) {
  CatchUpBudget budget(kMilli, 4, 10);
  budget.vu_came_free(100 * kMilli, 50 * kMilli);
  budget.vu_came_free(102 * kMilli, 40 * kMilli);  // shrinking: the bucket is emptied...
  int taken = 0;
  while (budget.try_take(102 * kMilli)) ++taken;
  EXPECT_EQ(taken, 10);  // ...but not the start's allowance
  EXPECT_FALSE(budget.try_take(102 * kMilli));  // spent, and the bucket still empty
}

TEST(CatchUpBudget, TheStartAllowanceEndsWithTheFirstSecond) {
  CatchUpBudget budget(kMilli, 4, 10);
  int taken = 0;
  while (budget.try_take(kSecond)) ++taken;
  EXPECT_EQ(taken, 4);  // the burst only
}

TEST(CatchUpBudget, TheDefaultStartAllowanceMakes512InTheFirstSecond) {
  CatchUpBudget budget;
  int taken = 0;
  while (budget.try_take(10 * kMilli)) ++taken;
  EXPECT_EQ(taken, 512);
}

}  // namespace
}  // namespace stampede::engine
