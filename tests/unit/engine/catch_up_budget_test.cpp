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

TEST(CatchUpBudget, TheDefaultsAreSixtyFourThenOneEveryFourMilliseconds) {
  CatchUpBudget budget;
  int taken = 0;
  while (budget.try_take(kSecond)) ++taken;
  EXPECT_EQ(taken, 64);
  EXPECT_EQ(budget.next_available(), kSecond + 4 * kMilli);
}

}  // namespace
}  // namespace stampede::engine
