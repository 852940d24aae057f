#include "engine/generator_monitor.hpp"

#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

#include "engine/asio_scheduler.hpp"
#include "engine/thread_cpu_time.hpp"
#include "metrics/generator_health.hpp"

namespace stampede::engine {

namespace {

// Sampled a moment after each second's end, so the workers' seconds are already on their
// way to the Collector and the CPU interval lines up with the second it is reported in.
constexpr Nanos kAfterSecond = 5 * kMilli;

Nanos polled_of(const WorkerCpu& worker) { return worker.idle_polled ? worker.idle_polled() : 0; }

// How long the thread has been ready to run but waited for a CPU, ns (schedstat's second
// field); -1 when the kernel does not say.
Nanos waited_of(const WorkerCpu& worker) {
  if (worker.tid <= 0) return -1;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", static_cast<int>(worker.tid));
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return -1;
  unsigned long long running = 0, waiting = 0;
  const bool read = std::fscanf(f, "%llu %llu", &running, &waiting) == 2;
  std::fclose(f);
  return read ? static_cast<Nanos>(waiting) : -1;
}

}  // namespace

GeneratorMonitor::GeneratorMonitor(boost::asio::io_context& io, metrics::Registry& registry,
                                   std::vector<WorkerCpu> workers,
                                   std::function<void(metrics::Snapshot, bool last)> publish)
    : timer_(io),
      sink_(registry),
      workers_(std::move(workers)),
      last_cpu_(workers_.size(), 0),
      last_polled_(workers_.size(), 0),
      last_waited_(workers_.size(), -1),
      publish_(std::move(publish)),
      cpu_(sink_.id(metrics::names::kGeneratorCpu, metrics::Kind::Gauge)),
      busy_(sink_.id(metrics::names::kGeneratorBusy, metrics::Kind::Counter)),
      wall_(sink_.id(metrics::names::kGeneratorWall, metrics::Kind::Counter)),
      wait_(sink_.id(metrics::names::kGeneratorWait, metrics::Kind::Counter)),
      fds_(sink_.id(metrics::names::kGeneratorFds, metrics::Kind::Gauge)) {}

double GeneratorMonitor::fd_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 0;
  return static_cast<double>(limit.rlim_cur);
}

long GeneratorMonitor::open_fds() {
  // Since Linux 6.2 stat() of /proc/self/fd gives the count as its size, from the descriptor
  // table's bitmap. Listing the directory instead builds a dentry per descriptor: at 10,000
  // held connections that was a fifth of an idle generator's CPU, once a second (issue 37).
  struct stat st {};
  if (stat("/proc/self/fd", &st) == 0 && st.st_size > 0) return static_cast<long>(st.st_size);
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  long n = 0;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;  // the directory stream's own descriptor
}

void GeneratorMonitor::start(Nanos t0) {
  t0_ = t0;
  last_wall_ = t0;
  // CPU spent loading the scenario is not part of the run.
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    last_cpu_[i] = std::max<Nanos>(0, cpu_time(workers_[i].clock));
    last_polled_[i] = polled_of(workers_[i]);
    last_waited_[i] = waited_of(workers_[i]);
  }
  arm();
}

void GeneratorMonitor::arm() {
  timer_.expires_at(time_point_at(t0_ + (second_ + 1) * kSecond + kAfterSecond));
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || finished_) return;
    sample(false);
    arm();
  });
}

void GeneratorMonitor::finish() {
  if (finished_) return;
  finished_ = true;
  timer_.cancel();
  sample(true);
}

void GeneratorMonitor::sample(bool last) {
  const Nanos wall = SteadyClock::monotonic_now();
  const Nanos elapsed = wall - last_wall_;
  Nanos busiest = 0;
  Nanos most_waited = -1;
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    if (const Nanos waited = waited_of(workers_[i]); waited >= 0 && last_waited_[i] >= 0) {
      most_waited = std::max(most_waited, waited - last_waited_[i]);
      last_waited_[i] = waited;
    }
    const Nanos now = cpu_time(workers_[i].clock);
    if (now < 0) continue;
    // A polling worker's empty polls are not work: out of its CPU time (a poll preempted
    // meanwhile took less CPU than wall time, hence the floor).
    const Nanos polled = polled_of(workers_[i]);
    busiest = std::max(busiest, std::max<Nanos>(0, now - last_cpu_[i] - (polled - last_polled_[i])));
    last_cpu_[i] = now;
    last_polled_[i] = polled;
  }
  last_wall_ = wall;
  // The last, partial second is not measured: the worker threads have exited by then (their
  // clocks are gone), and a few milliseconds say nothing about CPU use anyway.
  if (!last && elapsed >= 100 * kMilli) {
    const double percent = std::min(100.0, 100.0 * static_cast<double>(busiest) / static_cast<double>(elapsed));
    sink_.set_gauge(cpu_, percent);
    sink_.add(busy_, static_cast<std::uint64_t>(busiest / kMicro));
    sink_.add(wall_, static_cast<std::uint64_t>(elapsed / kMicro));
    if (most_waited >= 0) sink_.add(wait_, static_cast<std::uint64_t>(most_waited / kMicro));
  }
  if (const long fds = open_fds(); fds >= 0) sink_.set_gauge(fds_, static_cast<double>(fds));
  publish_(sink_.take(second_), last);
  ++second_;
}

}  // namespace stampede::engine
