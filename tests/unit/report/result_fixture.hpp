#pragma once
// A fixed RunResult for the writers' tests: one scenario with a timing, a counter with
// reasons, a gauge, a check, two thresholds (one failed), an iteration error, and two
// seconds of timeline. Names and messages carry markup and quotes, to test escaping.
#include "report/run_result.hpp"

namespace stampede::report::testing {

inline constexpr Nanos kMs = 1'000'000;

inline MetricFigures timing_figures(std::string name, std::uint64_t count, Nanos p50, Nanos p95, Nanos p99) {
  MetricFigures f;
  f.name = std::move(name);
  f.kind = metrics::Kind::Timing;
  f.present = count > 0;
  f.count = count;
  f.rate = static_cast<double>(count) / 10;
  f.mean = static_cast<double>(p50) + 0.5;
  f.min = p50 / 2;
  f.p50 = p50;
  f.p90 = (p50 + p95) / 2;
  f.p95 = p95;
  f.p99 = p99;
  f.max = p99 * 2;
  return f;
}

// A distribution of sizes (live.diff.bytes): 2 diffs of 120 B, 1 of 3,400 B.
inline MetricFigures diff_sizes() {
  MetricFigures f = timing_figures("live.diff.bytes", 3, 120, 3400, 3400);
  f.kind = metrics::Kind::Distribution;
  f.mean = 1213.5;
  f.min = 120;
  f.max = 3400;
  return f;
}

inline MetricFigures counter_figures(std::string name, std::uint64_t count, std::vector<ReasonCount> reasons = {}) {
  MetricFigures f;
  f.name = std::move(name);
  f.kind = metrics::Kind::Counter;
  f.present = true;
  f.count = count;
  f.rate = static_cast<double>(count) / 10;
  f.reasons = std::move(reasons);
  return f;
}

inline MetricFigures check_figures(std::string name, std::uint64_t passes, std::uint64_t fails) {
  MetricFigures f;
  f.name = std::move(name);
  f.kind = metrics::Kind::Check;
  f.present = true;
  f.count = passes + fails;
  f.passes = passes;
  f.fails = fails;
  return f;
}

inline MetricFigures gauge_figures(std::string name, double max, double last) {
  MetricFigures f;
  f.name = std::move(name);
  f.kind = metrics::Kind::Gauge;
  f.present = true;
  f.count = 3;
  f.gauge_max = max;
  f.gauge_last = last;
  return f;
}

inline metrics::ThresholdResult threshold(std::string metric, std::string aggregation, double limit, bool pass,
                                          double value) {
  metrics::ThresholdResult t;
  t.spec = {std::move(metric), std::move(aggregation), limit, "api.lua"};
  t.pass = pass;
  t.judged = true;
  t.value = value;
  t.message = pass ? "ok" : "over the limit";
  return t;
}

inline ScenarioResult sample_scenario(std::string name = "Demo <script>\"Api\"</script>") {
  ScenarioResult r;
  r.scenario = std::move(name);
  r.file = "loadtest/api.lua";
  r.options.shape.model = LoadModel::Vus;
  r.options.shape.start = 0;
  r.options.shape.stages = {{2 * kSecond, 50}, {8 * kSecond, 50}};
  r.options.shape.graceful_stop = 500 * kMs;
  r.options.thresholds = {{"http.request", "p95", 250, "api.lua"}, {"status is 200", "failed_rate", 0.01, "api.lua"}};
  r.started_at = "2024-05-01T12:00:00.123Z";
  r.host = "ci-runner";
  r.threads = 2;
  r.cpu_policy = "batch";
  r.ranks = 1;
  r.duration = 10 * kSecond;
  r.window_start = 0;
  r.window_end = 10 * kSecond;
  r.metrics = {
      timing_figures("http.request", 1000, 5 * kMs + 490'000, 31 * kMs + 900'000, 97 * kMs + 770'000),
      counter_figures("http.request.errors", 12, {{"refused", 9}, {"status 503", 3}}),
      counter_figures("iteration.errors", 2, {{"api.lua:12: boom <b>\"bad\"</b>", 2}}),
      counter_figures("iterations", 1000),
      check_figures("status is 200", 990, 10),
      gauge_figures("vus", 50, 0),
  };
  r.requests = {1012, 1000, 12};
  r.thresholds = {threshold("http.request", "p95", 250, true, 31.9),
                  threshold("status is 200", "failed_rate", 0.001, false, 0.01)};
  r.iteration_errors = {{"api.lua:12: boom <b>\"bad\"</b>", 2}};
  for (std::int64_t s = 0; s < 2; ++s) {
    SecondResult second;
    second.second = s;
    second.vus = 25.0 * static_cast<double>(s + 1);
    second.iterations = 100;
    second.errors = static_cast<std::uint64_t>(s);
    second.dropped = 0;
    second.requests = {101, 100, 1};
    if (s == 0) second.cpu_cores = 0.25;
    second.metrics = {timing_figures("http.request", 100, 5 * kMs, 30 * kMs, 90 * kMs), counter_figures("iterations", 100),
                      check_figures("status is 200", 99, 1)};
    r.timeline.push_back(std::move(second));
  }
  return r;
}

inline RunResult sample_run() {
  RunResult run;
  run.tool = {"stampede", "0.1.0", "abc1234"};
  run.results.push_back(sample_scenario());
  return run;
}

}  // namespace stampede::report::testing
