// Closed model (`vus` + `duration`, or `stages`): each VU starts its next iteration as soon
// as the last one ends. The number of VUs follows VuSchedule; this worker runs its share.
// After an iteration that failed because this machine ran out of file descriptors, ports
// or socket memory, the VU rests first (ExhaustionBackoff) instead of failing again at once.
// With a count of iterations (`iterations`), this worker runs its share of them and then
// finishes, before the end of the duration.
// A slow ramp starts (and retires) its VUs on the worker's grid, at most 100 ms after the
// line reaches them (docs/design/048, session 43).
#include <algorithm>
#include <cmath>
#include <cstdlib>  // std::llabs
#include <limits>
#include <vector>

#include "clients/worker_timers.hpp"
#include "engine/executor.hpp"
#include "engine/exhaustion_backoff.hpp"
#include "engine/vu_schedule.hpp"

namespace stampede::engine {

namespace {

class ClosedModel final : public Executor {
 public:
  explicit ClosedModel(ExecutorHost& host)
      : h_(host),
        schedule_(host.settings().shape),
        change_timer_(host.scheduler().make_timer()),
        grace_timer_(host.scheduler().make_timer()),
        rest_timer_(host.scheduler().make_timer()),
        grid_phase_(clients::grid_phase(host.settings().index, host.settings().count)),
        iterations_left_(iteration_share(host.settings())) {}

  void begin() override {
    adjust();
    finish_if_counted_out();  // a worker whose share is no iteration at all
  }

  void end(bool graceful) override {
    ending_ = true;
    change_timer_->cancel();
    const Nanos now = h_.scheduler().now();
    for (Slot& s : active_) mark_retiring(s, now);
    park_resting_retirees();
    interrupt_retiring(graceful ? now : kNever);
    maybe_finished();
  }

 private:
  struct Slot {
    scenario::Vu* vu;
    bool retiring = false;
    Nanos iteration_start = 0;
    ExhaustionBackoff backoff;
    bool resting = false;  // between iterations, waiting out the backoff until rest_until
    Nanos rest_until = 0;
    Nanos retire_deadline = 0;  // retiring: interrupted at this time if still running
  };

  static constexpr Nanos kNever = std::numeric_limits<Nanos>::max();
  static constexpr long long kUncounted = -1;
  // The most VUs one grid point starts or retires (change_at): a ramp that would move more
  // (over ~500 VUs a second on one worker) keeps the line's exact times, so a fast ramp's
  // connects are never bunched into bursts larger than this.
  static constexpr long long kGridBatch = 50;

  // This worker's part of a count of iterations: split between the workers that have VUs
  // (fewer VUs than workers leave some with none, and those none to run).
  static long long iteration_share(const ExecutorSettings& s) {
    if (s.shape.iterations <= 0) return kUncounted;
    const auto vus = static_cast<long long>(std::llround(s.shape.start));  // a counted load is constant
    const auto with_vus = static_cast<int>(std::min<long long>(vus, s.count));
    return s.index < with_vus ? share_of(s.shape.iterations, with_vus, s.index) : 0;
  }

  long long my_share(Nanos t) const {
    return share_of(schedule_.vus_at(t), h_.settings().count, h_.settings().index);
  }

  void adjust() {
    if (ending_) return;
    const Nanos t = h_.scheduler().now() - h_.start();
    const long long want = my_share(t);
    // Counted, not walked: a ramp calls this once per VU it adds, and walking every slot each
    // time made a ramp to 18,000 VUs a process quadratic (a sixth of a rank's CPU at 4,600).
    long long live = static_cast<long long>(active_.size()) - retiring_;
    // Un-retire before creating: a VU that is still finishing can simply carry on.
    for (std::size_t i = 0; retiring_ > 0 && live < want && i < active_.size(); ++i) {
      if (active_[i].retiring) {
        active_[i].retiring = false;  // its deadline no longer applies; a new one comes with a new retirement
        --retiring_;
        ++live;
      }
    }
    while (live < want && iterations_left_ != 0) {
      scenario::Vu* vu = parked_.empty() ? &h_.new_vu() : parked_.back();
      if (!parked_.empty()) parked_.pop_back();
      active_.push_back({vu, false, 0, ExhaustionBackoff(static_cast<std::uint64_t>(vu->id))});
      vu->slot = active_.size() - 1;
      ++live;
      start_or_park(active_.size() - 1);
    }
    if (live > want) retire(live - want);
    h_.set_live_vus(static_cast<long long>(active_.size()));
    // Wakes when this worker's share changes, not the total: one of n workers wakes for
    // every n-th VU of a ramp.
    const auto [lo, hi] = totals_with_share(want, h_.settings().count, h_.settings().index);
    if (auto next = schedule_.next_outside_after(t, lo, hi)) change_timer_->arm(change_at(*next, want), [this] { adjust(); });
  }

