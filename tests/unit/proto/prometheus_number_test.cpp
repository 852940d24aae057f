#include "proto/prometheus_number.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "infinity.hpp"

namespace stampede::proto {
namespace {

using stampede::testing::kInf;

TEST(PrometheusFloat, DecimalForms) {
  EXPECT_EQ(parse_exposition_float("1027"), 1027.0);
  EXPECT_EQ(parse_exposition_float("-0.5"), -0.5);
  EXPECT_EQ(parse_exposition_float("+3"), 3.0);
  EXPECT_EQ(parse_exposition_float(".5"), 0.5);
  EXPECT_EQ(parse_exposition_float("5."), 5.0);
  EXPECT_EQ(parse_exposition_float("1.458255915e9"), 1.458255915e9);
  EXPECT_EQ(parse_exposition_float("1.7560473e+07"), 17560473.0);
  EXPECT_EQ(parse_exposition_float("1E-3"), 0.001);
  EXPECT_EQ(parse_exposition_float("0.0"), 0.0);
  // peep writes floats with :erlang.float_to_binary/2's scientific default.
  EXPECT_EQ(parse_exposition_float("5.00000000000000000000e-01"), 0.5);
  // The shortest round trip: the double nearest to the text, not an approximation.
  EXPECT_EQ(parse_exposition_float("0.1"), 0.1);
  EXPECT_EQ(parse_exposition_float("2.2250738585072014e-308"), std::numeric_limits<double>::min());
}

TEST(PrometheusFloat, InfinitiesAndNaNAsGoReadsThem) {
  EXPECT_EQ(parse_exposition_float("+Inf"), kInf);
  EXPECT_EQ(parse_exposition_float("-Inf"), -kInf);
  EXPECT_EQ(parse_exposition_float("Inf"), kInf);
  EXPECT_EQ(parse_exposition_float("inf"), kInf);
  EXPECT_EQ(parse_exposition_float("+infinity"), kInf);
  EXPECT_EQ(parse_exposition_float("-INFINITY"), -kInf);
  const auto nan = parse_exposition_float("NaN");
  ASSERT_TRUE(nan);
  EXPECT_TRUE(std::isnan(*nan));
  EXPECT_TRUE(parse_exposition_float("nan"));
  // Go takes no sign on NaN, and no payload.
  EXPECT_FALSE(parse_exposition_float("+NaN"));
  EXPECT_FALSE(parse_exposition_float("-nan"));
  EXPECT_FALSE(parse_exposition_float("nan(1)"));
  EXPECT_FALSE(parse_exposition_float("Infinit"));
}

TEST(PrometheusFloat, RefusesWhatPrometheusRefuses) {
  for (const char* text : {"", "+", "-", ".", "e5", "1e", "1e+", "1.2.3", "0x10", "0x1p3", "1_000", " 1", "1 ",
                           "1,5", "one", "--1", "1e5.5", "\xff"}) {
    EXPECT_FALSE(parse_exposition_float(text)) << text;
  }
}

TEST(PrometheusFloat, BeyondDoubleIsRefusedBelowItIsZero) {
  EXPECT_FALSE(parse_exposition_float("1e400"));
  EXPECT_FALSE(parse_exposition_float("-1e400"));
  EXPECT_FALSE(parse_exposition_float("1" + std::string(400, '0')));
  EXPECT_EQ(parse_exposition_float("1e-400"), 0.0);
  const auto negative_tiny = parse_exposition_float("-1e-400");
  ASSERT_TRUE(negative_tiny);
  EXPECT_EQ(*negative_tiny, 0.0);
  EXPECT_TRUE(std::signbit(*negative_tiny));
  EXPECT_EQ(parse_exposition_float("0." + std::string(400, '0') + "1"), 0.0);
  EXPECT_EQ(parse_exposition_float("0e99999999999999999999"), 0.0);
}

TEST(PrometheusTimestamp, MillisecondsAreAnInt64) {
  EXPECT_EQ(parse_millisecond_timestamp("1395066363000"), 1395066363000);
  EXPECT_EQ(parse_millisecond_timestamp("-3982045"), -3982045);  // the format's own example
  EXPECT_EQ(parse_millisecond_timestamp("+5"), 5);
  EXPECT_EQ(parse_millisecond_timestamp("9223372036854775807"), std::numeric_limits<std::int64_t>::max());
  for (const char* text : {"", "-", "+", "1.5", "1e3", "9223372036854775808", "12a", "+-1", "NaN"}) {
    EXPECT_FALSE(parse_millisecond_timestamp(text)) << text;
  }
}

TEST(PrometheusTimestamp, OpenMetricsSecondsBecomeMilliseconds) {
  EXPECT_EQ(parse_second_timestamp("1520879607.789"), 1520879607789);
  EXPECT_EQ(parse_second_timestamp("1605281325.0"), 1605281325000);
  EXPECT_EQ(parse_second_timestamp("123"), 123000);
  EXPECT_EQ(parse_second_timestamp("-1.5"), -1500);
  EXPECT_EQ(parse_second_timestamp("0.0009"), 0);  // truncated toward zero, as Prometheus does
  for (const char* text : {"NaN", "+Inf", "-Inf", "1e300", "", "abc"}) {
    EXPECT_FALSE(parse_second_timestamp(text)) << text;
  }
}

}  // namespace
}  // namespace stampede::proto
