#pragma once
// Gathers the workers' finished seconds into one Timeline (a merged Snapshot per second,
// in order) and a running Summary. Workers push once a second, off the hot path, so a
// mutex is fine; they hand their Snapshot over by move (no copy under the lock).
//
// A second is merged when no worker can still deliver it: every worker has delivered
// that second or a later one (a worker that skipped a second has nothing for it), or
// has finished, or flush() was called at the end of the run.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "metrics/metric_sink.hpp"
#include "metrics/summary.hpp"

namespace stampede::metrics {

class Collector {
 public:
  // Called once per merged second, in order of seconds, one call at a time, without the
  // collector's data lock held: a subscriber may call timeline(), summary(),
  // summary_window() and late_snapshots(), but not push(), finish(), flush() or
  // subscribe() (those deliver to subscribers themselves). It must not throw.
  using Subscriber = std::function<void(const Snapshot& merged_second)>;

  explicit Collector(std::size_t workers);  // throws std::invalid_argument for 0

  void subscribe(Subscriber subscriber);

  // One worker's finished second; `worker` is in [0, workers). Data for a second that
  // was already merged (a worker that fell behind past flush()) is not lost: it is added
  // to that second of the timeline and to the summary, and counted in late_snapshots(),
  // but subscribers are not called again.
  void push(std::size_t worker, Snapshot second);
  // This worker will deliver no more seconds: the others stop waiting for it.
  void finish(std::size_t worker);
  // End of the run: merges every pending second with whatever was delivered, and stops
  // waiting for any worker.
  void flush();

  // Merged seconds in increasing order of Snapshot::second. A second no worker delivered
  // has no entry. Entries are immutable; holding one keeps it alive. Their histograms
  // are compact (Histogram::compact): a run's timeline stays a few KB a second.
  std::vector<std::shared_ptr<const Snapshot>> timeline() const;
  // Every merged second so far.
  Summary summary() const;
  // The merged seconds s with first_second <= s <= last_second.
  Summary summary_window(std::int64_t first_second, std::int64_t last_second) const;
  // Snapshots that arrived after their second had been merged.
  std::uint64_t late_snapshots() const;

 private:
  struct WorkerState {
    bool delivered = false;
    std::int64_t last_second = 0;  // the latest second delivered, when delivered
    bool finished = false;
  };
  using Entry = std::shared_ptr<const Snapshot>;

  void merge_ready_locked(bool everything);
  void merge_late_locked(Snapshot second);
  void deliver();  // calls subscribers with the outbox, in order

  mutable std::mutex mutex_;  // guards everything below but the subscribers
  std::vector<WorkerState> workers_;
  std::map<std::int64_t, Snapshot> pending_;  // seconds some worker may still deliver
  std::vector<Entry> timeline_;
  Summary summary_;
  bool merged_any_ = false;
  std::int64_t merged_through_ = 0;  // the latest merged second, when merged_any_
  std::uint64_t late_ = 0;
  std::deque<Entry> outbox_;  // merged, not yet delivered to subscribers

  std::mutex deliver_mutex_;  // held while subscribers run: one delivery at a time
  std::vector<Subscriber> subscribers_;
};

}  // namespace stampede::metrics