  // When to act on the next change of this worker's share, due `next` after the start, with
  // `want` VUs now: at the worker's next grid point (clients::grid_point_at_or_after), where
  // its heartbeats and loop probe wake it anyway. The VUs due meanwhile start together, and
  // their connects, upgrades and joins go out and are answered together. One at a time, each
  // VU cost a rank of the million-user run ~4 wake-ups of its own (its start, the connect,
  // the upgrade's answer, the join's reply): with 56 ranks at 2,941 joins a second, 0.78-0.99
  // of a core for the ranks, against 0.42-0.47 on the grid (bench/RESULTS.md, session 43).
  // The line's exact time instead when the grid point would move none, or the other way (a
  // spike shorter than the grid's step), or the share moves more than kGridBatch VUs in a
  // grid step there (a fast ramp).
  Nanos change_at(Nanos next, long long want) const {
    const Nanos exact = h_.start() + next;
    const Nanos on_grid = clients::grid_point_at_or_after(exact, grid_phase_);
    const long long first = my_share(next) - want;
    const long long moved = my_share(on_grid - h_.start()) - want;
    if (moved == 0 || (moved > 0) != (first > 0)) return exact;
    // How fast the share moves there: over a step before and a step after, so that neither
    // the start nor the end of a fast ramp is taken for a slow one.
    const long long before = my_share(std::max<Nanos>(0, next - clients::kGridStep));
    const long long after = my_share(next + clients::kGridStep);
    if (std::max(std::llabs(want - before), std::llabs(after - want)) > kGridBatch) return exact;
    return on_grid;
  }

  // Ramp-down: the newest VUs go first. Without a graceful stop they stop at once.
  void retire(long long n) {
    const Nanos now = h_.scheduler().now();
    for (auto it = active_.rbegin(); it != active_.rend() && n > 0; ++it) {
      if (!it->retiring) {
        mark_retiring(*it, now);
        --n;
      }
    }
    park_resting_retirees();
    interrupt_retiring(now);
  }

  // Each VU no longer needed has its own deadline, graceful_stop after it was retired: a
  // ramp-down retires VUs all along its length, and one deadline for all of them, moved at
  // every step, let the first ones run on until the ramp's end.
  void mark_retiring(Slot& s, Nanos now) {
    if (s.retiring) return;  // keeps the deadline it already has
    s.retiring = true;
    ++retiring_;
    s.retire_deadline = now + std::max<Nanos>(0, h_.settings().shape.graceful_stop);
  }

  // Interrupts the retiring VUs whose deadline is at or before `up_to` (kNever: all of them)
  // and arms the timer for the next deadline.
  void interrupt_retiring(Nanos up_to) {
    Nanos next = kNever;
    for (std::size_t i = 0; i < active_.size();) {
      if (active_[i].retiring && active_[i].retire_deadline <= up_to) {
        h_.interrupt(*active_[i].vu);
        park(i);
      } else {
        if (active_[i].retiring) next = std::min(next, active_[i].retire_deadline);
        ++i;
      }
    }
    h_.set_live_vus(static_cast<long long>(active_.size()));
    arm_grace_timer(next);
    maybe_finished();
  }

  void arm_grace_timer(Nanos at) {
    if (at == kNever || (grace_timer_armed_ && grace_timer_at_ <= at)) return;
    grace_timer_armed_ = true;
    grace_timer_at_ = at;
    grace_timer_->arm(at, [this] {
      grace_timer_armed_ = false;
      interrupt_retiring(h_.scheduler().now());
    });
  }

  // A retiring VU that rests has no iteration to finish: it stops now.
  void park_resting_retirees() {
    for (std::size_t i = 0; i < active_.size();) {
      if (active_[i].retiring && active_[i].resting) {
        park(i);
      } else {
        ++i;
      }
    }
    h_.set_live_vus(static_cast<long long>(active_.size()));
  }

  void park(std::size_t i) {
    if (active_[i].retiring) --retiring_;
    scenario::Vu* vu = active_[i].vu;
    active_[i] = active_.back();
    active_[i].vu->slot = i;
    active_.pop_back();
    vu->slot = static_cast<std::size_t>(-1);
    parked_.push_back(vu);
  }

  std::size_t index_of(scenario::Vu& vu) const {
    return vu.slot < active_.size() && active_[vu.slot].vu == &vu ? vu.slot : active_.size();
  }

