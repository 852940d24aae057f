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
#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

#include "engine/arrival_pacer.hpp"
#include "engine/arrival_schedule.hpp"
#include "engine/catch_up_budget.hpp"
#include "engine/executor.hpp"
#include "engine/exhaustion_backoff.hpp"
#include "engine/wake_quantum.hpp"

namespace stampede::engine {

namespace {

class OpenModel final : public Executor {
 public:
  explicit OpenModel(ExecutorHost& host)
      : h_(host),
        shape_(host.settings().shape),
        schedule_(shape_),
        max_vus_(share_of(shape_.max_vus, host.settings().count, host.settings().index)),
        pacer_(schedule_, host.settings().index, host.settings().count, ArrivalPacer::kDefaultQuantum,
               ArrivalPacer::kDefaultBatch,
               host.settings().polling ? ArrivalPacer::kPollingEarlyWake : ArrivalPacer::kDefaultEarlyWake),
        arrival_timer_(host.scheduler().make_timer()),
        grace_timer_(host.scheduler().make_timer()),
        loop_idle_(host.make_idle_probe()),
        quantum_idle_(host.make_idle_probe()) {}

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
    const Nanos now = since_start();
    const bool scheduled_end = now >= shape_.total_duration();
    const bool grace = graceful && shape_.graceful_stop > 0;
    const bool plan_left = phase_ == Phase::arriving && grace && scheduled_end &&
                           pacer_.next(now).kind != ArrivalPacer::Step::Kind::done;
    if (plan_left) {
      phase_ = Phase::finishing_plan;
    } else {
      phase_ = Phase::draining;
      drop_unstarted(std::min(now, shape_.total_duration()) - kCutOffWindow);
    }
    if (!grace) {
      interrupt_all();
    } else {
      grace_timer_->arm(h_.scheduler().now() + shape_.graceful_stop, [this] {
        if (phase_ == Phase::finishing_plan) drop_unstarted(std::numeric_limits<Nanos>::max());
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

  // Where the run is: arrivals start on schedule; ended on schedule with a graceful stop,
  // the arrivals due before the end still start; or none starts any more and the running
  // iterations finish (within the graceful stop) or are cut off.
  enum class Phase { arriving, finishing_plan, draining };
  // What the arrival timer is armed for: the next due arrival, or (VuWait) the catch-up
  // budget's next new VU while a turn waits for a VU; or nothing.
  enum class ArrivalTimer { idle, next_arrival, vu_wait };

  Nanos since_start() const { return h_.scheduler().now() - h_.start(); }

  // One turn of the loop for arrivals: starts every arrival that is due by now (catching up
  // after a late wake-up), then sleeps until the next one, coalescing wake-ups that would
  // come less than a quantum apart (ArrivalPacer). `replies_read`: the loop has read the
  // replies that had arrived since the previous turn (see yield_to_replies). `planned`: the
  // time the arrival timer was armed to end its sleep for, when it began this turn.
  void turn(bool replies_read, std::optional<Nanos> planned = std::nullopt) {
    if (phase_ == Phase::draining) return;
    opens_before_reading_ = replies_read ? kOpensPerRead : 0;
    const Nanos turn_at = h_.scheduler().now();
    if (wake_quantum_.sample_due(turn_at)) {
      const double idle = quantum_idle_->idle_share_since_last_ask(turn_at);
      pacer_.set_quantum(wake_quantum_.sample(turn_at, idle, pacer_.spacing()));
    }
    pacer_.begin_turn(turn_at - h_.start(), planned.value_or(turn_at) - h_.start());
    for (;;) {
      // The time is read again for each arrival: those that fell due while this turn
      // started others are started in it too.
      const ArrivalPacer::Step step = pacer_.next(since_start());
      switch (step.kind) {
        case ArrivalPacer::Step::Kind::done:
          if (phase_ == Phase::finishing_plan) {
            phase_ = Phase::draining;
            maybe_finished();
          }
          return;  // no more arrivals: the end timer stops the run
        case ArrivalPacer::Step::Kind::sleep:
          arrival_timer_use_ = ArrivalTimer::next_arrival;
          arrival_timer_->arm(h_.start() + step.wake, [this, due = h_.start() + step.at] {
            arrival_timer_use_ = ArrivalTimer::idle;
            // Woken early on purpose (ArrivalPacer::kDefaultEarlyWake): the rest on the clock.
            h_.scheduler().wait_until(due);
            turn(false, due);
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
      if (free_.empty() && !running_.empty() && h_.vus_created() < max_vus_) {
        if (opens_before_reading_ == 0) return yield_to_replies();
        // Already late, and VUs will come free: a new one only within the catch-up budget.
        const Nanos now = since_start();
        if (now - step.at > kLateAfter && !catch_up_.try_take(now)) return wait_for_vu();
      }
      pacer_.started();
      dispatch(h_.start() + step.at);
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
    if (arrival_timer_use_ == ArrivalTimer::vu_wait && vu_wait_at_ <= at) return;
    arrival_timer_use_ = ArrivalTimer::vu_wait;
    vu_wait_at_ = at;
    arrival_timer_->arm(h_.start() + at, [this] {
      arrival_timer_use_ = ArrivalTimer::idle;
      if (!waiting_for_vu_) return;  // a VU came free first: on_done resumed the turn
      waiting_for_vu_ = false;
      turn(false);
    });
  }

  // Arrivals due by `until` (ns since the start) that will not start now count as dropped,
  // like arrivals no VU was free for: planned = started + dropped (+ those cut off at the
  // very end), whatever ended the run. The graceful stop ran out: all the plan's rest.
  void drop_unstarted(Nanos until) {
    phase_ = Phase::draining;
    arrival_timer_->cancel();
    arrival_timer_use_ = ArrivalTimer::idle;
    for (;;) {
      const ArrivalPacer::Step step = pacer_.next(until);
      if (step.kind == ArrivalPacer::Step::Kind::yield) {
        pacer_.begin_turn(until);
        continue;
      }
      if (step.kind != ArrivalPacer::Step::Kind::start) return;
      pacer_.started();
      h_.record_dropped();
    }
  }

  // Goes on with the arrivals once the loop has run the I/O completions that are ready now.
  // Two posts: the first lands behind the loop's poll of the sockets, the second behind the
  // completions that poll queued.
  void yield_to_replies() {
    h_.scheduler().post([this] { h_.scheduler().post([this] { turn(true); }); });
  }

  void dispatch(Nanos scheduled) {
    scenario::Vu* vu = nullptr;
    if (!free_.empty()) {
      vu = free_.back();  // the most recently used: its connections are the warmest
      free_.pop_back();
    } else if (h_.vus_created() < max_vus_) {
      vu = &h_.new_vu();
      if (opens_before_reading_ > 0) --opens_before_reading_;
    } else {
      h_.record_dropped();
      return;
    }
    const Nanos actual = h_.scheduler().now();
    h_.record_lag(actual - scheduled);
    vu->slot = running_.size();
    running_.push_back({vu, scheduled});
    h_.set_live_vus(static_cast<long long>(running_.size()));
    h_.start_iteration(*vu, [this](scenario::Vu& v, const scenario::IterationOutcome& o) { on_done(v, o); });
  }

  void on_done(scenario::Vu& vu, const scenario::IterationOutcome& outcome) {
    if (vu.slot >= running_.size() || running_[vu.slot].vu != &vu) return;
    const Nanos now = h_.scheduler().now();
    h_.record_iteration(outcome, running_[vu.slot].scheduled, now);
    remove(vu.slot);
    rest_or_free(vu, now, outcome.local_resource_exhausted);
    h_.set_live_vus(static_cast<long long>(running_.size()));
    if (waiting_for_vu_ && !free_.empty()) {
      const Nanos at = now - h_.start();
      const ArrivalPacer::Step waiting = pacer_.next(at);
      if (waiting.kind == ArrivalPacer::Step::Kind::start || waiting.kind == ArrivalPacer::Step::Kind::yield) {
        const Nanos lag = at - waiting.at;
        if (catch_up_.samples_at(at)) catch_up_.vu_came_free(at, lag, loop_idle_->idle_share_since_last_ask(now));
      }
      // The arrival timer stays armed for the budget (re-arming costs more than the
      // iteration it waits for); when it fires with no turn waiting, it does nothing.
      waiting_for_vu_ = false;
      h_.scheduler().post([this] { turn(true); });
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
    const Nanos now = h_.scheduler().now();
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
      h_.interrupt(*vu);
      remove(running_.size() - 1);
      free_.push_back(vu);
    }
    h_.set_live_vus(0);
    maybe_finished();
  }

  void maybe_finished() {
    if (phase_ == Phase::draining && running_.empty()) {
      grace_timer_->cancel();
      h_.executor_finished();
    }
  }

  ExecutorHost& h_;
  LoadShape shape_;
  ArrivalSchedule schedule_;
  long long max_vus_;
  ArrivalPacer pacer_;  // refers to schedule_, declared before it
  std::unique_ptr<Timer> arrival_timer_;
  ArrivalTimer arrival_timer_use_ = ArrivalTimer::idle;
  Nanos vu_wait_at_ = 0;  // arrival_timer_use_ == vu_wait: the budget's time it is armed for
  std::unique_ptr<Timer> grace_timer_;
  std::vector<Running> running_;
  std::vector<scenario::Vu*> free_;
  BackoffQueue<scenario::Vu*> resting_;
  std::unordered_map<scenario::Vu*, ExhaustionBackoff> backoffs_;  // only VUs in a streak
  Phase phase_ = Phase::arriving;
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
  std::unique_ptr<IdleProbe> loop_idle_;  // asked on this worker's thread, once per budget sample
  WakeQuantum wake_quantum_;
  std::unique_ptr<IdleProbe> quantum_idle_;  // its own: each probe answers for the time since its last ask
  // A turn stopped for want of a VU: the next one to come free (on_done) or the budget's
  // timer (vu_wait) resumes it, whichever comes first.
  bool waiting_for_vu_ = false;
};

}  // namespace

std::unique_ptr<Executor> make_open_model(ExecutorHost& host) { return std::make_unique<OpenModel>(host); }

}  // namespace stampede::engine
