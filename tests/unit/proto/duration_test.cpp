#include "proto/duration.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace stampede::proto {
namespace {

constexpr Nanos kMinute = 60 * kSecond;
constexpr Nanos kHour = 60 * kMinute;

TEST(ParseDuration, BareNumbersAreMilliseconds) {
  EXPECT_EQ(parse_duration("250"), 250 * kMilli);
  EXPECT_EQ(parse_duration("0"), 0);
  EXPECT_EQ(parse_duration("1.5"), 1'500'000);
  EXPECT_EQ(parse_duration(".5"), 500'000);
  EXPECT_EQ(parse_duration("2."), 2 * kMilli);
  EXPECT_EQ(parse_duration("0.000001"), 1);
}

TEST(ParseDuration, EveryUnit) {
  EXPECT_EQ(parse_duration("10ns"), 10);
  EXPECT_EQ(parse_duration("250us"), 250 * kMicro);
  EXPECT_EQ(parse_duration("250\xC2\xB5s"), 250 * kMicro);  // MICRO SIGN
  EXPECT_EQ(parse_duration("250\xCE\xBCs"), 250 * kMicro);  // GREEK SMALL LETTER MU
  EXPECT_EQ(parse_duration("500ms"), 500 * kMilli);
  EXPECT_EQ(parse_duration("30s"), 30 * kSecond);
  EXPECT_EQ(parse_duration("1m"), kMinute);
  EXPECT_EQ(parse_duration("2h"), 2 * kHour);
}

TEST(ParseDuration, FractionsAndCombinations) {
  EXPECT_EQ(parse_duration("1.5s"), 1500 * kMilli);
  EXPECT_EQ(parse_duration("1h30m"), 90 * kMinute);
  EXPECT_EQ(parse_duration("1m30.5s"), 90 * kSecond + 500 * kMilli);
  EXPECT_EQ(parse_duration("1h1m1s1ms1us1ns"), kHour + kMinute + kSecond + kMilli + kMicro + 1);
  EXPECT_EQ(parse_duration("0.5h"), 30 * kMinute);
  EXPECT_EQ(parse_duration("1.000000001s"), kSecond + 1);
  // Digits past the nanosecond are exact, not rounded through a double.
  EXPECT_EQ(parse_duration("0.33333333333333333333333h"), 1'199'999'999'999);
  EXPECT_EQ(parse_duration("  45s\n"), 45 * kSecond);
}

TEST(ParseDuration, UpToOneHundredDays) {
  EXPECT_EQ(parse_duration("2400h"), 2400 * kHour);
  EXPECT_EQ(parse_duration("8640000000"), 2400 * kHour);
  std::string error;
  EXPECT_EQ(parse_duration("2400h1ns", &error), std::nullopt);
  EXPECT_EQ(error, "bad duration \"2400h1ns\": longer than 100 days, the most Stampede accepts");
  EXPECT_EQ(parse_duration("99999999999999999999999999999h", &error), std::nullopt);
  EXPECT_EQ(parse_duration("1200h1200h1s", &error), std::nullopt);
  EXPECT_EQ(parse_duration("8640000000.000001", &error), std::nullopt);
}

TEST(ParseDuration, RejectsWithASentenceSayingWhatWasExpected) {
  const std::string expected =
      "expected a number of milliseconds or a number with a unit (ns, us, ms, s, m, h), "
      "such as \"500ms\", \"30s\" or \"1h30m\"";
  for (const char* text : {"3x", "", "   ", "s", "ms", "1h30", "30 s", "1h 30m", "1.2.3s", "1S", "abc", "1d",
                           "5s!", ".", ".s", "+5s", "1e3", "inf", "NaN", "0x10"}) {
    std::string error;
    EXPECT_EQ(parse_duration(text, &error), std::nullopt) << text;
    EXPECT_EQ(error, "bad duration \"" + std::string(text) + "\": " + expected) << text;
  }
}

TEST(ParseDuration, RejectsNegatives) {
  std::string error;
  EXPECT_EQ(parse_duration("-5s", &error), std::nullopt);
  EXPECT_EQ(error, "bad duration \"-5s\": a duration cannot be negative");
  EXPECT_EQ(parse_duration("-1"), std::nullopt);
}

TEST(ParseDuration, ErrorIsOptional) { EXPECT_EQ(parse_duration("nope"), std::nullopt); }

TEST(FormatDuration, CompactForms) {
  const std::vector<std::pair<Nanos, std::string>> cases = {
      {0, "0s"},
      {1, "1ns"},
      {999, "999ns"},
      {1500, "1.5us"},
      {999'999, "999.999us"},
      {250 * kMilli, "250ms"},
      {1'500'000, "1.5ms"},
      {1'234'567, "1.235ms"},
      {999'999'600, "1s"},  // rounds up into the next unit
      {kSecond, "1s"},
      {1500 * kMilli, "1.5s"},
      {59'999 * kMilli, "59.999s"},
      {60 * kSecond, "1m"},
      {90 * kSecond, "1m30s"},
      {90 * kSecond + 500 * kMilli, "1m30.5s"},
      {2 * kHour, "2h"},
      {kHour + 30 * kMinute, "1h30m"},
      {kHour + 5 * kSecond, "1h5s"},
      {-1500 * kMilli, "-1.5s"},
  };
  for (const auto& [d, text] : cases) EXPECT_EQ(format_duration(d), text) << d;
}

TEST(DurationFromMs, NumbersAreMilliseconds) {
  EXPECT_EQ(duration_from_ms(250), 250 * kMilli);
  EXPECT_EQ(duration_from_ms(1.5), 1500 * kMicro);
  EXPECT_EQ(duration_from_ms(0), 0);
}

TEST(DurationFromMs, RejectsWhatACastWouldGetWrong) {
  // NaN and negatives were recorded as 0 ns or slept as 0; infinity and 1e20 ms cast to
  // Nanos are undefined (a 1e20 ms run said "the load lasts no time at all").
  for (double ms : {std::nan(""), -1.0, std::numeric_limits<double>::infinity(), 1e20, 101.0 * 24 * 3600 * 1000}) {
    std::string error;
    EXPECT_FALSE(duration_from_ms(ms, &error).has_value()) << ms;
    EXPECT_NE(error.find("bad duration"), std::string::npos) << error;
  }
  std::string error;
  duration_from_ms(1e20, &error);
  EXPECT_NE(error.find("longer than 100 days"), std::string::npos) << error;
}

TEST(FormatDuration, ExtremesDoNotOverflow) {
  EXPECT_FALSE(format_duration(std::numeric_limits<Nanos>::max()).empty());
  EXPECT_EQ(format_duration(std::numeric_limits<Nanos>::min()).front(), '-');
}

TEST(FormatDuration, ParsesBackToTheSameText) {
  for (Nanos d : {Nanos{1}, Nanos{1234}, 7 * kMilli + 3, 12 * kSecond + 345 * kMilli, 3 * kHour + 7 * kMinute + 1,
                  99 * 24 * kHour}) {
    const std::string text = format_duration(d);
    const auto back = parse_duration(text);
    ASSERT_TRUE(back.has_value()) << text;
    EXPECT_EQ(format_duration(*back), text);
  }
}

}  // namespace
}  // namespace stampede::proto
