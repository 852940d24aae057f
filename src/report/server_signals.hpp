#pragma once
// `--find-limit` with server metrics: which server signals matter in the step table, and
// which of them broke first. Pure: figures per step in, columns and a sentence out
// (docs/design/038, "What broke first").
//
//   Held 8,000 VUs; 9,000 VUs broke live.event p95 <= 250ms (420ms) while the BEAM run
//   queue went from 2 to 310: the schedulers were saturated
//
// The signals, found by name in what Stampede.Probe, PromEx, telemetry_metrics_prometheus
// (Phoenix's telemetry.ex) and prometheus.erl expose, each read over a step's hold:
//   run_queue              the BEAM run queue (processes ready to run), its highest level
//   scheduler_utilization  the schedulers' busy fraction (0-1), its highest level
//   memory                 the BEAM's (else the process's) memory, its highest level
//   ecto_queue             Ecto's queue time (waiting for a pool connection), p95
//   handler                the slowest LiveView or channel handler, p95
//   in_flight              HTTP requests received and not yet answered, its highest level
//                          (the built-in target's, OpenTelemetry's active_requests)
//
// A signal "broke" at a step when a threshold on it failed there, when it crossed a line
// that means trouble whatever the app (utilization >= 90%; a run queue longer than the
// schedulers online; an Ecto queue p95 over DBConnection's 50 ms queue_target), or when it
// moved sharply from the step before (3x, and by more than a floor of its own: 10 processes,
// 10 ms of a handler, 10 requests in flight, 5 ms of queue time; memory 2x and 100 MB; not
// the utilization, which rises with the load as it should). The one that broke first is the
// one that broke at the lowest level and stayed broken up to the failing step; at the same
// level, in the order above (the cause before its symptoms: saturated schedulers slow the
// pool and every handler, and any of them makes requests pile up).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "metrics/metric_table.hpp"
#include "metrics/threshold.hpp"
#include "report/run_result.hpp"

namespace stampede::report {

// One find-limit step as the server saw it.
struct ServerStepFigures {
  double level = 0;                 // VUs or iterations/s
  std::string status;               // FindLimitStep::status: "pass", "fail", "inconclusive", "not_reached"
  std::vector<MetricFigures> server;  // the `server.` metrics over the step's hold (server_figures())
  std::vector<metrics::ThresholdResult> thresholds;  // the step's judged thresholds, all of them
};

// ServerSignalColumn and ServerBreakdown are in find_limit_result.hpp: a find-limit result carries them.

// `failing_step`: the index of the step whose failure decides the limit (the lowest level
// that failed); nullopt: that step, found from the statuses (none: no verdict, columns only).
ServerBreakdown what_broke_first(const std::vector<ServerStepFigures>& steps,
                                 std::optional<std::size_t> failing_step = std::nullopt);

// The `server.` metrics of a window's table, as figures (rates per second of `seconds`).
std::vector<MetricFigures> server_figures(const metrics::MetricTable& table, double seconds);

// A signal's value as the table and the sentence print it: "310", "97%", "1.20GB", "68.8ms".
std::string format_signal(const std::string& unit, double value);

}  // namespace stampede::report
