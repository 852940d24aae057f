#pragma once
// A judged threshold as one line of text:
//   "pass http.request p95 <= 250.00ms (31.90ms)"
//   "fail iteration.errors count <= 0 (12)"
//   "fail http.request p99 <= 100.00ms (no samples: \"http.request\" recorded nothing)"
#include <string>

#include "metrics/threshold.hpp"

namespace stampede::report {

std::string format_threshold_line(const metrics::ThresholdResult& result);
// A limit or value in its aggregation's unit: "250.00ms", "12", "399.89/s", "1.00%".
std::string format_aggregation_value(metrics::AggregationUnit unit, double value);

}  // namespace stampede::report
