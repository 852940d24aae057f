#pragma once
// One run of a scenario's load in this process, with everything a run has around it: the
// worker threads, the Collector and the generator monitor (MeasuredRun), Ctrl-C and the
// other stop signals, the other processes of a distributed run (RunPeers), and whoever
// follows it (RunListener: the progress line, the live exports). A plain `stampede run`,
// each of find-limit's runs and probes, each of --parallel's scenarios, rank 0 and every
// other rank of a distributed run go through it; cli/ only wires the command line to it and
// prints what it measured.
#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "clients/server_metrics_options.hpp"
#include "engine/measured_run.hpp"
#include "engine/prepared_scenario.hpp"
#include "metrics/collector.hpp"

namespace stampede::engine {

// What a run tells whoever follows it. Called on the run's threads, one call at a time.
class RunListener {
 public:
  virtual ~RunListener() = default;
  virtual void started(Nanos t0) = 0;
  // Each merged second (this process's, merged with the other ranks' when it merges them).
  virtual void second(const metrics::Snapshot& merged_second) = 0;
  // The n-th Ctrl-C (`signal`: SIGINT, SIGTERM or SIGUSR1); `graceful_stop` is how long the
  // first lets running iterations finish.
  virtual void interrupted(int n, Nanos graceful_stop, int signal) = 0;
  virtual void warn(const std::string& message) = 0;
  // The process may end any moment (a rank was lost; under mpirun the job may be killed):
  // whatever keeps the figures should keep them now.
  virtual void urgent(const std::string& why) = 0;
};

// The other processes of a distributed run, as this one sees them (distributed/ implements
// rank 0's side and the other ranks' over MPI; a single process has none).
class RunPeers {
 public:
  virtual ~RunPeers() = default;
  // Every process of the run, this one included.
  virtual int ranks() const = 0;
  // True on rank 0, which merges the others' seconds into slots 1.. of the run's collector.
  virtual bool merges() const = 0;
  // Before the load is loaded: this process's own collector (another rank sends its seconds).
  virtual void attach(metrics::Collector& own) { (void)own; }
  // The common start once every rank has loaded (`loaded_here`: this one has); nullopt when
  // nothing runs (another rank could not load: rank 0 says why). Rank 0 throws
  // std::runtime_error naming the ranks that could not load or did not answer.
  // `why_not`: when this rank could not load, why (another rank tells rank 0).
  virtual std::optional<Nanos> agree_start(bool loaded_here, const std::string& why_not) = 0;
  // While the load runs, on `io`: rank 0 merges into `merged` and calls `lost` when a rank
  // stops reporting; another rank calls `stop_here` when rank 0 asks it to stop, and `lost`
  // when rank 0 itself went silent.
  virtual void watch(boost::asio::io_context& io, metrics::Collector* merged, Nanos t0,
                     std::function<void(const std::string& warning)> lost,
                     std::function<void(bool graceful)> stop_here) = 0;
  // This process stops (Ctrl-C, or a lost rank): rank 0 tells the others.
  virtual void stop(bool graceful) = 0;
  // After this process's load has ended: rank 0 runs `io` until every rank has reported its
  // end; another rank sends its last seconds and says it is done.
  virtual void wait(boost::asio::io_context& io) = 0;
};

// The plan of a run of `scenario` with `shape` on `threads` workers (segments: this
// process's place among all workers of a distributed run; 0 for one process).
RunPlan run_plan_for(const PreparedScenario& scenario, LoadShape shape, int threads, CpuPolicy cpu_policy,
                     int first_segment = 0, int total_segments = 0);

class Run {
 public:
  struct Options {
    // Ctrl-C (SIGINT), SIGTERM and SIGUSR1 stop the run (the first gracefully, the second at
    // once); one that came before the load started keeps it from starting
    // (engine/stop_signals.hpp). Off on the ranks other than 0, which rank 0 stops.
    bool handle_signals = true;
    // `--server-metrics`: the endpoints this process scrapes while the load runs, as `server.`
    // metrics in the run's seconds (a collector slot of their own). One process of a run
    // only: a plain run, or rank 0 of a distributed one.
    std::optional<clients::ServerMetricsOptions> server_metrics;
  };

  // `listener` and `peers` may be null (a quiet probe; one process).
  Run(RunPlan plan, metrics::Registry& registry, RunListener* listener, RunPeers* peers, Options options);
  Run(RunPlan plan, metrics::Registry& registry, RunListener* listener = nullptr, RunPeers* peers = nullptr)
      : Run(std::move(plan), registry, listener, peers, Options{}) {}
  ~Run();
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  // Sees each merged second (on a worker's thread or the main thread, one at a time),
  // after the listener.
  void observe(std::function<void(const metrics::Snapshot&)> observer);
  // Loads the scenario on every worker, agrees the start with the other ranks, runs the
  // load to its end, stop(), Ctrl-C or a lost rank, then waits for the other ranks; returns
  // how long it lasted (0 when it never started: another rank could not load). Throws
  // scenario::ScenarioError when the scenario does not load here, and StoppedBeforeTheLoad
  // when a stop signal came before its load started (the other ranks are told nothing runs).
  Nanos run();
  // Thread-safe: ends the load at once, everywhere.
  void stop();

  // The run's seconds: this process's, merged with the other ranks' on rank 0.
  metrics::Collector& collector() { return merged_ ? *merged_ : measured_.collector(); }
  // This process's own seconds (the generator's health is judged on one process).
  metrics::Collector& own_collector() { return measured_.collector(); }
  const RunPlan& plan() const { return plan_; }
  int threads() const { return measured_.threads(); }
  Nanos longest_polled() const { return measured_.longest_polled(); }
  int interrupts() const { return interrupts_; }
  // What the server-metrics endpoints exposed (MeasuredRun::server_exposed_names): for the
  // messages of thresholds on server series. From any thread.
  std::vector<std::string> server_exposed_names() const { return measured_.server_exposed_names(); }

 private:
  void interrupt(int signal);

  RunPlan plan_;
  RunListener* listener_;
  RunPeers* peers_;
  Options options_;
  std::unique_ptr<metrics::Collector> merged_;  // rank 0 of several: slot r is rank r
  std::vector<std::function<void(const metrics::Snapshot&)>> observers_;
  std::mutex stop_mutex_;
  bool running_ = false;
  int interrupts_ = 0;
  // Declared last, so destroyed first: its worker threads are joined while what their
  // seconds reach (merged_, the listener, the observers) still exists.
  MeasuredRun measured_;
};

}  // namespace stampede::engine
