#include "report/threshold_line.hpp"

#include <gtest/gtest.h>

namespace stampede::report {
namespace {

using metrics::AggregationUnit;

TEST(ThresholdLine, ValuesReadInTheirAggregationsUnit) {
  EXPECT_EQ(format_aggregation_value(AggregationUnit::Milliseconds, 250), "250.00ms");
  EXPECT_EQ(format_aggregation_value(AggregationUnit::Milliseconds, 1500), "1.50s");
  EXPECT_EQ(format_aggregation_value(AggregationUnit::Milliseconds, 0.0305), "30.50µs");
  // Beyond what Nanos can hold (about 292 years): seconds, not an overflow.
  EXPECT_EQ(format_aggregation_value(AggregationUnit::Milliseconds, 1e13), "10000000000.00s");
  EXPECT_EQ(format_aggregation_value(AggregationUnit::Count, 12), "12");
  EXPECT_EQ(format_aggregation_value(AggregationUnit::Count, 0.5), "0.50");
  EXPECT_EQ(format_aggregation_value(AggregationUnit::PerSecond, 399.893), "399.89/s");
  EXPECT_EQ(format_aggregation_value(AggregationUnit::Ratio, 0.025), "2.50%");
}

TEST(ThresholdLine, JudgedShowsTheValueOtherwiseWhy) {
  metrics::ThresholdResult judged;
  judged.spec = {"http.request", "p95", 250, "api.lua"};
  judged.judged = true;
  judged.pass = true;
  judged.value = 31.9;
  EXPECT_EQ(format_threshold_line(judged), "pass http.request p95 <= 250.00ms (31.90ms)");

  metrics::ThresholdResult not_judged;
  not_judged.spec = {"ws.connect", "p99", 100, "api.lua"};
  not_judged.message = "no samples: \"ws.connect\" recorded nothing";
  EXPECT_EQ(format_threshold_line(not_judged),
            "fail ws.connect p99 <= 100.00ms (no samples: \"ws.connect\" recorded nothing)");
}

}  // namespace
}  // namespace stampede::report
