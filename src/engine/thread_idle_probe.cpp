#include "engine/thread_idle_probe.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace stampede::engine {

namespace {

// "<ns on a CPU> <ns waiting on a run queue> <timeslices>\n"; false if it is not that.
bool read_busy(int fd, std::uint64_t& busy) {
  char text[96];
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  if (n <= 0) return false;
  text[n] = '\0';
  char* end = nullptr;
  const unsigned long long running = std::strtoull(text, &end, 10);
  if (end == text) return false;
  char* rest = end;
  const unsigned long long waiting = std::strtoull(rest, &end, 10);
  if (end == rest) return false;
  busy = running + waiting;
  return true;
}

}  // namespace

ThreadIdleProbe::~ThreadIdleProbe() {
  if (fd_ >= 0) ::close(fd_);
}

double ThreadIdleProbe::idle_share(Nanos wall, std::uint64_t busy) {
  if (wall <= 0) return 1.0;
  if (busy >= static_cast<std::uint64_t>(wall)) return 0.0;
  return 1.0 - static_cast<double>(busy) / static_cast<double>(wall);
}

double ThreadIdleProbe::idle_share_since_last_ask(Nanos now) {
  if (fd_ == -2) fd_ = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  std::uint64_t busy = 0;
  if (fd_ < 0 || !read_busy(fd_, busy)) return 1.0;
  const bool first = last_at_ == 0;
  std::uint64_t busy_since = busy - last_busy_;
  if (polling_ != nullptr) {
    // Empty polls were on the CPU but not busy (a preempted poll counts once, as idle).
    const auto polled = static_cast<std::uint64_t>(std::max<Nanos>(0, polling_->idle_polled() - last_polled_));
    busy_since = busy_since > polled ? busy_since - polled : 0;
    last_polled_ = polling_->idle_polled();
  }
  const double share = first ? 1.0 : idle_share(now - last_at_, busy_since);
  last_at_ = now;
  last_busy_ = busy;
  return share;
}

}  // namespace stampede::engine
