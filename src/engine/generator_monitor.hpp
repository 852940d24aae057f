#pragma once
// Once a second, on the main thread, measures what the worker threads cannot measure about
// themselves without disturbing their loops: each worker thread's CPU time (its CPU clock,
// clock_gettime on pthread_getcpuclockid) and the process's open file descriptors. It
// delivers them as one more "worker" of the Collector, so the generator's figures are part
// of each merged second like any other metric (thresholds, timeline, results).
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <ctime>
#include <functional>
#include <vector>

#include "common/clock.hpp"
#include "metrics/metric_sink.hpp"

namespace stampede::engine {

// One worker thread as the monitor sees it: its CPU clock, and its time in empty polls so
// far (--cpu-policy poll: on the CPU, but not work; null or 0 for a worker that sleeps).
struct WorkerCpu {
  clockid_t clock{};
  std::function<Nanos()> idle_polled;
  pid_t tid = 0;  // the thread's id: /proc/self/task/<tid>/schedstat says how long it waited for a CPU
};

class GeneratorMonitor {
 public:
  // `publish(snapshot, last)` receives each second (`last`: the final, partial one).
  GeneratorMonitor(boost::asio::io_context& io, metrics::Registry& registry, std::vector<WorkerCpu> workers,
                   std::function<void(metrics::Snapshot, bool last)> publish);

  // Seconds are counted from `t0`, the run's start (absolute monotonic ns).
  void start(Nanos t0);
  // Delivers the partial last second. Call before the worker threads are joined (their
  // CPU clocks go away with them).
  void finish();

  // The open-file limit (RLIMIT_NOFILE, soft), 0 when unknown.
  static double fd_limit();
  // Open file descriptors of this process, -1 when /proc/self/fd cannot be read.
  static long open_fds();

 private:
  void arm();
  void sample(bool last);

  boost::asio::steady_timer timer_;
  metrics::MetricSink sink_;
  std::vector<WorkerCpu> workers_;
  std::vector<Nanos> last_cpu_;     // per worker: its CPU time at the last sample
  std::vector<Nanos> last_polled_;  // and its time in empty polls
  std::vector<Nanos> last_waited_;  // and its time waiting for a CPU (-1: unknown)
  std::function<void(metrics::Snapshot, bool)> publish_;
  metrics::MetricId cpu_, busy_, wall_, wait_, fds_;
  Nanos t0_ = 0;
  Nanos last_wall_ = 0;
  std::int64_t second_ = 0;
  bool finished_ = false;
};

}  // namespace stampede::engine
