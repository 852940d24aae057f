#pragma once
// From the metrics layer (histograms, counters by MetricId) to the figures of a
// RunResult: the only place that knows both, so every writer sees the same numbers the
// terminal summary shows.
#include <cstdint>

#include "common/clock.hpp"
#include "metrics/metric_sink.hpp"
#include "metrics/metric_table.hpp"
#include "report/run_result.hpp"
#include "report/summary_model.hpp"

namespace stampede::report {

// Names starting with '_' are internal: recorded, but not reported.
bool is_internal_metric(std::string_view name);

// One metric's figures; rates are per second of `window_seconds` (0 when it is not > 0).
MetricFigures figures_of(const metrics::NamedMetric& metric, double window_seconds);
// Every reported metric of the table, in its order.
std::vector<MetricFigures> figures_of(const metrics::MetricTable& table, double window_seconds);

// How much of second `second` the run covered, when `elapsed` has passed since its start:
// a whole second, except for the last one of a run that stopped part-way through it.
Nanos second_window(std::int64_t second, Nanos elapsed);

// One merged second: the metrics it recorded (rates per second of `window`), the VUs at
// its end, and the iterations, errors and drops in it. No CPU figure: the caller measures it.
SecondResult second_result(const metrics::Snapshot& second, const metrics::Registry& registry, Nanos window);

// What the end-of-run summary says of `summary`, a run of `duration` from its start: its
// metrics, thresholds judged, and iteration errors (crashes among them, marked).
// `server_exposed`: what the server-metrics endpoints exposed (metrics::judge).
SummaryModel summary_model_of(const metrics::Summary& summary, const metrics::Registry& registry, std::string scenario,
                              Nanos duration, const std::vector<metrics::ThresholdSpec>& thresholds,
                              const std::vector<std::string>& server_exposed = {});

// The summary part of a scenario's result (metrics, requests, thresholds, errors, window).
void fill_summary(ScenarioResult& result, const SummaryModel& summary);

}  // namespace stampede::report
