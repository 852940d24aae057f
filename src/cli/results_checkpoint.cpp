#include "cli/results_checkpoint.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "cli/result_files.hpp"
#include "report/html_report.hpp"
#include "report/json_results.hpp"
#include "report/run_result_builder.hpp"

namespace stampede::cli {

namespace {

using WallClock = std::chrono::steady_clock;

// A write follows each merged second (what makes the file dirty, once a second), at once
// unless the last write was less than a quarter of a second ago, so that a kill finds the
// last complete second on disk; and it costs at most ~2% of one core: a write that took
// 30 ms (a long run's timeline) waits 1.5 s before the next.
constexpr auto kShortestInterval = std::chrono::milliseconds(250);
constexpr int kIntervalPerWriteCost = 50;

// A path the checkpoint may replace: a regular file, or nothing yet. Not /dev/stdout, a
// pipe or a device, which are written once, at the end, as they always were.
bool replaceable(const std::string& path) {
  if (path.empty()) return false;
  struct stat st{};
  if (stat(path.c_str(), &st) != 0) return true;
  return S_ISREG(st.st_mode);
}

}  // namespace

ResultsCheckpoint::ResultsCheckpoint(const ResultOutputs& outputs, report::ToolInfo tool) : tool_(std::move(tool)) {
  if (replaceable(outputs.json)) outputs_.json = outputs.json;
  if (replaceable(outputs.html)) outputs_.html = outputs.html;
  active_ = !outputs_.json.empty() || !outputs_.html.empty();
  if (active_) writer_ = std::thread([this] { writer_loop(); });
}

ResultsCheckpoint::~ResultsCheckpoint() { stop(); }

void ResultsCheckpoint::scenario_started(const void* source, report::ScenarioResult header,
                                         const metrics::Collector& collector, const metrics::Registry& registry,
                                         std::vector<metrics::ThresholdSpec> thresholds) {
  if (!active_) return;
  std::lock_guard lock(mutex_);
  Run& run = runs_[source];
  run = Run{++generations_, std::move(header), &collector, &registry, std::move(thresholds), {}};
  ++reported_;
  dirty_ = true;
  wake_.notify_one();
}

void ResultsCheckpoint::second(const void* source, report::SecondResult second) {
  if (!active_) return;
  std::lock_guard lock(mutex_);
  const auto it = runs_.find(source);
  if (it == runs_.end() || it->second.collector == nullptr) return;
  it->second.new_seconds.push_back(std::move(second));
  ++reported_;
  dirty_ = true;
  wake_.notify_one();
}

void ResultsCheckpoint::scenario_stopped(const void* source, report::ScenarioResult result) {
  if (!active_) return;
  std::lock_guard lock(mutex_);
  Run& run = runs_[source];
  run.header = std::move(result);
  run.collector = nullptr;
  run.registry = nullptr;
  run.new_seconds.clear();
  ++reported_;
  dirty_ = true;
  wake_.notify_one();
}

void ResultsCheckpoint::scenario_finished(report::ScenarioResult result) {
  if (!active_) return;
  std::lock_guard lock(mutex_);
  new_finished_.push_back(std::move(result));
  ++reported_;
  dirty_ = true;
  wake_.notify_one();
}

void ResultsCheckpoint::write_now(std::string why) {
  if (!active_) return;
  std::lock_guard lock(mutex_);
  why_ = std::move(why);
  ++reported_;
  urgent_ = true;
  wake_.notify_one();
}

bool ResultsCheckpoint::flush() {
  if (!active_) return false;
  std::unique_lock lock(mutex_);
  const std::uint64_t target = reported_;
  urgent_ = true;
  wake_.notify_one();
  written_.wait(lock, [&] { return stopping_ || written_through_ >= target; });
  return written_through_ >= target;
}

void ResultsCheckpoint::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    // What the runs handed over is dropped with them: the caller writes the final files.
    runs_.clear();
  }
  wake_.notify_one();
  if (writer_.joinable()) writer_.join();
  written_.notify_all();
}

