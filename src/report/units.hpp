#pragma once
// How numbers read in the terminal: one place, so the summary, the progress line and
// threshold lines agree.
#include <string>

#include "common/clock.hpp"
#include "metrics/metric_unit.hpp"

namespace stampede::report {

// The largest unit that keeps the number at or above 1, with 2 decimals:
// "12.00ns", "850.00µs", "10.72ms", "1.20s" (999.999µs reads "1.00ms", not "1000.00µs").
std::string format_nanos(Nanos value);
// A span of time with tenths of a second: "15.0s", "1m30.0s", "1h05m00.0s".
std::string format_seconds(Nanos value);
// Whole seconds, rounded down, for a clock that ticks: "12s", "1m30s", "1h05m00s".
std::string format_clock(Nanos value);
// Integers without decimals ("12", "500"), anything else with 2 ("0.50").
std::string format_number(double value);
// A size in bytes, in decimal units as k6 prints data, without a space so that a summary
// row splits on whitespace like the timings' "10.72ms": "512B", "1.50kB", "12.30MB".
std::string format_bytes(double bytes);
// A Distribution metric's value in its unit (metrics/metric_unit.hpp).
std::string format_value(metrics::ValueUnit unit, double value);

}  // namespace stampede::report
