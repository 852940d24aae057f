#pragma once
// Open model: on each turn of the worker's loop, which arrivals to start now and when to
// look again. Pure scheduling logic over plain times (ns since the run started), so the
// tests drive it on a simulated clock.
//
// Coalescing. Arming the loop's timer for every single arrival costs a timer re-arm and a
// sleep/wake of the thread per arrival (at 25,000 arrivals/s per worker that was most of a
// core). So the pacer never asks to be woken sooner than `quantum` after the turn it was
// last woken for, and each turn starts every arrival that is due by then. Below 1/quantum
// arrivals per second per worker nothing changes (each sleep ends at the next due time);
// above it an arrival starts at most one quantum late. That lateness is not hidden: an
// arrival keeps its scheduled time, `iteration` is timed from it and `iteration.lag`
// records it (docs/design/014-coalesced-arrival-wakeups-and-shared-timers.md).
//
// An arrival is never started before it is due: starting early would make iterations look
// shorter than they were.
#include <limits>

#include "common/clock.hpp"
#include "engine/arrival_schedule.hpp"

namespace stampede::engine {

class ArrivalPacer {
 public:
  // 250 µs: at most 4,000 wake-ups per second per worker. Measured at 40,000 arrivals/s
  // (2 workers) on 2 shared cores: 23 µs of CPU per request with 100 µs, 14 µs with 250 µs,
  // 14 µs with 500 µs (where lag started to grow); on this VM a sleep and wake-up of a thread
  // costs more than the request itself. An arrival starts at most 0.25 ms late, and only
  // above 4,000 arrivals/s per worker. The open model doubles it while the worker is short
  // of CPU (WakeQuantum, design 022) and cuts it to 100 µs for arrivals up to 10,000/s per
  // worker, each of which then wakes on time (design 050).
  static constexpr Nanos kDefaultQuantum = 250 * kMicro;
  // Arrivals started in one turn before the loop reads what has arrived meanwhile.
  static constexpr int kDefaultBatch = 64;
  // How much earlier than a sparse arrival's due time the loop asks to be woken, to wait out
  // the rest on the clock. On the VMs we measure on, a timer's wake-up came 43 µs late at the
  // median and 215 µs at p99 (iteration.lag at 1,000/s), and that lateness is in every
  // `iteration`. Capped at a tenth of the sleep (kSpinShare), so waiting on the clock never
  // costs more than a tenth of a core, and only when arrivals are sparse, which is when the
  // worker has nothing else to do (docs/design/017-early-wake-for-sparse-arrivals.md).
  static constexpr Nanos kDefaultEarlyWake = 100 * kMicro;
  // A worker under --cpu-policy poll is not asleep when its timer expires: it sees it ~20 µs
  // after it is due (the timer's interrupt on a VM; iteration.lag p50 18.5 µs at 2,000/s
  // with no early wake). 25 µs covers that (p50 0.2 µs, p90 7 µs) for a quarter of the
  // default's spin, which a polling worker would wait out in full (docs/design/029).
  static constexpr Nanos kPollingEarlyWake = 25 * kMicro;
  static constexpr int kSpinShare = 10;

  struct Step {
    enum class Kind {
      start,  // the arrival scheduled at `at` is due: start it (then call started()) or not
      sleep,  // nothing due: wake at `at`
      yield,  // due arrivals are waiting, but this turn started `batch` already: let the
              // loop read replies, then go on at once
      done,   // no arrivals left
    };
    Kind kind;
    Nanos at = 0;
    // For `sleep`: when to arm the timer, at or a little before `at` (the loop then waits
    // on the clock until `at`). Equal to `at` for coalesced wake-ups.
    Nanos wake = 0;
  };

  // Arrivals first, first + stride, first + 2 stride, ... of `schedule` (a worker's share).
  ArrivalPacer(const ArrivalSchedule& schedule, long long first, long long stride,
               Nanos quantum = kDefaultQuantum, int batch = kDefaultBatch, Nanos early_wake = kDefaultEarlyWake);

  // A turn begins at `now` (the timer fired, or a yield came back). `planned`: the time the
  // sleep that ended was for (Step::at), when the timer began it. The next coalesced wake-up
  // is a quantum after the earlier of the two: the wake-up's own lateness (~40 µs for a
  // sleeping thread here) is not added to the next one, so arrivals a quantum apart each
  // wake on time, and the planned wake-ups are still a quantum apart at least.
  void begin_turn(Nanos now, Nanos planned);
  void begin_turn(Nanos now) { begin_turn(now, now); }
  // What to do at `now`. Asking changes nothing.
  Step next(Nanos now) const;
  // The arrival that next() said to start was started: move on to the following one.
  void started();

  long long next_index() const { return next_; }
  // How far apart this worker's next two arrivals are (kNoSpacing after the last but one).
  static constexpr Nanos kNoSpacing = std::numeric_limits<Nanos>::max();
  Nanos spacing() const;
  Nanos quantum() const { return quantum_; }
  // From the next sleep on (a turn under way keeps the one it began with).
  void set_quantum(Nanos quantum) { quantum_ = quantum; }

 private:
  const ArrivalSchedule& schedule_;
  long long next_;
  long long stride_;
  Nanos quantum_;
  int batch_;
  Nanos early_wake_;
  int started_this_turn_ = 0;
  Nanos turn_began_ = 0;
};

}  // namespace stampede::engine
