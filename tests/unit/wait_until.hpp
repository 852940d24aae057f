#pragma once
// Waiting in a test for something to have happened, not for a time to have passed
// (issue 38: no sleeps to order events). wait_until polls what the test can observe: a
// counter or flag a test server sets, or the kernel's state of a socket (below), until it
// holds. Its limit is a hang guard, not a timing check: generous, and reaching it fails the
// test with a sentence naming what never happened.
#include <gtest/gtest.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

namespace stampede::testing {

inline constexpr std::chrono::milliseconds kHangGuard = std::chrono::seconds(30);

// Polls `done` until it holds (true), or fails the test after `guard` (false). Any thread may
// call it (a test server's script too). The poll interval only spaces the looks at `done`.
inline bool wait_until(std::string_view what, const std::function<bool()>& done,
                       std::chrono::milliseconds guard = kHangGuard,
                       std::chrono::milliseconds every = std::chrono::milliseconds(1)) {
  const auto deadline = std::chrono::steady_clock::now() + guard;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ADD_FAILURE() << "never happened (hang guard " << guard.count() << " ms): " << what;
      return false;
    }
    std::this_thread::sleep_for(every);
  }
  return true;
}

// A TCP socket's state in the kernel, for waiting on what the other end has really done.

// Bytes written to `fd` that the peer's kernel has not acknowledged yet, counting the FIN
// after a shutdown: 0 once everything sent, the FIN too, is there for the peer to read.
inline int unacknowledged_bytes(int fd) {
  int n = -1;
  return ::ioctl(fd, SIOCOUTQ, &n) == 0 ? n : -1;
}

// Bytes that arrived on `fd` and were not read yet.
inline int unread_bytes(int fd) {
  int n = -1;
  return ::ioctl(fd, SIOCINQ, &n) == 0 ? n : -1;
}

// Whether the peer's FIN (or a reset) has arrived on `fd`.
inline bool peer_has_closed(int fd) {
  pollfd p{fd, POLLRDHUP, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

// Whether a write on `fd` would go through now (false: a writer waits for the socket).
inline bool writable(int fd) {
  pollfd p{fd, POLLOUT, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLOUT) != 0;
}

// The socket of this process at the other end of the loopback TCP connection `fd` (the
// tests' servers and the client under test share the process), or -1: the one whose own
// address is `fd`'s peer and whose peer is `fd`'s own address.
inline int other_end_in_this_process(int fd) {
  sockaddr_storage mine{};
  sockaddr_storage theirs{};
  socklen_t mine_size = sizeof mine;
  socklen_t theirs_size = sizeof theirs;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&mine), &mine_size) != 0 ||
      ::getpeername(fd, reinterpret_cast<sockaddr*>(&theirs), &theirs_size) != 0) {
    return -1;
  }
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    int candidate = -1;
    try {
      candidate = std::stoi(entry.path().filename().string());
    } catch (const std::exception&) {
      continue;
    }
    if (candidate == fd) continue;
    sockaddr_storage local{};
    sockaddr_storage remote{};
    socklen_t local_size = sizeof local;
    socklen_t remote_size = sizeof remote;
    if (::getsockname(candidate, reinterpret_cast<sockaddr*>(&local), &local_size) != 0 ||
        ::getpeername(candidate, reinterpret_cast<sockaddr*>(&remote), &remote_size) != 0) {
      continue;
    }
    if (local_size == theirs_size && remote_size == mine_size && std::memcmp(&local, &theirs, local_size) == 0 &&
        std::memcmp(&remote, &mine, remote_size) == 0) {
      return candidate;
    }
  }
  return -1;
}

}  // namespace stampede::testing
