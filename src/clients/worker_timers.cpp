#include "clients/worker_timers.hpp"

#include <algorithm>
#include <memory>

namespace stampede::clients {

WorkerTimer::~WorkerTimer() { cancel(); }

void WorkerTimer::cancel() {
  if (heap_ != nullptr) heap_->cancel(*this);
}

TimerHeap::~TimerHeap() {
  for (WorkerTimer* t : heap_) t->heap_ = nullptr;
  for (auto& [at, sentinel] : buckets_) {
    for (WorkerTimer* t = sentinel.next_; t != &sentinel;) {
      WorkerTimer* const next = t->next_;
      t->heap_ = nullptr;
      t->next_ = nullptr;
      t = next;
    }
    sentinel.next_ = nullptr;
  }
}

void TimerHeap::place(std::size_t i, WorkerTimer* t) {
  heap_[i] = t;
  t->index_ = i;
}

void TimerHeap::sift_up(std::size_t i) {
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!before(i, parent)) break;
    WorkerTimer* t = heap_[i];
    place(i, heap_[parent]);
    place(parent, t);
    i = parent;
  }
}

void TimerHeap::sift_down(std::size_t i) {
  for (;;) {
    const std::size_t left = 2 * i + 1;
    const std::size_t right = left + 1;
    std::size_t least = i;
    if (left < heap_.size() && before(left, least)) least = left;
    if (right < heap_.size() && before(right, least)) least = right;
    if (least == i) return;
    WorkerTimer* t = heap_[i];
    place(i, heap_[least]);
    place(least, t);
    i = least;
  }
}

void TimerHeap::remove_at(std::size_t i) {
  heap_[i]->heap_ = nullptr;
  WorkerTimer* moved = heap_.back();
  heap_.pop_back();
  if (i == heap_.size()) return;  // it was the last one
  place(i, moved);
  // The moved timer may belong above or below its new place.
  sift_up(i);
  sift_down(moved->index_);
}

void TimerHeap::schedule(WorkerTimer& t, Nanos at, WorkerTimer::Fn fn, void* arg) {
  if (t.heap_ != nullptr) t.heap_->cancel(t);
  t.heap_ = this;
  t.at_ = at;
  t.fn_ = fn;
  t.arg_ = arg;
  heap_.push_back(&t);
  t.index_ = heap_.size() - 1;
  sift_up(t.index_);
}

void TimerHeap::schedule_shared(WorkerTimer& t, Nanos at, WorkerTimer::Fn fn, void* arg) {
  if (t.heap_ != nullptr) t.heap_->cancel(t);
  auto [it, made] = buckets_.try_emplace(at);
  WorkerTimer& sentinel = it->second;
  if (made) sentinel.prev_ = sentinel.next_ = &sentinel;
  t.heap_ = this;
  t.at_ = at;
  t.fn_ = fn;
  t.arg_ = arg;
  // At the ring's end: the bucket fires in the order its timers were armed.
  t.prev_ = sentinel.prev_;
  t.next_ = &sentinel;
  sentinel.prev_->next_ = &t;
  sentinel.prev_ = &t;
  ++in_buckets_;
}

void TimerHeap::unlink(WorkerTimer& t) {
  // An emptied bucket stays in the map until it is the earliest (earliest_bucket()).
  t.prev_->next_ = t.next_;
  t.next_->prev_ = t.prev_;
  t.next_ = nullptr;
  t.index_ = 0;
  t.heap_ = nullptr;
  --in_buckets_;
}

void TimerHeap::cancel(WorkerTimer& t) {
  if (t.heap_ != this) return;
  if (t.in_bucket()) return unlink(t);
  remove_at(t.index_);
}

WorkerTimer* TimerHeap::earliest_bucket() {
  while (!buckets_.empty()) {
    WorkerTimer& sentinel = buckets_.begin()->second;
    if (sentinel.next_ != &sentinel) return sentinel.next_;
    sentinel.next_ = nullptr;  // not a timer: nothing to unlink when it is destroyed
    buckets_.erase(buckets_.begin());
  }
  return nullptr;
}

std::optional<Nanos> TimerHeap::earliest() {
  const WorkerTimer* bucketed = earliest_bucket();
  if (heap_.empty()) return bucketed ? std::optional<Nanos>(bucketed->at_) : std::nullopt;
  const Nanos top = heap_.front()->at_;
  return bucketed ? std::min(top, bucketed->at_) : top;
}

std::size_t TimerHeap::fire_due(Nanos now) {
  std::size_t fired = 0;
  for (;;) {
    WorkerTimer* t = earliest_bucket();
    // The heap's first goes first when it is due no later than the earliest bucket's.
    if (!heap_.empty() && (t == nullptr || heap_.front()->at_ <= t->at_)) t = heap_.front();
    if (t == nullptr || t->at_ > now) return fired;
    const WorkerTimer::Fn fn = t->fn_;
    void* const arg = t->arg_;
    cancel(*t);
    ++fired;
    fn(arg);  // may re-arm t, arm or cancel others, or destroy t's owner
  }
}

WorkerTimers::WorkerTimers(boost::asio::io_context& io, const Clock& clock, Nanos phase)
    : clock_(clock), phase_(phase), timer_(io) {}

Nanos coarse_deadline(Nanos now, Nanos delay, Nanos phase) {
  const Nanos grid = std::clamp<Nanos>(delay / 100, kMicro, kGridStep);
  const Nanos after_phase = now + delay - phase;
  return (after_phase + grid - 1) / grid * grid + phase;
}

Nanos grid_phase(int index, int count) {
  if (count <= 1) return 0;
  return kGridStep / count * (index % count);
}

void WorkerTimers::schedule(WorkerTimer& t, Nanos at, WorkerTimer::Fn fn, void* arg) {
  heap_.schedule(t, at, fn, arg);
  after_arming(at);
}

void WorkerTimers::schedule_coarse_after(WorkerTimer& t, Nanos delay, WorkerTimer::Fn fn, void* arg) {
  const Nanos at = coarse_deadline(clock_.now(), delay, phase_);
  heap_.schedule_shared(t, at, fn, arg);
  after_arming(at);
}

void WorkerTimers::after_arming(Nanos at) {
  // Only an earlier deadline needs the Asio timer moved; a cancelled earliest one just
  // makes it wake once for nothing.
  if (!armed_for_ || at < *armed_for_) rearm();
}

void WorkerTimers::rearm() {
  const auto next = heap_.earliest();
  armed_for_ = next;
  if (!next) return;
  timer_.expires_at(std::chrono::steady_clock::time_point(std::chrono::nanoseconds(*next)));
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // re-armed or destroyed meanwhile (checked before touching `this`)
    on_timer();
  });
}

void WorkerTimers::on_timer() {
  armed_for_.reset();
  heap_.fire_due(clock_.now());
  if (!armed_for_) rearm();  // (a callback that armed an earlier timer re-armed already)
}

}  // namespace stampede::clients
