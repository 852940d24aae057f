#include "metrics/collector.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace stampede::metrics {

namespace {

// A timeline second is kept for the whole run but never recorded into again: its
// histograms go compact (a few KB each instead of ~100 KB of dense octaves). Queries and
// merges read both forms alike, so readers of the timeline see no difference.
void compact_histograms(Snapshot& second) {
  for (MetricData& metric : second.metrics) metric.histogram.compact();
}

}  // namespace

Collector::Collector(std::size_t workers) : workers_(workers) {
  if (workers == 0) throw std::invalid_argument("a collector needs at least one worker");
}

void Collector::subscribe(Subscriber subscriber) {
  std::lock_guard lock(deliver_mutex_);
  subscribers_.push_back(std::move(subscriber));
}

void Collector::push(std::size_t worker, Snapshot second) {
  {
    std::lock_guard lock(mutex_);
    if (worker >= workers_.size()) {
      throw std::invalid_argument(
          fmt::format("worker {} pushed a second, but there are {} workers", worker, workers_.size()));
    }
    WorkerState& state = workers_[worker];
    state.last_second = state.delivered ? std::max(state.last_second, second.second) : second.second;
    state.delivered = true;
    if (merged_any_ && second.second <= merged_through_) {
      merge_late_locked(std::move(second));
    } else if (auto it = pending_.find(second.second); it != pending_.end()) {
      it->second.merge_parallel(second);
    } else {
      const std::int64_t key = second.second;
      pending_.emplace(key, std::move(second));
    }
    merge_ready_locked(false);
  }
  deliver();
}

void Collector::finish(std::size_t worker) {
  {
    std::lock_guard lock(mutex_);
    if (worker >= workers_.size()) {
      throw std::invalid_argument(
          fmt::format("worker {} finished, but there are {} workers", worker, workers_.size()));
    }
    workers_[worker].finished = true;
    merge_ready_locked(false);
  }
  deliver();
}

void Collector::flush() {
  {
    std::lock_guard lock(mutex_);
    for (WorkerState& state : workers_) state.finished = true;
    merge_ready_locked(true);
  }
  deliver();
}

void Collector::merge_ready_locked(bool everything) {
  // The latest second no worker can still deliver.
  std::int64_t ready_through = std::numeric_limits<std::int64_t>::max();
  if (!everything) {
    for (const WorkerState& state : workers_) {
      if (state.finished) continue;
      if (!state.delivered) return;
      ready_through = std::min(ready_through, state.last_second);
    }
  }
  while (!pending_.empty() && pending_.begin()->first <= ready_through) {
    auto node = pending_.extract(pending_.begin());
    compact_histograms(node.mapped());
    auto entry = std::make_shared<const Snapshot>(std::move(node.mapped()));
    summary_.add(*entry);
    timeline_.push_back(entry);
    outbox_.push_back(std::move(entry));
    merged_any_ = true;
    merged_through_ = node.key();
  }
}

void Collector::merge_late_locked(Snapshot second) {
  ++late_;
  summary_.add(second);
  const auto at = std::lower_bound(timeline_.begin(), timeline_.end(), second.second,
                                   [](const Entry& e, std::int64_t s) { return e->second < s; });
  if (at != timeline_.end() && (*at)->second == second.second) {
    // Entries are shared with readers: replace, never modify.
    auto merged = std::make_shared<Snapshot>(**at);
    merged->merge_parallel(second);  // a write: the merged histograms are dense again
    compact_histograms(*merged);
    *at = std::move(merged);
  } else {
    compact_histograms(second);
    timeline_.insert(at, std::make_shared<const Snapshot>(std::move(second)));
  }
}

void Collector::deliver() {
  std::lock_guard delivering(deliver_mutex_);
  for (;;) {
    Entry next;
    {
      std::lock_guard lock(mutex_);
      if (outbox_.empty()) return;
      next = std::move(outbox_.front());
      outbox_.pop_front();
    }
    for (const Subscriber& subscriber : subscribers_) subscriber(*next);
  }
}

std::vector<Collector::Entry> Collector::timeline() const {
  std::lock_guard lock(mutex_);
  return timeline_;
}

Summary Collector::summary() const {
  std::lock_guard lock(mutex_);
  return summary_;
}

Summary Collector::summary_window(std::int64_t first_second, std::int64_t last_second) const {
  std::vector<Entry> window;
  {
    std::lock_guard lock(mutex_);
    for (const Entry& entry : timeline_) {
      if (entry->second >= first_second && entry->second <= last_second) window.push_back(entry);
    }
  }
  Summary summary;  // merged outside the lock: entries are immutable
  for (const Entry& entry : window) summary.add(*entry);
  return summary;
}

std::uint64_t Collector::late_snapshots() const {
  std::lock_guard lock(mutex_);
  return late_;
}

}  // namespace stampede::metrics