  // Starts the slot's next iteration; when the run's count of iterations is used up, the VU
  // has nothing left to do and is parked instead.
  void start_or_park(std::size_t i) {
    if (iterations_left_ == 0) {
      park(i);
      h_.set_live_vus(static_cast<long long>(active_.size()));
      finish_if_counted_out();
      return;
    }
    if (iterations_left_ > 0) --iterations_left_;
    start(i);
  }

  void start(std::size_t i) {
    active_[i].iteration_start = h_.scheduler().now();
    h_.start_iteration(*active_[i].vu, [this](scenario::Vu& vu, const scenario::IterationOutcome& o) { on_done(vu, o); });
  }

  void on_done(scenario::Vu& vu, const scenario::IterationOutcome& outcome) {
    const std::size_t i = index_of(vu);
    if (i == active_.size()) return;
    const Nanos now = h_.scheduler().now();
    h_.record_iteration(outcome, active_[i].iteration_start, now);
    if (active_[i].retiring) {
      park(i);
      h_.set_live_vus(static_cast<long long>(active_.size()));
      maybe_finished();
      return;
    }
    if (iterations_left_ == 0) return start_or_park(i);  // parks it: the count is used up
    const Nanos next = active_[i].backoff.next_start(now, outcome.local_resource_exhausted);
    if (next > now) return rest(i, next);
    // Posted, not called: an iteration that never yields must not recurse.
    h_.scheduler().post([this, v = &vu] {
      const std::size_t j = index_of(*v);
      if (j < active_.size() && !active_[j].retiring) start_or_park(j);
      else if (j < active_.size()) {
        park(j);
        h_.set_live_vus(static_cast<long long>(active_.size()));
        maybe_finished();
      }
    });
  }

  void rest(std::size_t i, Nanos until) {
    active_[i].resting = true;
    active_[i].rest_until = until;
    resting_.push(active_[i].vu, until);
    arm_rest_timer();
  }

  // One Asio timer for every resting VU, armed for the first one to wake.
  void arm_rest_timer() {
    const auto first = resting_.earliest();
    if (!first || (rest_timer_armed_ && *first >= rest_timer_at_)) return;
    rest_timer_armed_ = true;
    rest_timer_at_ = *first;
    rest_timer_->arm(*first, [this] {
      rest_timer_armed_ = false;
      wake_rested();
    });
  }

  void wake_rested() {
    const Nanos now = h_.scheduler().now();
    while (auto ready = resting_.pop_ready(now)) {
      const std::size_t j = index_of(*ready->second);
      // Stale: the VU was parked while it rested, or rests again for a later time.
      if (j == active_.size() || !active_[j].resting || active_[j].rest_until != ready->first) continue;
      active_[j].resting = false;
      if (!active_[j].retiring && !ending_) start_or_park(j);
    }
    arm_rest_timer();
  }

  // Every iteration of this worker's count has started and ended: the VUs resting after a
  // failure have none left to run, and the worker is done before its duration.
  void finish_if_counted_out() {
    if (iterations_left_ != 0 || ending_) return;
    for (std::size_t i = 0; i < active_.size();) {
      if (active_[i].resting) {
        park(i);
      } else {
        ++i;
      }
    }
    h_.set_live_vus(static_cast<long long>(active_.size()));
    if (!active_.empty()) return;
    ending_ = true;
    change_timer_->cancel();
    maybe_finished();
  }

  void maybe_finished() {
    if (ending_ && active_.empty()) {
      grace_timer_->cancel();
      rest_timer_->cancel();
      resting_.clear();
      h_.executor_finished();
    }
  }

  ExecutorHost& h_;
  VuSchedule schedule_;
  std::unique_ptr<Timer> change_timer_;
  std::unique_ptr<Timer> grace_timer_;
  bool grace_timer_armed_ = false;
  Nanos grace_timer_at_ = 0;
  std::unique_ptr<Timer> rest_timer_;
  bool rest_timer_armed_ = false;
  Nanos rest_timer_at_ = 0;
  BackoffQueue<scenario::Vu*> resting_;
  std::vector<Slot> active_;
  long long retiring_ = 0;  // slots in active_ with retiring set
  std::vector<scenario::Vu*> parked_;
  bool ending_ = false;
  Nanos grid_phase_;  // of this worker's grid: the Worker's own (clients::grid_phase)
  long long iterations_left_;  // of this worker's share, not yet started; kUncounted: no count
};

}  // namespace

std::unique_ptr<Executor> make_closed_model(ExecutorHost& host) { return std::make_unique<ClosedModel>(host); }

}  // namespace stampede::engine
