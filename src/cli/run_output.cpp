#include "cli/run_output.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include "metrics/metric_table.hpp"
#include "metrics/names.hpp"
#include "report/summary_table.hpp"

namespace stampede::cli {

RunOutput::RunOutput(std::string scenario, const LoadShape& shape, bool quiet, metrics::Registry& registry,
                     metrics::Collector& collector)
    : scenario_(std::move(scenario)),
      shape_(shape),
      quiet_(quiet),
      registry_(registry),
      collector_(collector),
      style_(report::progress_style_for(STDERR_FILENO)) {}

void RunOutput::started(Nanos t0) {
  std::lock_guard lock(mutex_);
  t0_ = t0;
  if (quiet_) return;
  const char* model = shape_.model == LoadModel::Rate ? "arrival rate" : "VUs";
  std::fputs(fmt::format("running {} ({}, {:.1f}s)\n", scenario_, model,
                         static_cast<double>(shape_.total_duration()) / kSecond)
                 .c_str(),
             stderr);
}

void RunOutput::on_second(const metrics::Snapshot& second) {
  std::lock_guard lock(mutex_);
  totals_.add(second, registry_);
  if (quiet_) return;
  auto figures = report::progress_figures(second, registry_, totals_, shape_.total_duration());
  // The last window is partial: show the time really elapsed, not the end of its second.
  figures.elapsed = std::min(figures.elapsed, SteadyClock::monotonic_now() - t0_);
  std::fputs(report::progress_frame(report::format_progress(figures), style_).c_str(), stderr);
  std::fflush(stderr);
  progress_shown_ = true;
}

void RunOutput::clear_progress_locked() {
  if (progress_shown_) {
    std::fputs(report::progress_end(style_).c_str(), stderr);
    progress_shown_ = false;
  }
}

void RunOutput::interrupted(int n) {
  std::lock_guard lock(mutex_);
  clear_progress_locked();
  std::fputs(n == 1 ? "interrupted: no new iterations; waiting for running ones (graceful_stop). "
                      "Ctrl-C again to stop at once.\n"
                    : "interrupted again: stopping now.\n",
             stderr);
}

void RunOutput::warn(const std::string& message) {
  std::lock_guard lock(mutex_);
  clear_progress_locked();
  std::fprintf(stderr, "warning: %s\n", message.c_str());
}

// Running out of file descriptors or source ports is the generator's limit, not the
// server's: say so once, with what to do, instead of leaving it in an error breakdown.
void RunOutput::hint_at_limits(const metrics::MetricTable& table) {
  std::uint64_t fd = 0, ports = 0;
  for (const auto& m : table) {
    if (m.kind != metrics::Kind::Counter) continue;
    if (auto it = m.data.reasons.find("fd"); it != m.data.reasons.end()) fd += it->second;
    if (auto it = m.data.reasons.find("ports"); it != m.data.reasons.end()) ports += it->second;
  }
  if (fd > 0)
    std::fprintf(stderr,
                 "note: %llu connections failed because this process ran out of file descriptors (ulimit -n is %ld). "
                 "Run fewer VUs per process, spread the load over more processes (MPI ranks), or raise `ulimit -n`.\n",
                 static_cast<unsigned long long>(fd), sysconf(_SC_OPEN_MAX));
  if (ports > 0)
    std::fprintf(stderr,
                 "note: %llu connections failed because no local port was free for the target address. "
                 "Spread connections over more source addresses with --local-addresses 127.0.0.2-127.0.0.50 "
                 "(or options.local_addresses), or add target addresses.\n",
                 static_cast<unsigned long long>(ports));
}

int RunOutput::finish(Nanos duration, const std::vector<metrics::ThresholdSpec>& thresholds) {
  std::lock_guard lock(mutex_);
  clear_progress_locked();
  const metrics::Summary summary = collector_.summary();
  report::SummaryModel model;
  model.scenario = scenario_;
  model.duration = duration;
  model.window_start = 0;
  model.window_end = duration;
  model.metrics = metrics::make_metric_table(summary, registry_);
  model.requests = summary.requests;
  const double seconds = std::max(1e-9, static_cast<double>(duration) / kSecond);
  bool failed = false;
  for (const auto& spec : thresholds) {
    model.thresholds.push_back(metrics::judge(spec, model.metrics, seconds));
    failed = failed || !model.thresholds.back().pass;
  }
  if (const auto* errors = metrics::find_metric(model.metrics, metrics::names::kIterationErrors)) {
    for (const auto& [message, count] : errors->data.reasons) model.iteration_errors.push_back({message, count});
  }
  if (const auto* crashes = metrics::find_metric(model.metrics, "vu.crashes")) {
    for (const auto& [message, count] : crashes->data.reasons)
      model.iteration_errors.push_back({"(VU crashed) " + message, count});
  }
  std::fputs(report::render_summary_table(model).c_str(), stdout);
  std::fflush(stdout);
  hint_at_limits(model.metrics);
  return failed ? 1 : 0;
}

}  // namespace stampede::cli
