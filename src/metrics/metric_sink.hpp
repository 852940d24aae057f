#pragma once
// Per-worker metric recording. One MetricSink per worker thread: recording touches only
// that worker's memory (no locks, no shared atomics). Once a second the worker calls
// take() and hands the finished second to the Collector.
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/clock.hpp"
#include "metrics/histogram.hpp"

namespace stampede::metrics {

enum class Kind : std::uint8_t {
  Timing,   // durations in ns, kept in a Histogram
  Counter,  // a sum, optionally broken down by reason (errors)
  Check,    // passes and failures
  Gauge,    // a level sampled over time (e.g. live VUs); merged across workers by sum
  // Plain values that are not durations (sizes of LiveView diffs, ...), kept in a Histogram
  // like a timing but never shown as time: the unit comes from the name (metric_unit.hpp).
  Distribution,
};
const char* kind_name(Kind);

using MetricId = std::uint32_t;

// Lets maps keyed by std::string be searched with a std::string_view, without building a
// std::string: MetricSink::id() is called by name on the hot path (e.g. from Lua bindings).
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view name) const noexcept {
    return std::hash<std::string_view>{}(name);
  }
};

// Name -> id table shared by every worker of a run. intern() takes a lock, so sinks
// cache ids; ids are dense and stable for the life of the run.
class Registry {
 public:
  // Throws std::invalid_argument when the name already exists with another kind.
  MetricId intern(std::string_view name, Kind kind);
  std::string name(MetricId id) const;
  Kind kind(MetricId id) const;
  std::size_t size() const;
  // Returns false when the name is not known.
  bool find(std::string_view name, MetricId& id) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> names_;
  std::vector<Kind> kinds_;
  std::unordered_map<std::string, MetricId, NameHash, std::equal_to<>> ids_;
};

// One metric's data over some window (a second of one worker, or merged).
struct MetricData {
  bool present = false;          // anything recorded at all
  Histogram histogram;           // Timing, Distribution
  std::uint64_t count = 0;       // Timing: samples; Counter: sum; Check: total; Gauge: samples
  std::uint64_t failed = 0;      // Check: failures
  double gauge_last = 0;         // Gauge: last value set
  double gauge_max = 0;          // Gauge: highest value set
  std::map<std::string, std::uint64_t, std::less<>> reasons;  // Counter: breakdown
  // Counter: for a reason that is a group of messages (metrics/error_group.hpp), the first
  // message of the group in full. A reason that is its own message has none.
  std::map<std::string, std::string, std::less<>> examples;
  // A gauge of one process (generator.cpu, generator.fds: its busiest thread, its open files
  // against its own limit). Set where another rank's seconds arrive (snapshot_wire.cpp).
  bool one_process = false;
  // Merging the same window from two workers. Gauges add (two workers' VUs add up), except
  // one-process gauges of two ranks: the highest, as a per-process limit judges it.
  void merge_parallel(const MetricData& other);
  // Appending a later window of the same metric: gauges keep the highest and the latest.
  void merge_sequential(const MetricData& later);
  // Adds `other`'s reasons, with their examples.
  void merge_reasons(const MetricData& other);
  // Counts `n` more under `reason`. A metric keeps at most kMaxReasons distinct reasons
  // (a scenario could use a fresh string per error); the rest are counted under
  // kOtherReason, so memory stays bounded and no event goes uncounted.
  // `example`: a message of the group `reason` stands for, kept when it is the group's first
  // (empty: the reason is the message itself).
  void add_reason(std::string_view reason, std::uint64_t n, std::string_view example = {});
  static constexpr std::size_t kMaxReasons = 64;
  static constexpr std::string_view kOtherReason = "(other reasons)";
};

// Requests of every client, so the summary can say how many were sent, completed,
// failed, and still in flight at the end.
struct RequestTally {
  std::uint64_t sent = 0;
  std::uint64_t completed = 0;
  std::uint64_t failed = 0;
  void merge(const RequestTally& o) { sent += o.sent; completed += o.completed; failed += o.failed; }
};

// One worker's finished second (or any window): data indexed by MetricId.
struct Snapshot {
  std::int64_t second = 0;  // index of the second since the run started
  std::vector<MetricData> metrics;
  RequestTally requests;
  void merge_parallel(const Snapshot& other);
};

class MetricSink {
 public:
  explicit MetricSink(Registry& registry) : registry_(&registry) {}

  Registry& registry() { return *registry_; }
  // Cached per sink: the registry lock is taken only the first time a name is seen here.
  MetricId id(std::string_view name, Kind kind);

  void record(MetricId id, Nanos value);                 // Timing
  // Timing or Distribution: `times` samples of one value at once (a server histogram's
  // bucket, spread over its range: clients/server_metrics_recorder.hpp).
  void record(MetricId id, std::int64_t value, std::uint64_t times);
  void add(MetricId id, std::uint64_t n = 1);           // Counter
  // Counter +1, under the reason's group (metrics/error_group.hpp: what varies per
  // connection or request replaced), with the reason kept as the group's example.
  void add_error(MetricId id, std::string_view reason);
  void check(MetricId id, bool ok);                      // Check
  void set_gauge(MetricId id, double value);             // Gauge
  // The gauge's level is no longer known (the server series it mirrors went away, or its
  // scrape failed): it is not carried into the next window, and a level carried into this
  // window and not set again in it is dropped, so the timeline shows a gap, not a stale line.
  void forget_gauge(MetricId id);

  void request_sent() { ++current_.requests.sent; }
  void request_finished(bool ok) { ++(ok ? current_.requests.completed : current_.requests.failed); }

  // Moves the data recorded since the last take() out; the sink starts a new window.
  // Gauges carry their last value over into the new window.
  Snapshot take(std::int64_t second);

 private:
  struct CachedId {
    MetricId id;
    Kind kind;
  };
  MetricData& slot(MetricId id);
  Registry* registry_;
  Snapshot current_;
  std::unordered_map<std::string, CachedId, NameHash, std::equal_to<>> cache_;
  std::vector<MetricId> gauges_;  // ids set_gauge was called with, to carry them over in take()
};

}  // namespace stampede::metrics
