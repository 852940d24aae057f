#pragma once
// The generator watching itself. Every run records, each second, how hard Stampede itself
// is working (engine/generator_monitor.hpp and engine/loop_probe.hpp record these):
//
//   generator.cpu         Gauge   the busiest worker thread's CPU use over the second, in %
//   generator.loop_delay  Timing  how late the worker event loops ran a timer (sampled every 20 ms)
//   generator.fds         Gauge   open file descriptors of the process
//   _generator.busy_us    Counter the busiest worker thread's CPU time in µs, and
//   _generator.wall_us    Counter the wall time it was measured over (internal: the mean CPU
//                                 use over any window is the ratio of their sums)
//   _generator.wait_us    Counter the time the most-waiting worker thread was ready to run but
//                                 waited for a CPU, µs (other processes had the cores)
//
// plus what the engine already records (iteration.lag, iterations.dropped). From a window
// of those (the whole run, or a find-limit step's hold) assess_generator() says whether the
// figures measure the server or the generator: a load generator at 100% CPU, or whose loop
// runs late, delays every request it sends and every reply it reads.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.hpp"
#include "metrics/metric_table.hpp"

namespace stampede::metrics {

namespace names {
inline constexpr std::string_view kGeneratorCpu = "generator.cpu";
inline constexpr std::string_view kGeneratorLoopDelay = "generator.loop_delay";
inline constexpr std::string_view kGeneratorFds = "generator.fds";
inline constexpr std::string_view kGeneratorBusy = "_generator.busy_us";
inline constexpr std::string_view kGeneratorWall = "_generator.wall_us";
// The worker thread that waited most for a CPU: its wait, µs (schedstat's run-queue time).
inline constexpr std::string_view kGeneratorWait = "_generator.wait_us";
}  // namespace names

// generator.cpu and generator.fds describe one process: ranks of a distributed run merge
// them by the highest (MetricData::one_process), where the workers' VUs add up.
inline bool is_one_process_gauge(std::string_view name) {
  return name == names::kGeneratorCpu || name == names::kGeneratorFds;
}

// Above these the generator is the bottleneck (see docs/design/012-find-limit-and-generator-health.md).
inline constexpr double kBusyCpuPercent = 90;            // mean over the window, busiest thread
inline constexpr Nanos kLateLoop = 50 * kMilli;          // loop delay p99 over the window
inline constexpr Nanos kLateIterations = 50 * kMilli;    // iteration.lag p99 (open model)
inline constexpr double kFdsShareOfLimit = 0.95;         // open fds against RLIMIT_NOFILE
// A worker thread that waited for a CPU this share of the time, while running late, was
// late because other processes had the cores (a server on this machine), not for its own work.
inline constexpr double kCompetingWaitPercent = 10;

struct GeneratorHealth {
  double cpu_mean = 0;  // % of one core, busiest worker thread, mean over the window
  double cpu_peak = 0;  // % in the busiest second
  std::optional<Nanos> loop_delay_p99;
  std::optional<Nanos> loop_delay_max;
  std::optional<Nanos> lag_p99;  // open model only
  std::uint64_t dropped = 0;
  double fds_peak = 0;
  double fds_limit = 0;  // 0: unknown
  std::optional<double> cpu_wait;  // %, the worker that waited most for a CPU, mean over the window
  bool bottleneck = false;
  // "inconclusive: Stampede used 98% of its CPU at 14,000 VUs; latency at this load
  // measures the load generator, not the server" when it was; empty otherwise.
  std::string verdict;
};

// `window_seconds`: how long the window lasted (used when the window has no measured wall time). `load`: what the generator was doing, for
// the verdict ("14,000 VUs", "2,000 iterations/s").
GeneratorHealth assess_generator(const MetricTable& window, double window_seconds, double fds_limit,
                                 std::string_view load);

}  // namespace stampede::metrics
