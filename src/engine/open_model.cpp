// Open model (`rate` + `duration`, or `rate_stages`): iterations start on the schedule of
// ArrivalSchedule whatever earlier ones are doing. Arrival i goes to worker i mod N, so the
// workers' shares add up to the plan exactly. A due arrival takes any free VU of this worker
// (never a fixed timetable per connection), a new VU while under this worker's share of
// max_vus, or is counted as dropped. Iterations are timed from their scheduled start, so a
// late start (a busy generator, a full VU pool) shows in the numbers: no coordinated omission.
// A VU whose iteration failed because this machine ran out of file descriptors, ports or
// socket memory sits out its backoff (ExhaustionBackoff) before it takes arrivals again; the
// arrivals themselves are never delayed (docs/design/016-backoff-when-the-generator-runs-out.md).
// An arrival that is already late when it starts (the generator fell behind) takes a VU that
// comes free; the pool grows for late arrivals only at CatchUpBudget's pace
// (docs/design/020-late-arrivals-wait-for-a-free-vu.md).
#include <boost/asio/post.hpp>
#include <algorithm>
#include <limits>
#include <unordered_map>
#include <vector>

#include "engine/arrival_pacer.hpp"
#include "engine/arrival_schedule.hpp"
#include "engine/catch_up_budget.hpp"
#include "engine/exhaustion_backoff.hpp"
#include "engine/thread_idle_probe.hpp"
#include "engine/wake_quantum.hpp"
#include "engine/worker.hpp"

namespace stampede::engine {

namespace {

// Tells the core this is a busy wait (x86 PAUSE), so a sibling hyperthread gets the cycles.
inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class OpenModel final : public Executor {
 public:
  explicit OpenModel(Worker& w)
      : w_(w),
        schedule_(w.config().shape),
        max_vus_(share_of(w.config().shape.max_vus, w.config().count, w.config().index)),
        pacer_(schedule_, w.config().index, w.config().count, ArrivalPacer::kDefaultQuantum, ArrivalPacer::kDefaultBatch,
               w.idle_poll() != nullptr ? ArrivalPacer::kPollingEarlyWake : ArrivalPacer::kDefaultEarlyWake),
        arrival_timer_(w.io()),
        grace_timer_(w.io()),
        loop_idle_(w.idle_poll()),
        quantum_idle_(w.idle_poll()) {}

  void begin() override { turn(false); }

  void end(bool graceful) override {
    // At the scheduled end (not an interrupt before it), the arrivals due before it that
    // have not started yet are still part of the plan: those a coalesced wake-up had not
    // reached, or the backlog of a generator that fell behind. With a graceful stop they
    // start in the usual turns (in batches, reading replies between them, never all at
    // once: a backlog of seconds started at once would open a connection for each), and
    // what the graceful stop leaves unstarted is counted as dropped. Without a graceful
    // stop (or at an interrupt) those due in the last kCutOffWindow are cut off with the
    // running ones; older ones, which a generator that fell behind never reached, count as
    // dropped: they were planned and never started.
    const Nanos now = w_.clock().now() - w_.start();
    const bool scheduled_end = now >= w_.config().shape.total_duration();
    const bool grace = graceful && w_.config().shape.graceful_stop > 0;
    finishing_plan_ = !ending_ && grace && scheduled_end &&
                      pacer_.next(now).kind != ArrivalPacer::Step::Kind::done;
    ending_ = true;
    if (!finishing_plan_) {
      const Nanos stop = std::min(now, w_.config().shape.total_duration());
      drop_unstarted(stop - kCutOffWindow);
    }
    if (!grace) {
      interrupt_all();
    } else {
      grace_timer_.expires_after(std::chrono::nanoseconds(w_.config().shape.graceful_stop));
      grace_timer_.async_wait([this](const boost::system::error_code& ec) {
        if (ec) return;
        if (finishing_plan_) drop_unstarted(std::numeric_limits<Nanos>::max());
        interrupt_all();
      });
    }
    maybe_finished();
  }

 private:
  struct Running {
    scenario::Vu* vu;
    Nanos scheduled;
  };

  // One turn of the loop for arrivals: starts every arrival that is due by now (catching up
  // after a late wake-up), then sleeps until the next one, coalescing wake-ups that would
  // come less than a quantum apart (ArrivalPacer). `replies_read`: the loop has read the
  // replies that had arrived since the previous turn (see yield_to_replies).
  void turn(bool replies_read) {
    if (ending_ && !finishing_plan_) return;
    opens_before_reading_ = replies_read ? kOpensPerRead : 0;
    const Nanos turn_at = w_.clock().now();
    if (wake_quantum_.sample_due(turn_at)) {
      pacer_.set_quantum(wake_quantum_.sample(turn_at, quantum_idle_.idle_share_since_last_ask(turn_at)));
    }
    pacer_.begin_turn(turn_at - w_.start());
    for (;;) {
      // The time is read again for each arrival: those that fell due while this turn
      // started others are started in it too.
      const ArrivalPacer::Step step = pacer_.next(w_.clock().now() - w_.start());
      switch (step.kind) {
        case ArrivalPacer::Step::Kind::done:
          if (finishing_plan_) {
            finishing_plan_ = false;
            maybe_finished();
          }
          return;  // no more arrivals: the end timer stops the run
        case ArrivalPacer::Step::Kind::sleep:
          vu_timer_pending_ = false;
          arrival_timer_.expires_at(time_point_at(w_.start() + step.wake));
          arrival_timer_.async_wait([this, due = w_.start() + step.at](const boost::system::error_code& ec) {
            if (ec) return;
            // Woken early on purpose (ArrivalPacer::kDefaultEarlyWake): the rest on the clock.
            while (w_.clock().now() < due) spin_pause();
            turn(false);
          });
          return;
        case ArrivalPacer::Step::Kind::yield:
          return yield_to_replies();
        case ArrivalPacer::Step::Kind::start:
          break;
      }
      wake_rested();
      // No free VU, but iterations are running whose replies may be waiting unread (a stall
      // of the machine makes many arrivals due at once while their replies queue up): read
      // them before opening a new VU, and again after every kOpensPerRead new ones. A new VU
      // means a new connection, which is what feeds the next stall. Reading never refuses a
      // VU: an arrival still gets a new one if none came free. It keeps its scheduled time:
      // the wait shows as lag.
      if (free_.empty() && !running_.empty() && w_.vus_created() < max_vus_) {
        if (opens_before_reading_ == 0) return yield_to_replies();
        // Already late, and VUs will come free: a new one only within the catch-up budget.
        const Nanos now = w_.clock().now() - w_.start();
        if (now - step.at > kLateAfter && !catch_up_.try_take(now)) return wait_for_vu();
      }
      pacer_.started();
      dispatch(w_.start() + step.at);
    }
  }

  // Sleeps until the catch-up budget allows a new VU, or until a running iteration ends
  // (on_done), whichever comes first. While the worker is behind this happens once per
  // iteration that ends, so a timer already armed for no later is left as it is: each re-arm
  // is a timerfd_settime (~10 µs here), more than the iteration it waits for. (Woken too
  // early, the turn finds the budget still spent and arms it again.)
  void wait_for_vu() {
    waiting_for_vu_ = true;
    const Nanos at = catch_up_.next_available();
    if (vu_timer_pending_ && vu_timer_at_ <= at) return;
    vu_timer_pending_ = true;
    vu_timer_at_ = at;
    arrival_timer_.expires_at(time_point_at(w_.start() + at));
    arrival_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;  // re-armed, or the run ended: whoever did it cleared or reset the flag
      vu_timer_pending_ = false;
      if (!waiting_for_vu_) return;
      waiting_for_vu_ = false;
      turn(false);
    });
  }

