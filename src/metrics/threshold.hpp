#pragma once
// Thresholds: "metric aggregation <= limit", judged on a run's (or a window's) metrics.
// A CI gate must never pass silently: a threshold that cannot be judged (unknown
// aggregation, no samples, an aggregation the metric's kind does not have) fails.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/metric_table.hpp"

namespace stampede::metrics {

struct ThresholdSpec {
  std::string metric;
  std::string aggregation;  // see validate_aggregation()
  double limit = 0;         // in the aggregation's unit (see AggregationUnit)
  std::string source;       // where it was written, for messages (e.g. "api.lua", "--threshold")
};

// What an aggregation's value (and limit) is measured in.
enum class AggregationUnit {
  Milliseconds,  // timings: min mean p50 p90 p95 p99 max
  Count,         // count; checks: failed
  PerSecond,     // rate: count per second of the judged duration
  Ratio,         // checks: failed_rate, 0..1
};

// Empty when `aggregation` is known; otherwise a sentence listing the valid ones.
std::string validate_aggregation(std::string_view aggregation);
// Empty when `aggregation` is known and a metric of `kind` has it (a counter has no p95, a
// timing no failed_rate); otherwise why not.
std::string applicability_error(std::string_view aggregation, std::string_view metric, Kind kind);
// The unit of a known aggregation (Count for an unknown one).
AggregationUnit aggregation_unit(std::string_view aggregation);

struct ThresholdResult {
  ThresholdSpec spec;
  bool pass = false;
  bool judged = false;  // a value was computed and compared with the limit
  double value = 0;     // in the aggregation's unit, when judged
  // When judged, e.g. "p95 31.9ms <= 250ms"; otherwise why it could not be, e.g.
  // "no samples: \"http.request\" recorded nothing".
  std::string message;
  // Set when the value's unit is not the aggregation's: a gauge's `max` is a plain level.
  std::optional<AggregationUnit> unit;
};

// The unit `result.value` (and its limit) is in.
inline AggregationUnit result_unit(const ThresholdResult& result) {
  return result.unit ? *result.unit : aggregation_unit(result.spec.aggregation);
}

// `duration_seconds` is the span the metrics cover (for `rate`).
ThresholdResult judge(const ThresholdSpec& spec, const MetricTable& metrics, double duration_seconds);
// The same, for a run that scraped server metrics: a threshold on a `server.` series that
// was never recorded fails saying whether the endpoint exposed it at all and naming the
// closest names it did expose. `server_exposed`: ServerMetricsSampler::exposed_names() (the
// families the endpoint showed, selected or not, and the series recorded); the table's own
// `server.` names count too.
ThresholdResult judge(const ThresholdSpec& spec, const MetricTable& metrics, double duration_seconds,
                      const std::vector<std::string>& server_exposed);

// Why a threshold on `metric`, a `server.` name the run never recorded, cannot be judged:
// "no samples: \"server.beam_run_que\" is not exposed by the endpoint; closest:
// server.erlang_vm_run_queues_length". `known`: every server name the run could have
// recorded (see above).
std::string server_series_not_recorded(std::string_view metric, const std::vector<std::string>& known);

}  // namespace stampede::metrics