report::RunResult ResultsCheckpoint::snapshot_locked(Lent& lent) {
  // A scenario's final result stands for every run of it that has stopped (a find-limit's
  // staircase and probes).
  for (report::ScenarioResult& done : new_finished_) {
    finished_.push_back(std::move(done));
    std::erase_if(runs_, [](const auto& entry) { return entry.second.collector == nullptr; });
  }
  new_finished_.clear();

  report::RunResult out;
  out.tool = tool_;
  out.complete = false;
  out.results = std::move(finished_);  // lent: given back after the write
  lent.finished = out.results.size();
  std::int64_t measured = 0;
  for (auto& [source, run] : runs_) {
    if (run.collector == nullptr) {
      out.results.push_back(run.header);
      continue;
    }
    Timeline& timeline = timelines_[source];
    if (timeline.generation != run.generation) timeline = Timeline{run.generation, {}};
    std::move(run.new_seconds.begin(), run.new_seconds.end(), std::back_inserter(timeline.seconds));
    run.new_seconds.clear();

    const metrics::Summary summary = run.collector->summary();
    const std::int64_t seconds = summary.empty() ? 0 : summary.last_second + 1;
    measured = std::max(measured, seconds);
    report::ScenarioResult current = run.header;
    const Nanos window = seconds * kSecond;
    report::fill_summary(current, report::summary_model_of(summary, *run.registry, current.scenario, window,
                                                           run.thresholds));
    current.timeline = std::move(timeline.seconds);  // lent too
    lent.timelines.emplace_back(source, out.results.size());
    out.results.push_back(std::move(current));
  }
  std::erase_if(timelines_, [&](const auto& entry) {
    const auto run = runs_.find(entry.first);
    return run == runs_.end() || run->second.collector == nullptr;
  });
  out.incomplete_reason =
      !why_.empty() ? why_
                    : fmt::format("written while the run went on, {} s measured: the process ended before it could "
                                  "write the end of the run (killed, out of memory, or stopped by its launcher)",
                                  measured);
  return out;
}

bool ResultsCheckpoint::write_files(const report::RunResult& run) {
  std::string error;
  bool ok = true;
  if (!outputs_.json.empty()) ok = write_text_file(outputs_.json, report::results_json(run) + '\n', error);
  if (ok && !outputs_.html.empty()) ok = write_text_file(outputs_.html, report::html_report(run), error);
  if (!ok && !warned_) {
    // Once: the run goes on, and the end of the run tries again (and says so if it fails).
    std::fprintf(stderr, "warning: keeping the results current: %s\n", error.c_str());
    warned_ = true;
  }
  return ok;
}

void ResultsCheckpoint::writer_loop() {
  std::unique_lock lock(mutex_);
  WallClock::time_point next_due = WallClock::now();
  for (;;) {
    // Asleep until there is something to write, then until it is due (or urgent).
    wake_.wait(lock, [&] { return stopping_ || urgent_ || dirty_; });
    if (!stopping_ && !urgent_) wake_.wait_until(lock, next_due, [&] { return stopping_ || urgent_; });
    if (stopping_) return;
    const std::uint64_t through = reported_;
    urgent_ = false;
    dirty_ = false;
    Lent lent;
    report::RunResult run = snapshot_locked(lent);
    lock.unlock();

    const auto started = WallClock::now();
    write_files(run);
    const auto cost = WallClock::now() - started;
    // Give back what was lent: the finished results, and each running run's timeline
    // (timelines_ and finished_ are the writer's alone: no lock needed).
    finished_.assign(std::make_move_iterator(run.results.begin()),
                     std::make_move_iterator(run.results.begin() + static_cast<std::ptrdiff_t>(lent.finished)));
    for (const auto& [source, index] : lent.timelines) timelines_[source].seconds = std::move(run.results[index].timeline);

    lock.lock();
    written_through_ = through;
    written_.notify_all();
    next_due = started + std::max<WallClock::duration>(kShortestInterval, cost * kIntervalPerWriteCost);
  }
}

}  // namespace stampede::cli