  // Arrivals due by `until` (ns since the start) that will not start now count as dropped,
  // like arrivals no VU was free for: planned = started + dropped (+ those cut off at the
  // very end), whatever ended the run. The graceful stop ran out: all the plan's rest.
  void drop_unstarted(Nanos until) {
    finishing_plan_ = false;
    arrival_timer_.cancel();
    vu_timer_pending_ = false;
    for (;;) {
      const ArrivalPacer::Step step = pacer_.next(until);
      if (step.kind == ArrivalPacer::Step::Kind::yield) {
        pacer_.begin_turn(until);
        continue;
      }
      if (step.kind != ArrivalPacer::Step::Kind::start) return;
      pacer_.started();
      w_.record_dropped();
    }
  }

  // Goes on with the arrivals once the loop has run the I/O completions that are ready now.
  // Two posts: the first lands behind the loop's poll of the sockets, the second behind the
  // completions that poll queued.
  void yield_to_replies() {
    boost::asio::post(w_.io(), [this] { boost::asio::post(w_.io(), [this] { turn(true); }); });
  }

  void dispatch(Nanos scheduled) {
    scenario::Vu* vu = nullptr;
    if (!free_.empty()) {
      vu = free_.back();  // the most recently used: its connections are the warmest
      free_.pop_back();
    } else if (w_.vus_created() < max_vus_) {
      vu = &w_.new_vu();
      if (opens_before_reading_ > 0) --opens_before_reading_;
    } else {
      w_.record_dropped();
      return;
    }
    const Nanos actual = w_.clock().now();
    w_.record_lag(actual - scheduled);
    vu->slot = running_.size();
    running_.push_back({vu, scheduled});
    w_.set_live_vus(static_cast<long long>(running_.size()));
    w_.runtime().start_iteration(*vu, [this](scenario::Vu& v, const scenario::IterationOutcome& o) { on_done(v, o); });
  }

