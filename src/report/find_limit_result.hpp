#pragma once
// What `--find-limit` found and how the generator fared, as plain figures for the results
// model (run_result.hpp): the terminal summary, the JSON file and the HTML report all show
// these.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "metrics/threshold.hpp"

namespace stampede::report {

// The generator's own figures over a window (the whole run, or one step's hold); see
// metrics/generator_health.hpp for what each one is.
struct GeneratorFigures {
  double cpu_mean = 0;  // %, busiest worker thread
  double cpu_peak = 0;
  std::optional<Nanos> loop_delay_p99;
  std::optional<Nanos> loop_delay_max;
  std::optional<Nanos> lag_p99;
  std::uint64_t dropped = 0;
  double fds_peak = 0;
  double fds_limit = 0;  // 0: unknown
  bool bottleneck = false;
  std::string verdict;  // "inconclusive: ..." when the generator was the bottleneck
  // % of the time the most-waiting worker thread was ready to run but waited for a CPU
  // (taken by other processes: a server on this machine); empty where not measured.
  std::optional<double> cpu_wait;
  // What the load ran on and why: "1 worker, polling (2 cores, the target 127.0.0.1:4000 on
  // this machine: the other core left to it)"; empty for a find-limit step.
  std::string setup;
};

struct FindLimitStep {
  double level = 0;           // VUs, or iterations per second
  bool refine = false;        // a --refine probe (its own short run) rather than a step of the staircase
  Nanos hold_start = 0;       // the judged window, from the start of the run it was part of
  Nanos hold_end = 0;
  std::string status;         // "pass", "fail", "inconclusive", "not_reached"
  std::vector<metrics::ThresholdResult> thresholds;  // judged over the hold; empty when not reached
  std::optional<GeneratorFigures> generator;         // over the hold
};

// With --server-metrics: a server signal that matters, per step (report/server_signals.hpp).
struct ServerSignalColumn {
  std::string key;          // "run_queue", "scheduler_utilization", "ecto_queue", "memory", "handler", "in_flight"
  std::string title;        // a column heading: "run queue max", "Ecto queue p95"
  std::string metric;       // the series read ("server.erlang_vm_run_queues_length"); for
                            // handler, the slowest one at the failing step (or the last)
  std::string aggregation;  // "max" (a gauge's highest level over the hold) or "p95"
  std::string unit;         // "count", "ratio", "bytes", "ms" or "number"
  std::vector<std::optional<double>> values;  // per step, in the order given; empty when not measured
};

struct ServerBreakdown {
  std::vector<ServerSignalColumn> columns;  // the signals the endpoint has, in server_signals.hpp's order
  std::optional<std::size_t> first;         // the column that broke first, if one did
  // "the BEAM run queue went from 2 to 310: the schedulers were saturated"; empty when no
  // server signal broke (or there is no failing step).
  std::string verdict;
};

struct FindLimitResult {
  std::string by = "vus";  // "vus" or "rate"
  double start = 0, step = 0, up_to = 0;
  Nanos ramp = 0, hold = 0;
  bool refine = false;
  double resolution = 0;  // with refine
  std::vector<FindLimitStep> steps;  // staircase steps in order, then refine probes in order
  std::optional<double> limit;       // the highest level that passed
  std::optional<double> failed_at;   // the lowest level that did not pass
  std::string broke;                 // the first threshold that broke there, e.g. "http.request p95 <= 250ms (312ms)"
  bool reached_up_to = false;        // every level up to up_to passed
  bool inconclusive = false;         // ended because the generator was the bottleneck
  std::string verdict;               // the headline sentence of the summary
  // With --server-metrics: the server's columns of the step table (values in the order of
  // `steps`) and what broke first; its verdict is part of `verdict` ("... while the BEAM run
  // queue went from 2 to 310: ..."). Empty without server metrics.
  std::optional<ServerBreakdown> server;
};

}  // namespace stampede::report
