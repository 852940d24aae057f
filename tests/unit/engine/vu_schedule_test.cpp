#include "engine/vu_schedule.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace stampede::engine {
namespace {

LoadShape stages(std::initializer_list<Stage> s, double start = 0) {
  LoadShape shape;
  shape.start = start;
  shape.stages = s;
  return shape;
}

TEST(VuSchedule, FlatStageHoldsItsLevel) {
  VuSchedule s(stages({{10 * kSecond, 5}}, 5));
  EXPECT_EQ(s.vus_at(0), 5);
  EXPECT_EQ(s.vus_at(9 * kSecond), 5);
  EXPECT_FALSE(s.next_change_after(0).has_value());
}

TEST(VuSchedule, RampUpAddsOneVuPerStepExactly) {
  VuSchedule s(stages({{10 * kSecond, 10}}));
  EXPECT_EQ(s.vus_at(0), 0);
  EXPECT_EQ(s.vus_at(kSecond - 1), 0);
  EXPECT_EQ(s.vus_at(kSecond), 1);
  EXPECT_EQ(s.vus_at(5 * kSecond + 1), 5);
  EXPECT_EQ(s.vus_at(10 * kSecond), 10);
  EXPECT_EQ(*s.next_change_after(0), kSecond);
  EXPECT_EQ(*s.next_change_after(kSecond), 2 * kSecond);
}

TEST(VuSchedule, RampDownAndFollowingStages) {
  // {"30s", 500}, {"1m", 500}, {"10s", 0}: the brief's example.
  VuSchedule s(stages({{30 * kSecond, 500}, {60 * kSecond, 500}, {10 * kSecond, 0}}));
  EXPECT_EQ(s.vus_at(15 * kSecond), 250);
  EXPECT_EQ(s.vus_at(30 * kSecond), 500);
  EXPECT_EQ(s.vus_at(89 * kSecond), 500);
  EXPECT_EQ(s.vus_at(95 * kSecond), 250);
  EXPECT_EQ(s.vus_at(100 * kSecond), 0);
  EXPECT_EQ(s.end(), 100 * kSecond);
  // During the hold nothing changes until the ramp-down's first step.
  EXPECT_EQ(*s.next_change_after(40 * kSecond), 90 * kSecond + 20 * kMilli);
}

TEST(VuSchedule, NextChangeWalksEveryStepOfARamp) {
  VuSchedule s(stages({{3 * kSecond, 7}, {2 * kSecond, 2}}, 1));
  Nanos t = 0;
  long long last = s.vus_at(0);
  int changes = 0;
  while (auto next = s.next_change_after(t)) {
    ASSERT_GT(*next, t);
    EXPECT_EQ(s.vus_at(*next - 1), last) << "changed before " << *next;
    EXPECT_NE(s.vus_at(*next), last) << "no change at " << *next;
    last = s.vus_at(*next);
    t = *next;
    ++changes;
  }
  EXPECT_EQ(changes, 6 + 5);
  EXPECT_EQ(last, 2);
}

TEST(VuSchedule, JumpStageOfZeroDuration) {
  VuSchedule s(stages({{kSecond, 3}, {0, 8}, {kSecond, 8}}, 3));
  EXPECT_EQ(s.vus_at(kSecond - 1), 3);
  EXPECT_EQ(s.vus_at(kSecond), 8);
  EXPECT_EQ(*s.next_change_after(0), kSecond);
}

TEST(VuSchedule, APartWakesOnlyWhenItsShareChanges) {
  // Up, down and up again through a jump: the times at which part `index` of 7 sees its share
  // change are exactly those among every change of the total at which its share_of moves.
  VuSchedule s(stages({{3 * kSecond, 40}, {2 * kSecond, 40}, {4 * kSecond, 9}, {0, 30}, {kSecond, 31}}, 2));
  for (int index = 0; index < 7; ++index) {
    std::vector<Nanos> expected;
    Nanos t = 0;
    while (auto next = s.next_change_after(t)) {
      if (share_of(s.vus_at(*next), 7, index) != share_of(s.vus_at(t), 7, index)) expected.push_back(*next);
      t = *next;
    }
    std::vector<Nanos> seen;
    t = 0;
    for (;;) {
      const auto [lo, hi] = totals_with_share(share_of(s.vus_at(t), 7, index), 7, index);
      const auto next = s.next_outside_after(t, lo, hi);
      if (!next) break;
      ASSERT_GT(*next, t);
      seen.push_back(*next);
      t = *next;
    }
    EXPECT_EQ(seen, expected) << "part " << index;
    EXPECT_GE(seen.size(), 10u) << "part " << index;  // ~38 + 31 + 22 units of the total
  }
}

TEST(Share, TotalsWithAShareAreExactlyThoseItIsTheShareOf) {
  for (int parts : {1, 2, 7, 56}) {
    for (int index = 0; index < parts; ++index) {
      for (long long total = 0; total < 300; ++total) {
        const long long share = share_of(total, parts, index);
        const auto [first, last] = totals_with_share(share, parts, index);
        EXPECT_LE(first, total);
        EXPECT_GE(last, total);
        if (first > 0) {
          EXPECT_EQ(share_of(first - 1, parts, index), share - 1);
        }
        EXPECT_EQ(share_of(last + 1, parts, index), share + 1);
      }
    }
  }
}

TEST(Share, PartsAddUpExactly) {
  for (long long total : {0LL, 1LL, 7LL, 500LL, 1001LL}) {
    for (int parts : {1, 2, 3, 7}) {
      long long sum = 0;
      for (int i = 0; i < parts; ++i) sum += share_of(total, parts, i);
      EXPECT_EQ(sum, total);
    }
  }
}

}  // namespace
}  // namespace stampede::engine
