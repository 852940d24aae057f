#include "engine/vu_schedule.hpp"

#include <gtest/gtest.h>

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
