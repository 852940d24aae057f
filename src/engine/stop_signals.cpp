#include "engine/stop_signals.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <mutex>

namespace stampede::engine {

namespace {

std::atomic<int> stops{0};
std::atomic<bool> measuring{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "read and written from a signal handler");

// Who has the three signals: the watches alive (asio's handler) or, with none, note_stop.
std::mutex watches_mutex;
int watches = 0;

constexpr char kStoppedAtOnce[] = "interrupted again before the load started: stopped at once, nothing was measured\n";

// A signal handler: an atomic, write(2) and _exit(2) only. Only here does a second stop end
// the process: a watch hears one on its loop, which runs only while nothing is stuck, and
// two watches (--parallel's setup()s) each hear the same one.
extern "C" void note_stop(int) {
  const int n = ++stops;
  if (n >= 2 && !measuring) {
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, kStoppedAtOnce, sizeof kStoppedAtOnce - 1);
    ::_exit(kStoppedBeforeTheLoad);
  }
}

void install_noting() {
  struct sigaction sa{};
  sa.sa_handler = note_stop;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (const int signal : {SIGINT, SIGTERM, SIGUSR1}) sigaction(signal, &sa, nullptr);
}

}  // namespace

void note_stop_signals() {
  std::lock_guard lock(watches_mutex);
  if (watches == 0) install_noting();  // a watch's asio handler must keep them while it lives
}

int stops_noted() { return stops.load(); }

void stop_if_noted() {
  if (stops_noted() > 0) throw StoppedBeforeTheLoad();
}

void load_started() { measuring = true; }

StopSignalWatch::StopSignalWatch(boost::asio::io_context& io, std::function<void(int signal)> heard)
    : heard_(std::move(heard)) {
  std::lock_guard lock(watches_mutex);
  ++watches;
  signals_.emplace(io, SIGINT, SIGTERM, SIGUSR1);
  wait();
}

StopSignalWatch::~StopSignalWatch() {
  std::lock_guard lock(watches_mutex);
  // The last signal_set of the process resets the three to their default action (the
  // process's end): noted again at once. A signal in between those two calls still ends it.
  signals_.reset();
  if (--watches == 0) install_noting();
}

void StopSignalWatch::wait() {
  signals_->async_wait([this](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    ++stops;
    heard_(signal);
    wait();
  });
}

}  // namespace stampede::engine
