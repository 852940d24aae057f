#pragma once
// When phoenix.js tries again (assets/js/phoenix/socket.js and channel.js, 1.8.16), as plain
// arithmetic: no clock, no timer. PhoenixConnection arms its timer where this says, and the
// unit tests step through it on plain times.
//
// A socket whose connection was lost reconnects after reconnectAfterMs(tries): 10, 50, 100,
// 150, 200, 250, 500, 1000, 2000 ms, then 5 s for every later try; `tries` counts the tries
// since the socket was last open (phoenix.js's Timer: scheduleTimeout() waits for tries + 1,
// the timer firing makes it tries + 1, an opened connection resets it to 0). A channel whose
// rejoin was refused or timed out tries again after rejoinAfterMs(tries): 1, 2, 5 s, then 10 s.
#include <cstdint>

#include "common/clock.hpp"

namespace stampede::clients {

// phoenix.js's default reconnectAfterMs: the wait before try number `tries` (1 is the first).
Nanos phoenix_reconnect_after(unsigned tries);
// phoenix.js's default rejoinAfterMs: the wait before a channel's rejoin number `tries`.
Nanos phoenix_rejoin_after(unsigned tries);

// phoenix.js's Timer (timer.js) over one of those step functions.
class PhoenixBackoff {
 public:
  using Steps = Nanos (*)(unsigned tries);
  explicit PhoenixBackoff(Steps steps) : steps_(steps) {}

  // Something failed at `now` (the connection was lost, a try did not open it): when to try
  // next. Counts that try.
  Nanos next_try(Nanos now) {
    ++tries_;
    return now + steps_(tries_);
  }
  // It worked: the next failure starts from the first step again.
  void reset() { tries_ = 0; }
  // Tries since the last reset (the one scheduled included).
  unsigned tries() const { return tries_; }

 private:
  Steps steps_;
  unsigned tries_ = 0;
};

}  // namespace stampede::clients
