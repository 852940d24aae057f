// Closed model (`vus` + `duration`, or `stages`): each VU starts its next iteration as soon
// as the last one ends. The number of VUs follows VuSchedule; this worker runs its share.
#include <boost/asio/post.hpp>
#include <vector>

#include "engine/vu_schedule.hpp"
#include "engine/worker.hpp"

namespace stampede::engine {

namespace {

class ClosedModel final : public Executor {
 public:
  explicit ClosedModel(Worker& w) : w_(w), schedule_(w.config().shape), change_timer_(w.io()), grace_timer_(w.io()) {}

  void begin() override { adjust(); }

  void end(bool graceful) override {
    ending_ = true;
    change_timer_.cancel();
    for (Slot& s : active_) s.retiring = true;
    if (!graceful || w_.config().shape.graceful_stop <= 0) {
      interrupt_retiring();
    } else {
      arm_grace_deadline();
    }
    maybe_finished();
  }

 private:
  struct Slot {
    scenario::Vu* vu;
    bool retiring = false;
    Nanos iteration_start = 0;
  };

  long long my_share(Nanos t) const {
    return share_of(schedule_.vus_at(t), w_.config().count, w_.config().index);
  }

  void adjust() {
    if (ending_) return;
    const Nanos t = w_.clock().now() - w_.start();
    const long long want = my_share(t);
    long long live = 0;
    for (const Slot& s : active_) live += s.retiring ? 0 : 1;
    // Un-retire before creating: a VU that is still finishing can simply carry on.
    for (Slot& s : active_) {
      if (live >= want) break;
      if (s.retiring) {
        s.retiring = false;
        ++live;
      }
    }
    while (live < want) {
      scenario::Vu* vu = parked_.empty() ? &w_.new_vu() : parked_.back();
      if (!parked_.empty()) parked_.pop_back();
      active_.push_back({vu});
      vu->slot = active_.size() - 1;
      ++live;
      start(active_.size() - 1);
    }
    if (live > want) retire(live - want);
    w_.set_live_vus(static_cast<long long>(active_.size()));
    if (auto next = schedule_.next_change_after(t)) {
      change_timer_.expires_at(time_point_at(w_.start() + *next));
      change_timer_.async_wait([this](const boost::system::error_code& ec) {
        if (!ec) adjust();
      });
    }
  }

  // Ramp-down: the newest VUs go first. Without a graceful stop they stop at once.
  void retire(long long n) {
    for (auto it = active_.rbegin(); it != active_.rend() && n > 0; ++it) {
      if (!it->retiring) {
        it->retiring = true;
        --n;
      }
    }
    if (w_.config().shape.graceful_stop <= 0) {
      interrupt_retiring();
    } else {
      arm_grace_deadline();
    }
  }

  void arm_grace_deadline() {
    grace_timer_.expires_after(std::chrono::nanoseconds(w_.config().shape.graceful_stop));
    grace_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) interrupt_retiring();
    });
  }

  void interrupt_retiring() {
    for (std::size_t i = 0; i < active_.size();) {
      if (active_[i].retiring) {
        w_.runtime().interrupt(*active_[i].vu);
        park(i);
      } else {
        ++i;
      }
    }
    w_.set_live_vus(static_cast<long long>(active_.size()));
    maybe_finished();
  }

  void park(std::size_t i) {
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

  void start(std::size_t i) {
    active_[i].iteration_start = w_.clock().now();
    w_.runtime().start_iteration(*active_[i].vu, [this](scenario::Vu& vu, const scenario::IterationOutcome& o) {
      on_done(vu, o);
    });
  }

  void on_done(scenario::Vu& vu, const scenario::IterationOutcome& outcome) {
    const std::size_t i = index_of(vu);
    if (i == active_.size()) return;
    w_.record_iteration(outcome, active_[i].iteration_start, w_.clock().now());
    if (active_[i].retiring) {
      park(i);
      w_.set_live_vus(static_cast<long long>(active_.size()));
      maybe_finished();
      return;
    }
    // Posted, not called: an iteration that never yields must not recurse.
    boost::asio::post(w_.io(), [this, v = &vu] {
      const std::size_t j = index_of(*v);
      if (j < active_.size() && !active_[j].retiring) start(j);
      else if (j < active_.size()) {
        park(j);
        w_.set_live_vus(static_cast<long long>(active_.size()));
        maybe_finished();
      }
    });
  }

  void maybe_finished() {
    if (ending_ && active_.empty()) {
      grace_timer_.cancel();
      w_.executor_finished();
    }
  }

  Worker& w_;
  VuSchedule schedule_;
  boost::asio::steady_timer change_timer_;
  boost::asio::steady_timer grace_timer_;
  std::vector<Slot> active_;
  std::vector<scenario::Vu*> parked_;
  bool ending_ = false;
};

}  // namespace

std::unique_ptr<Executor> make_closed_model(Worker& worker) { return std::make_unique<ClosedModel>(worker); }

}  // namespace stampede::engine
