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
};

}  // namespace stampede::report
