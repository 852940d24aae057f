#include "metrics/generator_health.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "metrics/names.hpp"

namespace stampede::metrics {

namespace {

std::optional<Nanos> percentile(const MetricTable& t, std::string_view name, double p) {
  const NamedMetric* m = find_metric(t, name);
  if (m == nullptr || m->kind != Kind::Timing || m->data.histogram.count() == 0) return std::nullopt;
  return p >= 100 ? m->data.histogram.max() : m->data.histogram.percentile(p);
}

double ms(Nanos ns) { return static_cast<double>(ns) / kMilli; }

}  // namespace

GeneratorHealth assess_generator(const MetricTable& window, double window_seconds, double fds_limit,
                                 std::string_view load) {
  GeneratorHealth h;
  const NamedMetric* wall = find_metric(window, names::kGeneratorWall);
  const double wall_us = wall != nullptr && wall->data.count > 0 ? static_cast<double>(wall->data.count) : window_seconds * 1e6;
  if (const NamedMetric* busy = find_metric(window, names::kGeneratorBusy); busy != nullptr && wall_us > 0)
    h.cpu_mean = std::min(100.0, static_cast<double>(busy->data.count) / wall_us * 100);
  if (const NamedMetric* cpu = find_metric(window, names::kGeneratorCpu); cpu != nullptr && cpu->data.present)
    h.cpu_peak = cpu->data.gauge_max;
  h.loop_delay_p99 = percentile(window, names::kGeneratorLoopDelay, 99);
  h.loop_delay_max = percentile(window, names::kGeneratorLoopDelay, 100);
  h.lag_p99 = percentile(window, names::kIterationLag, 99);
  if (const NamedMetric* dropped = find_metric(window, names::kDroppedIterations)) h.dropped = dropped->data.count;
  if (const NamedMetric* fds = find_metric(window, names::kGeneratorFds); fds != nullptr && fds->data.present)
    h.fds_peak = fds->data.gauge_max;
  h.fds_limit = fds_limit;
  if (const NamedMetric* wait = find_metric(window, names::kGeneratorWait); wait != nullptr && wall_us > 0)
    h.cpu_wait = std::min(100.0, static_cast<double>(wait->data.count) / wall_us * 100);

  const char* tail = "latency at this load measures the load generator, not the server";
  // Late, and not for want of its own CPU time: the workers were ready but other processes
  // had the cores. On the machine under test that is the server itself, and the way out is
  // fewer worker threads (or the server on other cores or machines), not a slower verdict
  // on the server.
  const bool late = (h.loop_delay_p99 && *h.loop_delay_p99 >= kLateLoop) || (h.lag_p99 && *h.lag_p99 >= kLateIterations);
  if (late && h.cpu_wait && *h.cpu_wait >= kCompetingWaitPercent && h.cpu_mean < kBusyCpuPercent) {
    h.verdict = fmt::format(
        "inconclusive: Stampede's workers ran late at {} ({}) because they waited for a CPU {:.0f}% of the time: "
        "other processes had the cores (the server, if it runs on this machine); {}. Give the generator fewer "
        "worker threads (--threads 1) or the server other cores (taskset) or another machine",
        load,
        h.lag_p99 && *h.lag_p99 >= kLateIterations ? fmt::format("iteration.lag p99 {:.1f}ms", ms(*h.lag_p99))
                                                    : fmt::format("loop delay p99 {:.1f}ms", ms(*h.loop_delay_p99)),
        *h.cpu_wait, tail);
  } else if (h.cpu_mean >= kBusyCpuPercent) {
    h.verdict = fmt::format("inconclusive: Stampede used {:.0f}% of its CPU at {}; {}", h.cpu_mean, load, tail);
  } else if (h.loop_delay_p99 && *h.loop_delay_p99 >= kLateLoop) {
    h.verdict = fmt::format(
        "inconclusive: Stampede's event loop ran {:.1f}ms late (p99) at {} (its CPU: {:.0f}%); {}",
        ms(*h.loop_delay_p99), load, h.cpu_mean, tail);
  } else if (h.lag_p99 && *h.lag_p99 >= kLateIterations) {
    h.verdict = fmt::format("inconclusive: Stampede started iterations {:.1f}ms late (iteration.lag p99) at {}; {}",
                            ms(*h.lag_p99), load, tail);
  } else if (fds_limit > 0 && h.fds_peak >= kFdsShareOfLimit * fds_limit) {
    h.verdict = fmt::format(
        "inconclusive: Stampede had {:.0f} of its {:.0f} file descriptors open at {}; connections beyond them "
        "fail in the generator, not the server",
        h.fds_peak, fds_limit, load);
  }
  h.bottleneck = !h.verdict.empty();
  return h;
}

}  // namespace stampede::metrics
