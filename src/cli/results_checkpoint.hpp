#pragma once
// Keeps --out and --html current while a run goes (docs/design/037-results-kept-current.md),
// so that a process that never reaches the end of its run (kill -9, the OOM killer, mpirun
// ending the job when a rank dies) leaves a valid results file: what was measured up to
// the last complete second, with "complete": false and the reason it may have stopped.
//
// A thread of its own writes them, each time to a temporary file renamed over the old one
// (a reader, or a process killed mid-write, never sees half a file): after each merged
// second, or less often when writing grows costly (a long run's timeline), so that it
// takes at most ~2% of one core. write_now() writes at once: a lost rank, or a SIGTERM,
// may be the last chance (mpirun's SIGKILL follows its SIGTERM within milliseconds to a
// second: the write at the SIGTERM is a best effort; the one after the last merged second
// is what a kill cannot take away).
//
// What it writes comes from the runs as they report: a running scenario's figures are
// read from its Collector and Registry (under this class's lock, so they must outlive
// scenario_stopped()), its seconds as they are merged, and each scenario's final result.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/result_outputs.hpp"
#include "metrics/collector.hpp"
#include "metrics/threshold.hpp"
#include "report/run_result.hpp"

namespace stampede::cli {

class ResultsCheckpoint {
 public:
  // Inactive (every call a no-op) unless `outputs` asks for --out or --html at a path
  // that can be replaced (a regular file or none yet: not /dev/stdout or a pipe).
  ResultsCheckpoint(const ResultOutputs& outputs, report::ToolInfo tool);
  ~ResultsCheckpoint();  // stop()
  ResultsCheckpoint(const ResultsCheckpoint&) = delete;
  ResultsCheckpoint& operator=(const ResultsCheckpoint&) = delete;

  bool active() const { return active_; }

  // A run of a scenario starts; `source` identifies it in the calls below (a run's
  // RunOutput: --parallel runs several at once). `collector` and `registry` stay alive
  // until scenario_stopped(source).
  void scenario_started(const void* source, report::ScenarioResult header, const metrics::Collector& collector,
                        const metrics::Registry& registry, std::vector<metrics::ThresholdSpec> thresholds);
  // One of its merged seconds, as the timeline writes it.
  void second(const void* source, report::SecondResult second);
  // Its run has ended with `result`; the collector and registry are no longer read.
  void scenario_stopped(const void* source, report::ScenarioResult result);
  // A scenario's final result (a find-limit's, with its steps): it replaces every stopped run.
  void scenario_finished(report::ScenarioResult result);

  // Writes at once (within milliseconds), saying `why` the file may end there; `why` is
  // then what every later write of this run says too.
  void write_now(std::string why);
  // Waits until everything reported so far is on disk (tests, and before a write_now's
  // caller may be killed). Returns false when the writer has stopped.
  bool flush();
  // No more writes; joins the writer. Called before the final files are written.
  void stop();

 private:
  struct Run {
    std::uint64_t generation = 0;   // a new run of the same source starts a new timeline
    report::ScenarioResult header;  // or, once stopped, the whole result
    const metrics::Collector* collector = nullptr;  // null once stopped
    const metrics::Registry* registry = nullptr;
    std::vector<metrics::ThresholdSpec> thresholds;
    std::vector<report::SecondResult> new_seconds;  // reported, not yet taken by the writer
  };

  void writer_loop();
  // What snapshot_locked() lends the RunResult it returns, to be given back after the
  // write: copying a long run's timeline every second would cost more than writing it.
  struct Lent {
    std::size_t finished = 0;  // the first results are finished_
    std::vector<std::pair<const void*, std::size_t>> timelines;  // a source's timeline is results[index]'s
  };
  // Under the lock: what to write next, the writer's timelines brought up to date.
  report::RunResult snapshot_locked(Lent& lent);
  // Without the lock: writes both files; returns false (after one warning) when it cannot.
  bool write_files(const report::RunResult& run);

  bool active_ = false;
  ResultOutputs outputs_;
  report::ToolInfo tool_;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable written_;
  std::map<const void*, Run> runs_;  // in the order of their keys: fine, a file lists them all
  std::vector<report::ScenarioResult> finished_;  // owned by the writer once taken
  std::vector<report::ScenarioResult> new_finished_;
  bool dirty_ = false;
  bool urgent_ = false;
  bool stopping_ = false;
  std::string why_;  // set by write_now
  std::uint64_t reported_ = 0;  // changes reported so far
  std::uint64_t written_through_ = 0;  // changes on disk
  bool warned_ = false;

  std::uint64_t generations_ = 0;

  // The writer's own: each running run's timeline so far, by source.
  struct Timeline {
    std::uint64_t generation = 0;
    std::vector<report::SecondResult> seconds;
  };
  std::map<const void*, Timeline> timelines_;
  std::thread writer_;
};

}  // namespace stampede::cli
