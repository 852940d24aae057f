#pragma once
// What a run reports: the progress line each merged second (stderr), notices, the live
// exports (--out-stream, --prometheus), and at the end the summary table and threshold
// verdicts (stdout) and the run's ScenarioResult, from which the result files are written.
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cli/live_exports.hpp"
#include "common/load_shape.hpp"
#include "metrics/collector.hpp"
#include "metrics/metric_table.hpp"
#include "metrics/threshold.hpp"
#include "report/progress_line.hpp"
#include "report/run_result.hpp"

namespace stampede::cli {

class RunOutput {
 public:
  // `header` describes the run before it starts: scenario, file, options, threads, host,
  // ranks. `live` (optional) receives every merged second.
  RunOutput(report::ScenarioResult header, bool quiet, metrics::Registry& registry, metrics::Collector& collector,
            LiveExports* live = nullptr);

  // --summary all: the summary lists every metric, those with nothing recorded too.
  void list_every_metric(bool all) { all_metrics_ = all; }
  void started(Nanos t0);
  // A merged second (called on a worker's thread, one at a time).
  void on_second(const metrics::Snapshot& second);
  // The n-th Ctrl-C; `graceful_stop` is how long the first lets running iterations finish.
  void interrupted(int n, Nanos graceful_stop);
  void warn(const std::string& message);
  // Prints the summary and verdicts for a run that lasted `duration` and keeps the
  // result; returns the exit status (1 when a threshold failed).
  int finish(Nanos duration, const std::vector<metrics::ThresholdSpec>& thresholds);
  // The whole run, after finish().
  const report::ScenarioResult& result() const { return result_; }
  // Since the run's start (0 before it). On the thread that called started().
  Nanos elapsed() const { return t0_ > 0 ? SteadyClock::monotonic_now() - t0_ : 0; }

 private:
  void clear_progress_locked();
  void warn_locked(const std::string& message);
  void hint_at_limits(const metrics::MetricTable& table);
  void export_second_locked(const metrics::Snapshot& second, Nanos elapsed, double cpu_cores);
  std::vector<report::SecondResult> timeline(Nanos duration) const;

  report::ScenarioResult result_;  // the header until finish() completes it
  bool quiet_;
  bool all_metrics_ = false;
  metrics::Registry& registry_;
  metrics::Collector& collector_;
  LiveExports* live_;
  report::ProgressStyle style_;
  report::ProgressTotals totals_;
  std::mutex mutex_;
  bool progress_shown_ = false;
  Nanos t0_ = 0;
  // The generator's CPU use per second, measured as each second is merged (the process
  // CPU clock against the monotonic clock since the previous merged second).
  Nanos last_cpu_ = 0;
  Nanos last_wall_ = 0;
  std::map<std::int64_t, double> cpu_cores_;
};

}  // namespace stampede::cli
