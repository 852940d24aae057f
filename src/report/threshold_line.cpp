#include "report/threshold_line.hpp"

#include <cmath>

#include <fmt/format.h>

#include "report/units.hpp"

namespace stampede::report {

std::string format_aggregation_value(metrics::AggregationUnit unit, double value) {
  switch (unit) {
    case metrics::AggregationUnit::Milliseconds:
      // Beyond what Nanos holds (a limit of "no limit, really"), plain seconds.
      if (!(std::fabs(value) < 9e12)) return fmt::format("{:.2f}s", value / 1e3);
      return format_nanos(static_cast<Nanos>(std::llround(value * 1e6)));
    case metrics::AggregationUnit::Count: return format_number(value);
    case metrics::AggregationUnit::PerSecond: return fmt::format("{:.2f}/s", value);
    case metrics::AggregationUnit::Ratio: return fmt::format("{:.2f}%", value * 100);
  }
  return format_number(value);
}

std::string format_threshold_line(const metrics::ThresholdResult& result) {
  const metrics::ThresholdSpec& spec = result.spec;
  const auto unit = metrics::result_unit(result);
  const std::string outcome =
      result.judged ? format_aggregation_value(unit, result.value) : result.message;
  return fmt::format("{} {} {} <= {} ({})", result.pass ? "pass" : "fail", spec.metric,
                     spec.aggregation, format_aggregation_value(unit, spec.limit), outcome);
}

}  // namespace stampede::report
