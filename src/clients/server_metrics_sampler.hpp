#pragma once
// `--server-metrics`: scrapes a Phoenix app's Prometheus endpoint(s) while a run goes on and
// hands the run one Snapshot of `server.` metrics per second, like a worker does
// (docs/design/038-server-metrics-sampler.md; the metrics: docs/reference/metrics.md).
//
//   ServerMetricsSampler sampler(options, registry, [&](metrics::Snapshot s) {
//     collector.push(slot, std::move(s));
//   });
//   sampler.start(t0);   // t0: the run's start on SteadyClock (monotonic ns)
//   ...
//   sampler.stop();      // delivers the last (partial) second, then joins
//   collector.finish(slot);
//   auto names = sampler.exposed_names();  // for threshold messages (metrics/threshold.hpp)
//
// It runs on a thread of its own, with its own event loop, HTTP client and MetricSink: the
// run's workers never wait for it, and it never waits for the endpoint. Second s is
// delivered at t0 + s + 1 s whether the scrapes of that second answered, stalled, failed
// or were never sent; what happens in between is ServerMetricsPoller's (the logic, tested
// on a simulated clock).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "clients/server_metrics_options.hpp"
#include "common/clock.hpp"
#include "metrics/metric_sink.hpp"

namespace stampede::clients {

class ServerMetricsSampler {
 public:
  // Called on the sampler's thread, once per second in order of seconds (Snapshot::second
  // from 0), the last one from inside stop(). Must not throw.
  using Deliver = std::function<void(metrics::Snapshot)>;

  // Throws std::invalid_argument with validate_server_metrics()'s sentence when `options`
  // are not usable. `registry` must outlive the sampler.
  ServerMetricsSampler(ServerMetricsOptions options, metrics::Registry& registry, Deliver deliver);
  ~ServerMetricsSampler();  // stops
  ServerMetricsSampler(const ServerMetricsSampler&) = delete;
  ServerMetricsSampler& operator=(const ServerMetricsSampler&) = delete;

  // Starts the thread; seconds count from `t0` (SteadyClock::monotonic_now() time). Once.
  void start(Nanos t0);
  // Delivers every second that ended and the current one (partial), abandons scrapes in
  // flight, and joins the thread. Idempotent; returns at once when never started.
  void stop();

  // Every `server.` name the endpoints exposed or the sampler recorded (see
  // ServerMetricsPoller::exposed_names): what a threshold on a server series could name.
  // As of the latest second delivered (all of them after stop()). From any thread, `deliver`
  // and whatever it calls included.
  std::vector<std::string> exposed_names() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stampede::clients
