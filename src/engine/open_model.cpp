// Open model (`rate` + `duration`, or `rate_stages`): iterations start on the schedule of
// ArrivalSchedule whatever earlier ones are doing. Arrival i goes to worker i mod N, so the
// workers' shares add up to the plan exactly. A due arrival takes any free VU of this worker
// (never a fixed timetable per connection), a new VU while under this worker's share of
// max_vus, or is counted as dropped. Iterations are timed from their scheduled start, so a
// late start (a busy generator, a full VU pool) shows in the numbers: no coordinated omission.
#include <boost/asio/post.hpp>
#include <vector>

#include "engine/arrival_schedule.hpp"
#include "engine/worker.hpp"

namespace stampede::engine {

namespace {

constexpr int kCatchUpBatch = 64;

class OpenModel final : public Executor {
 public:
  explicit OpenModel(Worker& w)
      : w_(w),
        schedule_(w.config().shape),
        max_vus_(share_of(w.config().shape.max_vus, w.config().count, w.config().index)),
        next_(w.config().index),
        arrival_timer_(w.io()),
        grace_timer_(w.io()) {}

  void begin() override { on_arrival_timer(); }

  void end(bool graceful) override {
    ending_ = true;
    arrival_timer_.cancel();
    if (!graceful || w_.config().shape.graceful_stop <= 0) {
      interrupt_all();
    } else {
      grace_timer_.expires_after(std::chrono::nanoseconds(w_.config().shape.graceful_stop));
      grace_timer_.async_wait([this](const boost::system::error_code& ec) {
        if (!ec) interrupt_all();
      });
    }
    maybe_finished();
  }

 private:
  struct Running {
    scenario::Vu* vu;
    Nanos scheduled;
  };

  // Starts every arrival that is due by now (catching up after a late wake-up), then
  // sleeps until the next one.
  void on_arrival_timer() {
    if (ending_) return;
    const Nanos now_rel = w_.clock().now() - w_.start();
    // Catching up happens in batches so that replies already waiting are read in between.
    for (int batch = 0;; ++batch) {
      if (batch == kCatchUpBatch) {
        boost::asio::post(w_.io(), [this] { on_arrival_timer(); });
        return;
      }
      auto due = schedule_.due(next_);
      if (!due) return;  // no more arrivals: the end timer stops the run
      if (*due > now_rel) {
        arrival_timer_.expires_at(time_point_at(w_.start() + *due));
        arrival_timer_.async_wait([this](const boost::system::error_code& ec) {
          if (!ec) on_arrival_timer();
        });
        return;
      }
      next_ += w_.config().count;
      dispatch(w_.start() + *due);
    }
  }

  void dispatch(Nanos scheduled) {
    scenario::Vu* vu = nullptr;
    if (!free_.empty()) {
      vu = free_.back();  // the most recently used: its connections are the warmest
      free_.pop_back();
    } else if (w_.vus_created() < max_vus_) {
      vu = &w_.new_vu();
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
    w_.record_iteration(outcome, running_[vu.slot].scheduled, w_.clock().now());
    remove(vu.slot);
    free_.push_back(&vu);
    w_.set_live_vus(static_cast<long long>(running_.size()));
    maybe_finished();
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
    if (ending_ && running_.empty()) {
      grace_timer_.cancel();
      w_.executor_finished();
    }
  }

  Worker& w_;
  ArrivalSchedule schedule_;
  long long max_vus_;
  long long next_;  // index of this worker's next arrival
  boost::asio::steady_timer arrival_timer_;
  boost::asio::steady_timer grace_timer_;
  std::vector<Running> running_;
  std::vector<scenario::Vu*> free_;
  bool ending_ = false;
};

}  // namespace

std::unique_ptr<Executor> make_open_model(Worker& worker) { return std::make_unique<OpenModel>(worker); }

}  // namespace stampede::engine
