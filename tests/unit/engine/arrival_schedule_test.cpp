#include "engine/arrival_schedule.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace stampede::engine {
namespace {

LoadShape rate(std::initializer_list<Stage> s, double start) {
  LoadShape shape;
  shape.model = LoadModel::Rate;
  shape.start = start;
  shape.stages = s;
  return shape;
}

TEST(ArrivalSchedule, ConstantRateIsEvenlySpacedWithoutDrift) {
  ArrivalSchedule s(rate({{10 * kSecond, 1000}}, 1000));
  EXPECT_EQ(*s.due(0), 0);
  EXPECT_EQ(*s.due(1), kMilli);
  EXPECT_EQ(*s.due(9999), 9999 * kMilli);  // computed from the start, never accumulated
  EXPECT_FALSE(s.due(10000).has_value());
}

TEST(ArrivalSchedule, SubMillisecondSpacing) {
  ArrivalSchedule s(rate({{kSecond, 3000}}, 3000));
  EXPECT_EQ(*s.due(1), 333'333);
  EXPECT_EQ(*s.due(2), 666'667);
}

TEST(ArrivalSchedule, LinearRampFollowsTheAreaUnderTheCurve) {
  // 0 -> 100/s over 10 s: A(t) = 5 t^2, so arrival i is due at sqrt(i / 5) s; 500 in all.
  ArrivalSchedule s(rate({{10 * kSecond, 100}}, 0));
  for (long long i : {1LL, 5LL, 20LL, 125LL, 499LL}) {
    const double expected = std::sqrt(static_cast<double>(i) / 5.0) * kSecond;
    EXPECT_NEAR(static_cast<double>(*s.due(i)), expected, 2.0) << i;
  }
  EXPECT_FALSE(s.due(500).has_value());
  EXPECT_NEAR(s.arrivals_before(10 * kSecond), 500.0, 1e-6);
}

TEST(ArrivalSchedule, RampDownAndStagesChain) {
  // 100/s for 1 s, then down to 0 over 2 s (100 more), then 10/s for 1 s.
  ArrivalSchedule s(rate({{kSecond, 100}, {2 * kSecond, 0}, {kSecond, 10}}, 100));
  EXPECT_EQ(*s.due(100), kSecond);
  // Area within the ramp-down after x s: 100x - 25x^2; the 100th extra arrival lands at 2 s.
  EXPECT_NEAR(static_cast<double>(*s.due(175)), 1e9 + 1e9, 2e6);
  EXPECT_EQ(*s.due(200), 3 * kSecond + 0);
  EXPECT_FALSE(s.due(210).has_value());
}

TEST(ArrivalSchedule, EveryArrivalIsLaterThanThePrevious) {
  ArrivalSchedule s(rate({{5 * kSecond, 20000}, {5 * kSecond, 500}}, 10));
  Nanos last = -1;
  long long n = 0;
  for (long long i = 0;; ++i) {
    auto d = s.due(i);
    if (!d) break;
    ASSERT_GE(*d, last) << i;
    last = *d;
    ++n;
  }
  EXPECT_NEAR(static_cast<double>(n), s.arrivals_before(10 * kSecond), 1.0);
}

}  // namespace
}  // namespace stampede::engine
