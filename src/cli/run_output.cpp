#include "cli/run_output.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <string>

#include "metrics/metric_table.hpp"
#include "metrics/names.hpp"
#include "proto/duration.hpp"
#include "report/run_result_builder.hpp"
#include "report/summary_table.hpp"
#include "report/timestamp.hpp"

namespace stampede::cli {

namespace {

// CPU time (user + system) of every thread of this process.
Nanos process_cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<Nanos>(ts.tv_sec) * kSecond + ts.tv_nsec;
}

// Seconds merged closer together than this (a burst at the end of a run, or a worker
// catching up) share one CPU figure: a ratio over a few microseconds means nothing.
constexpr Nanos kShortestCpuInterval = 100 * kMilli;

}  // namespace

RunOutput::RunOutput(report::ScenarioResult header, bool quiet, metrics::Registry& registry,
                     metrics::Collector& collector, LiveExports* live)
    : result_(std::move(header)),
      quiet_(quiet),
      registry_(registry),
      collector_(collector),
      live_(live),
      style_(report::progress_style_for(STDERR_FILENO)) {}

void RunOutput::started(Nanos t0) {
  std::lock_guard lock(mutex_);
  t0_ = t0;
  // The wall clock at t0 (a moment from now): reports say when the run happened.
  const Nanos until_start = t0 - SteadyClock::monotonic_now();
  result_.started_at = report::iso8601_utc(std::chrono::system_clock::now() + std::chrono::nanoseconds(until_start));
  last_cpu_ = process_cpu_now();
  last_wall_ = SteadyClock::monotonic_now();
  if (live_ != nullptr)
    live_->checkpoint().scenario_started(this, result_, collector_, registry_, result_.options.thresholds);
  if (quiet_) return;
  const LoadShape& shape = result_.options.shape;
  const char* model = shape.model == LoadModel::Rate ? "arrival rate" : "VUs";
  const double seconds = static_cast<double>(shape.total_duration()) / kSecond;
  const std::string load = shape.iterations > 0
                               ? fmt::format("{}, {} iterations within {:.1f}s", model, shape.iterations, seconds)
                               : fmt::format("{}, {:.1f}s", model, seconds);
  std::fputs(fmt::format("running {} ({})\n", result_.scenario, load).c_str(), stderr);
}

void RunOutput::on_second(const metrics::Snapshot& second) {
  std::lock_guard lock(mutex_);
  const Nanos now = SteadyClock::monotonic_now();
  double cores = 0;
  if (now - last_wall_ >= kShortestCpuInterval || cpu_cores_.empty()) {
    const Nanos cpu = process_cpu_now();
    cores = now > last_wall_ ? static_cast<double>(cpu - last_cpu_) / static_cast<double>(now - last_wall_) : 0;
    last_cpu_ = cpu;
    last_wall_ = now;
  } else {
    cores = cpu_cores_.rbegin()->second;
  }
  cpu_cores_[second.second] = cores;
  totals_.add(second, registry_);
  if (live_ != nullptr) export_second_locked(second, now - t0_, cores);
  if (quiet_) return;
  auto figures = report::progress_figures(second, registry_, totals_, result_.options.shape.total_duration());
  // The last window is partial: show the time really elapsed, not the end of its second.
  figures.elapsed = std::min(figures.elapsed, now - t0_);
  std::fputs(report::progress_frame(report::format_progress(figures), style_).c_str(), stderr);
  std::fflush(stderr);
  progress_shown_ = true;
}

void RunOutput::export_second_locked(const metrics::Snapshot& second, Nanos elapsed, double cpu_cores) {
  report::SecondResult figures =
      report::second_result(second, registry_, report::second_window(second.second, elapsed));
  figures.cpu_cores = cpu_cores;
  if (auto failure = live_->second(result_.scenario, figures)) warn_locked(*failure);
  if (live_->checkpoint().active()) live_->checkpoint().second(this, figures);
  if (!live_->serves()) return;
  // The run so far: what a scrape should see between two merged seconds.
  const metrics::Summary summary = collector_.summary();
  report::ScenarioResult so_far = result_;
  so_far.duration = elapsed;
  so_far.window_end = elapsed;
  so_far.metrics = report::figures_of(metrics::make_metric_table(summary, registry_),
                                      static_cast<double>(elapsed) / kSecond);
  so_far.requests = summary.requests;
  so_far.timeline = {std::move(figures)};
  live_->progress(std::move(so_far));
}

void RunOutput::clear_progress_locked() {
  if (progress_shown_) {
    std::fputs(report::progress_end(style_).c_str(), stderr);
    progress_shown_ = false;
  }
}

void RunOutput::interrupted(int n, Nanos graceful_stop) {
  std::lock_guard lock(mutex_);
  result_.interrupts = n;
  clear_progress_locked();
  // Without a graceful stop nothing waits: the running iterations are cut off, and saying
  // "waiting" would make a user wonder what the run still waits for.
  if (n > 1)
    std::fputs("interrupted again: stopping now.\n", stderr);
  else if (graceful_stop > 0)
    std::fprintf(stderr,
                 "interrupted: no new iterations; running ones may finish within graceful_stop (%s). "
                 "Ctrl-C again to stop at once.\n",
                 proto::format_duration(graceful_stop).c_str());
  else
    std::fputs("interrupted: no new iterations; running ones are cut off (graceful_stop is 0).\n", stderr);
}

void RunOutput::warn(const std::string& message) {
  std::lock_guard lock(mutex_);
  warn_locked(message);
}

void RunOutput::warn_locked(const std::string& message) {
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

int RunOutput::finish(Nanos duration, const std::vector<metrics::ThresholdSpec>& thresholds,
                      const std::vector<std::string>& server_exposed) {
  std::lock_guard lock(mutex_);
  clear_progress_locked();
  report::SummaryModel model =
      report::summary_model_of(collector_.summary(), registry_, result_.scenario, duration, thresholds, server_exposed);
  model.all_metrics = all_metrics_;
  const bool failed = std::any_of(model.thresholds.begin(), model.thresholds.end(), [](const auto& t) { return !t.pass; });
  std::fputs(report::render_summary_table(model).c_str(), stdout);
  std::fflush(stdout);
  hint_at_limits(model.metrics);

  report::fill_summary(result_, model);
  result_.timeline = timeline(duration);
  if (live_ != nullptr) live_->checkpoint().scenario_stopped(this, result_);
  if (live_ != nullptr && live_->serves()) {
    // Scrapes after the end see the final figures.
    report::ScenarioResult final_figures = result_;
    auto& latest = final_figures.timeline;
    if (latest.size() > 1) latest.erase(latest.begin(), latest.end() - 1);  // the latest second only
    live_->progress(std::move(final_figures));
  }
  return failed ? 1 : 0;
}

std::vector<report::SecondResult> RunOutput::timeline(Nanos duration) const {
  std::vector<report::SecondResult> out;
  for (const auto& entry : collector_.timeline()) {
    report::SecondResult s =
        report::second_result(*entry, registry_, report::second_window(entry->second, duration));
    if (const auto it = cpu_cores_.find(entry->second); it != cpu_cores_.end()) s.cpu_cores = it->second;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace stampede::cli
