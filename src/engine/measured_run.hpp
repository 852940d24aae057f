#pragma once
// A scenario's load with its measurements: the worker threads (ScenarioRun) and the
// generator monitor, every second of both merged into one Collector (a slot per worker,
// one for the monitor), on an event loop of the calling thread. What every process that
// runs load does the same way: a plain run, find-limit's probes, rank 0 and the other
// ranks of a distributed run; each adds its own around it (output, signals, ranks).
#include <boost/asio/io_context.hpp>

#include <optional>

#include "engine/generator_monitor.hpp"
#include "engine/scenario_run.hpp"
#include "metrics/collector.hpp"

namespace stampede::engine {

class MeasuredRun {
 public:
  MeasuredRun(RunPlan plan, metrics::Registry& registry);
  ~MeasuredRun();

  // The loop that run_to_end() runs: signals, timers and the like go on it.
  boost::asio::io_context& io() { return io_; }
  // This process's seconds. Subscribe before load().
  metrics::Collector& collector() { return collector_; }
  int threads() const { return threads_; }

  // Starts the worker threads and waits until each has loaded the scenario (throws its
  // error, scenario::ScenarioError).
  void load();
  // The load and the monitor start at `t0` (absolute monotonic ns). After load().
  void start(Nanos t0);
  // Thread-safe: ends the load (each VU's current iteration first when `graceful`).
  void stop(bool graceful);
  // Runs io() until the workers have finished, then delivers the last partial seconds.
  void run_to_end();

 private:
  int threads_;
  metrics::Registry& registry_;
  metrics::Collector collector_;
  boost::asio::io_context io_;
  ScenarioRun run_;
  std::optional<GeneratorMonitor> monitor_;
};

}  // namespace stampede::engine
