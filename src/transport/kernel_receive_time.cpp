#include "transport/kernel_receive_time.hpp"

#include <sys/socket.h>
#include <time.h>

#include <algorithm>
#include <boost/asio/error.hpp>
#include <cerrno>

namespace stampede::transport {
namespace {

Nanos read_clock(clockid_t id) {
  timespec ts{};
  ::clock_gettime(id, &ts);
  return static_cast<Nanos>(ts.tv_sec) * kSecond + ts.tv_nsec;
}

// The real-time clock read between two readings of the monotonic one that are close enough
// for their midpoint to stand for its moment. A thread preempted between two readings would
// shift every stamp by the preemption, so a wide pair is read again (a few times at most).
struct ClockPair {
  Nanos realtime = 0;
  Nanos monotonic = 0;
};

ClockPair read_clocks() {
  constexpr Nanos kCloseEnough = 20 * kMicro;
  ClockPair pair;
  for (int attempt = 0; attempt < 4; ++attempt) {
    const Nanos before = read_clock(CLOCK_MONOTONIC);
    pair.realtime = read_clock(CLOCK_REALTIME);
    const Nanos after = read_clock(CLOCK_MONOTONIC);
    pair.monotonic = before + (after - before) / 2;
    if (after - before <= kCloseEnough) break;
  }
  return pair;
}

}  // namespace

bool enable_receive_timestamps(int fd) {
  const int on = 1;
  return ::setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) == 0;
}

Nanos realtime_to_monotonic(Nanos realtime_stamp, Nanos realtime_now, Nanos monotonic_now) {
  return std::min(monotonic_now, monotonic_now - (realtime_now - realtime_stamp));
}

StampedRead read_stamped(int fd, char* data, std::size_t size) {
  iovec iov{data, size};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  StampedRead read;
  read.bytes = ::recvmsg(fd, &msg, 0);
  if (read.bytes <= 0) return read;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
    timespec stamp{};
    std::copy_n(reinterpret_cast<const char*>(CMSG_DATA(c)), sizeof stamp, reinterpret_cast<char*>(&stamp));
    if (stamp.tv_sec == 0 && stamp.tv_nsec == 0) break;  // a segment the kernel did not stamp
    const ClockPair now = read_clocks();
    read.received_at = realtime_to_monotonic(static_cast<Nanos>(stamp.tv_sec) * kSecond + stamp.tv_nsec,
                                             now.realtime, now.monotonic);
    break;
  }
  return read;
}

std::size_t read_available_stamped(int fd, boost::asio::mutable_buffer into, boost::system::error_code& ec,
                                   Nanos& received_at) {
  for (;;) {
    const StampedRead read = read_stamped(fd, static_cast<char*>(into.data()), into.size());
    if (read.bytes > 0) {
      received_at = read.received_at != 0 ? read.received_at : SteadyClock::monotonic_now();
      ec = {};
      return static_cast<std::size_t>(read.bytes);
    }
    if (read.bytes == 0) {
      ec = boost::asio::error::eof;
      return 0;
    }
    if (errno == EINTR) continue;
    ec = boost::system::error_code(errno == EWOULDBLOCK ? EAGAIN : errno, boost::asio::error::get_system_category());
    return 0;
  }
}

}  // namespace stampede::transport
