#pragma once
// Everything a `stampede run` measured, as plain figures: the one model that every writer
// works from (results JSON, HTML report, JUnit XML, badge, Prometheus text, the
// per-second NDJSON stream) and that `stampede compare` and `stampede report` read back
// from a results JSON file (report/json_results_reader.hpp).
//
// Why figures and not histograms: a model read back from a file must be the same as the
// one written, and the files hold figures (count, percentiles...). Building the figures
// from the metrics layer is report/run_result_builder.hpp's job.
//
// Timings are in nanoseconds here (one clock unit everywhere in C++); the JSON file
// writes them in milliseconds.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "common/load_shape.hpp"
#include "metrics/metric_sink.hpp"
#include "metrics/threshold.hpp"
#include "report/find_limit_result.hpp"
#include "report/summary_model.hpp"

namespace stampede::report {

// The `version` field of the results file; raised when a field changes meaning or goes
// away (adding a field does not raise it).
inline constexpr int kResultsSchemaVersion = 1;

struct ToolInfo {
  std::string name = "stampede";
  std::string version;  // "0.1.0"
  std::string commit;   // short hash, or "unknown"
};

// A counter's count under one reason ("refused", "status 503", ...). A reason that groups
// messages differing per connection (metrics/error_group.hpp) has one of them in full.
struct ReasonCount {
  std::string reason;
  std::uint64_t count = 0;
  std::string example;  // empty when the reason is the message itself
};

// One metric over a window (the whole run, or one second). Which fields mean something
// depends on `kind`; the others stay zero.
struct MetricFigures {
  std::string name;
  metrics::Kind kind = metrics::Kind::Counter;
  bool present = false;     // anything recorded in the window
  std::uint64_t count = 0;  // timing: samples; counter: sum; check: passes + fails; gauge: samples
  double rate = 0;          // count per second of the window
  // Timing and Distribution, when count > 0 (ns for a timing, the values' unit otherwise).
  double mean = 0;  // a mean need not be a whole nanosecond
  Nanos min = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0, max = 0;
  // Counter: the breakdown, most frequent first (ties by reason).
  std::vector<ReasonCount> reasons;
  // Check.
  std::uint64_t passes = 0, fails = 0;
  // Gauge.
  double gauge_max = 0, gauge_last = 0;
};

// One merged second of the run's timeline.
struct SecondResult {
  std::int64_t second = 0;  // index since the start: figures cover [second, second + 1) s
  double vus = 0;           // live VUs at the end of the second (the `vus` gauge)
  std::uint64_t iterations = 0;  // finished in this second
  std::uint64_t errors = 0;      // iterations that raised
  std::uint64_t dropped = 0;     // arrivals that never started (iterations.dropped)
  metrics::RequestTally requests;
  // The generator's process CPU time (user + system) over this second, per second of
  // wall time: 1.0 is one core busy all second. Empty when the second was merged late
  // and so never seen live, where it is measured.
  std::optional<double> cpu_cores;
  std::vector<MetricFigures> metrics;  // the metrics recorded in this second, by name
};

// The load the run was asked for, after CLI overrides.
struct RunOptions {
  LoadShape shape;
  std::vector<metrics::ThresholdSpec> thresholds;  // in the order they were declared
};

// One scenario's run. A results file holds several (runs one after the other today,
// scenarios in parallel later).
struct ScenarioResult {
  std::string scenario;  // the scenario's name
  std::string file;      // the scenario file as given on the command line
  RunOptions options;
  std::string started_at;  // wall clock at the start, ISO 8601 UTC: "2024-05-01T12:00:00.123Z"
  std::string host;        // hostname of the generator
  int threads = 0;         // worker threads
  // How they used their CPUs (`run --cpu-policy`): "normal", "batch", "poll" or "adaptive". A
  // batch run's timings trade some precision for throughput (docs/design/027), a polling run
  // holds a core per worker (029), an adaptive one while busy (054): the record says which.
  std::string cpu_policy = "normal";
  int ranks = 1;           // processes (MPI ranks) that generated the load
  Nanos duration = 0;      // how long the run lasted
  // The summary's figures cover [window_start, window_end] from the start of the run;
  // rates are per second of this window.
  Nanos window_start = 0;
  Nanos window_end = 0;
  int interrupts = 0;  // Ctrl-Cs received (1: graceful stop; 2: stopped at once)
  // Distributed runs: ranks that died or stalled; what they measured until then is kept.
  struct LostRank {
    int rank = 0;
    Nanos at = 0;  // since the start of the run
    std::string reason;
  };
  std::vector<LostRank> lost_ranks;

  std::vector<MetricFigures> metrics;  // every metric, checks included, sorted by name
  metrics::RequestTally requests;
  std::vector<metrics::ThresholdResult> thresholds;  // in the order they were declared
  std::vector<IterationErrorGroup> iteration_errors;  // most frequent first
  std::vector<SecondResult> timeline;                 // in order of seconds
  std::optional<GeneratorFigures> generator;  // the generator's own figures over the run
  std::optional<FindLimitResult> find_limit;  // with --find-limit: the steps and the limit

  // Every threshold passed (true when there are none) and no rank was lost: figures that
  // miss a lost rank's share of the load do not pass, whatever they say.
  bool passed() const;
  // One word for the outcome, "passed", "failed" (a threshold, or find-limit found no
  // level that held) or "rank lost", and a sentence that says why.
  std::string verdict() const;
  std::string reason() const;
};

struct RunResult {
  int version = kResultsSchemaVersion;
  ToolInfo tool;
  std::vector<ScenarioResult> results;
  // False in a file written while the run went on (cli/results_checkpoint.hpp): what was
  // measured up to its last complete second, kept in case the process never gets to
  // write the end. `incomplete_reason` then says why it may have stopped there.
  bool complete = true;
  std::string incomplete_reason;

  bool passed() const;  // complete, and every scenario passed
  // "passed", "failed", "rank lost" (the first scenario that did not pass says which) or
  // "incomplete", and the sentence that says why.
  std::string verdict() const;
  std::string reason() const;
};

// The figures of `name` in `metrics`, nullptr when absent.
const MetricFigures* find_figures(const std::vector<MetricFigures>& metrics, std::string_view name);

}  // namespace stampede::report
