#pragma once
// Time as an executor sees it: the clock, one-shot timers, and "soon, after what is ready
// now". A worker implements it on its Asio loop (asio_scheduler.hpp); the tests implement it
// on a clock they advance (tests/unit/engine/simulated_scheduler.hpp), so the open and
// closed models are tested to the nanosecond without sleeping and without Lua.
#include <functional>
#include <memory>

#include "common/clock.hpp"

namespace stampede::engine {

class Timer {
 public:
  virtual ~Timer() = default;  // a pending wait is cancelled
  // `fn` runs once at `at` (absolute ns on the scheduler's clock), unless cancel() or
  // another arm() comes first. A time already past runs it as soon as the loop can.
  virtual void arm(Nanos at, std::function<void()> fn) = 0;
  virtual void cancel() = 0;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual Nanos now() const = 0;
  virtual std::unique_ptr<Timer> make_timer() = 0;
  // `fn` runs soon: after the handlers ready now (on Asio, behind the completions of the
  // loop's next poll of its sockets when posted twice: the open model's yield_to_replies).
  virtual void post(std::function<void()> fn) = 0;
  // Waits on the clock until `t`: a timer that woke early on purpose (ArrivalPacer's early
  // wake) waits out the rest. Asio's spins; a simulated clock moves there.
  virtual void wait_until(Nanos t) = 0;
};

}  // namespace stampede::engine
