#pragma once
// A scenario's load with its measurements: the worker threads (ScenarioRun), the
// generator monitor and, when asked, the server-metrics sampler
// (clients/server_metrics_sampler.hpp), every second of each merged into one Collector (a
// slot per worker, one for the monitor, one for the sampler), on an event loop of the
// calling thread. What every process that runs load does the same way: a plain run,
// find-limit's probes, rank 0 and the other ranks of a distributed run; each adds its own
// around it (output, signals, ranks).
#include <boost/asio/io_context.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clients/server_metrics_options.hpp"
#include "engine/generator_monitor.hpp"
#include "engine/scenario_run.hpp"
#include "metrics/collector.hpp"

namespace stampede::clients {
class ServerMetricsSampler;
}

namespace stampede::engine {

class MeasuredRun {
 public:
  // `server_metrics`: the endpoints this process scrapes (one process of a run only: rank 0).
  MeasuredRun(RunPlan plan, metrics::Registry& registry,
              std::optional<clients::ServerMetricsOptions> server_metrics = std::nullopt);
  ~MeasuredRun();

  // The loop that run_to_end() runs: signals, timers and the like go on it.
  boost::asio::io_context& io() { return io_; }
  // This process's seconds. Subscribe before load().
  metrics::Collector& collector() { return collector_; }
  int threads() const { return threads_; }
  // Under --cpu-policy adaptive, the longest any worker polled (ScenarioRun::longest_polled).
  Nanos longest_polled() const { return run_.longest_polled(); }

  // Starts the worker threads and waits until each has loaded the scenario (throws its
  // error, scenario::ScenarioError).
  void load();
  // The load and the monitor start at `t0` (absolute monotonic ns). After load().
  void start(Nanos t0);
  // Thread-safe: ends the load (each VU's current iteration first when `graceful`).
  void stop(bool graceful);
  // Runs io() until the workers have finished, then delivers the last partial seconds.
  void run_to_end();

  // Every `server.` name the endpoints exposed or the sampler recorded, for the messages of
  // thresholds on server series (ServerMetricsSampler::exposed_names); empty without one.
  // From any thread.
  std::vector<std::string> server_exposed_names() const;

 private:
  int threads_;
  metrics::Registry& registry_;
  metrics::Collector collector_;
  boost::asio::io_context io_;
  ScenarioRun run_;
  std::optional<GeneratorMonitor> monitor_;
  std::unique_ptr<clients::ServerMetricsSampler> sampler_;
  std::size_t sampler_slot_ = 0;
};

}  // namespace stampede::engine
