#include "engine/stop_signals.hpp"

#include <atomic>
#include <csignal>

namespace stampede::engine {

namespace {

std::atomic<int> usr1_noted{0};
static_assert(std::atomic<int>::is_always_lock_free, "usr1_noted is written from a signal handler");

extern "C" void note_usr1(int) { usr1_noted.fetch_add(1, std::memory_order_relaxed); }

}  // namespace

void note_usr1_until_the_run() {
  struct sigaction sa{};
  sa.sa_handler = note_usr1;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, nullptr);
}

int take_noted_usr1() { return usr1_noted.exchange(0); }

}  // namespace stampede::engine