  void on_done(scenario::Vu& vu, const scenario::IterationOutcome& outcome) {
    if (vu.slot >= running_.size() || running_[vu.slot].vu != &vu) return;
    const Nanos now = w_.clock().now();
    w_.record_iteration(outcome, running_[vu.slot].scheduled, now);
    remove(vu.slot);
    rest_or_free(vu, now, outcome.local_resource_exhausted);
    w_.set_live_vus(static_cast<long long>(running_.size()));
    if (waiting_for_vu_ && !free_.empty()) {
      const Nanos since_start = now - w_.start();
      const ArrivalPacer::Step waiting = pacer_.next(since_start);
      if (waiting.kind == ArrivalPacer::Step::Kind::start || waiting.kind == ArrivalPacer::Step::Kind::yield) {
        const Nanos lag = since_start - waiting.at;
        if (catch_up_.samples_at(since_start))
          catch_up_.vu_came_free(since_start, lag, loop_idle_.idle_share_since_last_ask(now));
      }
      waiting_for_vu_ = false;  // the timer stays armed; its handler does nothing now
      boost::asio::post(w_.io(), [this] { turn(true); });
    }
    maybe_finished();
  }

  // A VU that ran out of a local resource is unavailable until its backoff ends; arrivals
  // meanwhile go to other VUs, a new one under max_vus, or are dropped, as when it is busy.
  void rest_or_free(scenario::Vu& vu, Nanos now, bool exhausted) {
    if (!exhausted && backoffs_.empty()) return free_.push_back(&vu);  // the usual case, no lookup
    auto it = backoffs_.find(&vu);
    if (!exhausted) {
      if (it != backoffs_.end()) backoffs_.erase(it);  // the streak is over
      free_.push_back(&vu);
      return;
    }
    if (it == backoffs_.end()) it = backoffs_.emplace(&vu, ExhaustionBackoff(static_cast<std::uint64_t>(vu.id))).first;
    resting_.push(&vu, it->second.next_start(now, true));
  }

  // VUs whose backoff is over take arrivals again. Checked when an arrival is due: nothing
  // else waits for them, so they need no timer of their own.
  void wake_rested() {
    if (resting_.empty()) return;
    const Nanos now = w_.clock().now();
    while (auto ready = resting_.pop_ready(now)) free_.push_back(ready->second);
  }

  void remove(std::size_t i) {
    scenario::Vu* vu = running_[i].vu;
    running_[i] = running_.back();
    running_[i].vu->slot = i;
    running_.pop_back();
    vu->slot = static_cast<std::size_t>(-1);
  }

  void interrupt_all() {
    while (!running_.empty()) {
      scenario::Vu* vu = running_.back().vu;
      w_.runtime().interrupt(*vu);
      remove(running_.size() - 1);
      free_.push_back(vu);
    }
    w_.set_live_vus(0);
    maybe_finished();
  }

  void maybe_finished() {
    if (ending_ && !finishing_plan_ && running_.empty()) {
      grace_timer_.cancel();
      w_.executor_finished();
    }
  }

  Worker& w_;
  ArrivalSchedule schedule_;
  long long max_vus_;
  ArrivalPacer pacer_;  // refers to schedule_, declared before it
  boost::asio::steady_timer arrival_timer_;
  boost::asio::steady_timer grace_timer_;
  std::vector<Running> running_;
  std::vector<scenario::Vu*> free_;
  BackoffQueue<scenario::Vu*> resting_;
  std::unordered_map<scenario::Vu*, ExhaustionBackoff> backoffs_;  // only VUs in a streak
  bool ending_ = false;
  bool finishing_plan_ = false;  // ended on schedule: the arrivals due before the end still start
  // New VUs this turn may still open before the loop reads replies again. 4: a read is an
  // epoll_wait and two posts (~2 µs), a new VU and its connection 20-40 µs. At 80,000
  // arrivals/s against a 1 ms target it halved the connections a run opened (861-1,227
  // against 1,345-1,785, three runs each) at the same lag (bench/RESULTS.md, session 4).
  static constexpr int kOpensPerRead = 4;
  int opens_before_reading_ = 0;
  // An arrival is late once it is this far past its scheduled time: twice the longest
  // quantum, well past the lateness coalescing gives by design (WakeQuantum).
  static constexpr Nanos kLateAfter = 2 * WakeQuantum::kFrugal;
  // Without a graceful stop, arrivals due this close to the stop that have not started are
  // cut off like the running iterations, not counted as dropped. Coalesced wake-ups leave up
  // to a quantum of them by design, and a stall of the machine at the very end leaves more
  // (60-170 ms seen on our VMs, bench/RESULTS.md session 13); a healthy run at 30,000/s
  // would otherwise end with dozens "dropped". Further back, the generator fell behind: a
  // scenario whose iterations need 1.5 cores of one worker left 72 of 200 arrivals unstarted
  // in 2 s, and none were counted anywhere.
  static constexpr Nanos kCutOffWindow = 250 * kMilli;
  CatchUpBudget catch_up_;
  ThreadIdleProbe loop_idle_;  // asked on this worker's thread, once per budget sample
  WakeQuantum wake_quantum_;
  ThreadIdleProbe quantum_idle_;  // its own: each probe answers for the time since its last ask
  bool waiting_for_vu_ = false;  // a turn stopped for want of a VU: the next free one resumes it
  bool vu_timer_pending_ = false;  // arrival_timer_ is armed by wait_for_vu, for vu_timer_at_
  Nanos vu_timer_at_ = 0;
};

}  // namespace

std::unique_ptr<Executor> make_open_model(Worker& worker) { return std::make_unique<OpenModel>(worker); }

}  // namespace stampede::engine
