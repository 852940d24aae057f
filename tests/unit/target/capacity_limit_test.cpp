#include "target/capacity_limit.hpp"

#include <gtest/gtest.h>

namespace stampede::target {
namespace {

TEST(CapacityLimit, ParsesRequestsAndExtraHold) {
  const auto spec = parse_capacity_spec("10:200");
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->requests, 10u);
  EXPECT_EQ(spec->extra_ms, 200);
  EXPECT_EQ(format_capacity_spec(*spec), "10:200");
  EXPECT_TRUE(parse_capacity_spec("0:0.5"));
}

TEST(CapacityLimit, BadSpecsAreSentences) {
  std::string error;
  for (const char* bad : {"", "10", "10:", ":5", "x:5", "10:-1", "10:5ms", "-1:5", "10:1e9"}) {
    EXPECT_FALSE(parse_capacity_spec(bad, &error)) << bad;
    EXPECT_NE(error.find("REQUESTS:EXTRA_MS"), std::string::npos) << error;
  }
}

TEST(CapacityLimit, RequestsPastTheCapacityAreHeldLonger) {
  InFlightLimit limit(CapacitySpec{2, 100});
  EXPECT_EQ(limit.enter(), 0);  // 1st in flight
  EXPECT_EQ(limit.enter(), 0);  // 2nd
  EXPECT_EQ(limit.enter(), 100 * kMilli);  // 3rd: two already in flight
  limit.leave();
  limit.leave();
  EXPECT_EQ(limit.in_flight(), 1u);
  EXPECT_EQ(limit.enter(), 0);  // back within capacity
}

TEST(CapacityLimit, WithoutASpecNothingIsHeld) {
  InFlightLimit limit(std::nullopt);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(limit.enter(), 0);
  limit.leave();
  EXPECT_EQ(limit.in_flight(), 999u);
  InFlightLimit empty(std::nullopt);
  empty.leave();  // never below zero
  EXPECT_EQ(empty.in_flight(), 0u);
}

}  // namespace
}  // namespace stampede::target
