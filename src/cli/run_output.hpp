#pragma once
// What a run prints: the progress line each merged second (stderr), notices, and at the
// end the summary table and threshold verdicts (stdout).
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "common/load_shape.hpp"
#include "metrics/collector.hpp"
#include "metrics/metric_table.hpp"
#include "metrics/threshold.hpp"
#include "report/progress_line.hpp"

namespace stampede::cli {

class RunOutput {
 public:
  RunOutput(std::string scenario, const LoadShape& shape, bool quiet, metrics::Registry& registry,
            metrics::Collector& collector);

  void started(Nanos t0);
  // A merged second (called on a worker's thread, one at a time).
  void on_second(const metrics::Snapshot& second);
  // The n-th Ctrl-C.
  void interrupted(int n);
  void warn(const std::string& message);
  // Prints the summary and verdicts for a run that lasted `duration`; returns the exit
  // status (1 when a threshold failed).
  int finish(Nanos duration, const std::vector<metrics::ThresholdSpec>& thresholds);

 private:
  void clear_progress_locked();
  void hint_at_limits(const metrics::MetricTable& table);

  std::string scenario_;
  LoadShape shape_;
  bool quiet_;
  metrics::Registry& registry_;
  metrics::Collector& collector_;
  report::ProgressStyle style_;
  report::ProgressTotals totals_;
  std::mutex mutex_;
  bool progress_shown_ = false;
  Nanos t0_ = 0;
};

}  // namespace stampede::cli
