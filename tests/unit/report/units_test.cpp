#include "report/units.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "report/text_columns.hpp"

namespace stampede::report {
namespace {

TEST(FormatNanos, PicksTheUnitThatKeepsTheNumberAboveOne) {
  EXPECT_EQ(format_nanos(0), "0.00ns");
  EXPECT_EQ(format_nanos(12), "12.00ns");
  EXPECT_EQ(format_nanos(999), "999.00ns");
  EXPECT_EQ(format_nanos(1'000), "1.00µs");
  EXPECT_EQ(format_nanos(850'000), "850.00µs");
  EXPECT_EQ(format_nanos(10'720'000), "10.72ms");
  EXPECT_EQ(format_nanos(103'814'000), "103.81ms");
  EXPECT_EQ(format_nanos(1'200'000'000), "1.20s");
  EXPECT_EQ(format_nanos(3'600'000'000'000), "3600.00s");
  EXPECT_EQ(format_nanos(-2'500'000), "-2.50ms");
  EXPECT_EQ(format_nanos(std::numeric_limits<Nanos>::min()), "-9223372036.85s");
}

TEST(FormatNanos, RoundingUpToAThousandMovesToTheNextUnit) {
  EXPECT_EQ(format_nanos(999'996), "1.00ms");
  EXPECT_EQ(format_nanos(999'994), "999.99µs");
  EXPECT_EQ(format_nanos(999'999'999), "1.00s");
}

TEST(FormatSeconds, TenthsWithMinutesAndHours) {
  EXPECT_EQ(format_seconds(0), "0.0s");
  EXPECT_EQ(format_seconds(15'004'500'000), "15.0s");
  EXPECT_EQ(format_seconds(15'050'000'000), "15.1s");
  EXPECT_EQ(format_seconds(59'960'000'000), "1m00.0s");
  EXPECT_EQ(format_seconds(90 * kSecond), "1m30.0s");
  EXPECT_EQ(format_seconds(3600 * kSecond + 5 * 60 * kSecond + 500 * kMilli), "1h05m00.5s");
  EXPECT_EQ(format_seconds(-1500 * kMilli), "-1.5s");
}

TEST(FormatClock, WholeSecondsRoundedDown) {
  EXPECT_EQ(format_clock(12 * kSecond + 999 * kMilli), "12s");
  EXPECT_EQ(format_clock(90 * kSecond), "1m30s");
  EXPECT_EQ(format_clock(65 * kSecond), "1m05s");
  EXPECT_EQ(format_clock(7322 * kSecond), "2h02m02s");
}

TEST(FormatNumber, IntegersPlainOthersWithTwoDecimals) {
  EXPECT_EQ(format_number(500), "500");
  EXPECT_EQ(format_number(0), "0");
  EXPECT_EQ(format_number(0.5), "0.50");
  EXPECT_EQ(format_number(-3), "-3");
  EXPECT_EQ(format_number(1e20), "100000000000000000000.00");
}

TEST(TextColumns, WidthsCountCharactersNotBytes) {
  EXPECT_EQ(display_width("850.00µs"), 8u);
  EXPECT_EQ(align_right("µs", 4), "  µs");
  EXPECT_EQ(align_left("µs", 4), "µs  ");
  EXPECT_EQ(align_left("toolong", 3), "toolong");
}

TEST(TextColumns, OneLineReplacesControlsAndCutsAtACharacter) {
  EXPECT_EQ(one_line("a\nb\tc", 10), "a b c");
  EXPECT_EQ(one_line("abcdef", 4), "abc…");
  EXPECT_EQ(one_line("abcd", 4), "abcd");
  EXPECT_EQ(one_line("ééééé", 3), "éé…");
  EXPECT_EQ(one_line("abc", 0), "");
}

TEST(FormatBytes, DecimalUnitsWithoutASpaceAndCarryToTheNextUnit) {
  EXPECT_EQ(format_bytes(0), "0B");
  EXPECT_EQ(format_bytes(512), "512B");
  EXPECT_EQ(format_bytes(999), "999B");
  EXPECT_EQ(format_bytes(1536), "1.54kB");
  EXPECT_EQ(format_bytes(999'999), "1.00MB");
  EXPECT_EQ(format_bytes(12'300'000), "12.30MB");
  EXPECT_EQ(format_value(metrics::ValueUnit::Number, 7), "7");
  EXPECT_EQ(format_value(metrics::ValueUnit::Bytes, 2000), "2.00kB");
}

TEST(DistributionUnit, TheNameSaysBytes) {
  EXPECT_EQ(metrics::distribution_unit("live.diff.bytes"), metrics::ValueUnit::Bytes);
  EXPECT_EQ(metrics::distribution_unit("payload.size"), metrics::ValueUnit::Number);
  EXPECT_EQ(metrics::distribution_unit("bytes"), metrics::ValueUnit::Number);
  // A server series keeps its Prometheus name: "_bytes" before its labels.
  EXPECT_EQ(metrics::distribution_unit("server.phoenix_http_response_size_bytes{route=\"/\"}"), metrics::ValueUnit::Bytes);
  EXPECT_EQ(metrics::distribution_unit("server.response_size_bytes"), metrics::ValueUnit::Bytes);
  EXPECT_EQ(metrics::distribution_unit("server.payload{kind=\"_bytes\"}"), metrics::ValueUnit::Number);
  EXPECT_EQ(metrics::distribution_unit("payload_bytes"), metrics::ValueUnit::Number) << "a scenario's own: '.bytes'";
}

}  // namespace
}  // namespace stampede::report
