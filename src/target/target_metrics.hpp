#pragma once
// GET /metrics of the built-in target: its own figures in the Prometheus text format 0.0.4, so
// that `stampede run --server-metrics` (and `stampede demo`) has a server to watch without a
// Phoenix app. Each process answers for itself (with --procs N, like /__truth: the kernel
// picks which process a connection reaches), summing its event loops:
//
//   stampede_target_connections                 gauge    TCP connections open (HTTP and WebSocket)
//   stampede_target_http_requests_total         counter  HTTP requests (not /metrics, not /__*)
//   stampede_target_http_requests_in_flight     gauge    received, not yet answered (held)
//   stampede_target_channel_joins_total         counter  Phoenix channel joins accepted
//   stampede_target_websocket_sessions{kind}    gauge    open WebSockets: channels, liveview, echo
//   stampede_target_event_loop_lag_seconds      histogram  how late a 100 ms timer fired
//   stampede_target_event_loops                 gauge    event loops (threads)
//   process_resident_memory_bytes               gauge    resident set size
//   process_cpu_seconds_total                   counter  user + system CPU time
//
// The event-loop lag is probed from the first /metrics request on (a timer per loop, ten
// times a second): a target nobody scrapes, such as the calibrated echo of the accuracy
// tests, has no timer firing between its requests.
#include <atomic>
#include <string>
#include <vector>

namespace stampede::target {

class Worker;

class TargetMetrics {
 public:
  explicit TargetMetrics(std::vector<Worker*> workers);

  // The body of GET /metrics. Safe from any thread (the workers' counters are atomics).
  std::string render() const;
  // Starts every loop's lag probe, once (later calls do nothing). Safe from any thread.
  void start_lag_probes();

 private:
  std::vector<Worker*> workers_;
  std::atomic<bool> probing_{false};
};

// The Content-Type of the 0.0.4 text format.
inline constexpr const char* kPrometheusTextType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace stampede::target
