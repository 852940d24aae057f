#include "metrics/metric_sink.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "metrics/error_group.hpp"

namespace stampede::metrics {

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::Timing: return "timing";
    case Kind::Counter: return "counter";
    case Kind::Check: return "check";
    case Kind::Gauge: return "gauge";
    case Kind::Distribution: return "distribution";
  }
  return "unknown";
}

MetricId Registry::intern(std::string_view name, Kind kind) {
  std::lock_guard lock(mutex_);
  if (auto it = ids_.find(name); it != ids_.end()) {
    const Kind existing = kinds_[it->second];
    if (existing != kind) {
      throw std::invalid_argument(
          fmt::format("metric \"{}\" is a {}, not a {}", name, kind_name(existing), kind_name(kind)));
    }
    return it->second;
  }
  const auto id = static_cast<MetricId>(names_.size());
  names_.emplace_back(name);
  kinds_.push_back(kind);
  ids_.emplace(std::string(name), id);
  return id;
}

std::string Registry::name(MetricId id) const {
  std::lock_guard lock(mutex_);
  return names_.at(id);
}

Kind Registry::kind(MetricId id) const {
  std::lock_guard lock(mutex_);
  return kinds_.at(id);
}

std::size_t Registry::size() const {
  std::lock_guard lock(mutex_);
  return names_.size();
}

bool Registry::find(std::string_view name, MetricId& id) const {
  std::lock_guard lock(mutex_);
  const auto it = ids_.find(name);
  if (it == ids_.end()) return false;
  id = it->second;
  return true;
}

void MetricData::add_reason(std::string_view reason, std::uint64_t n, std::string_view example) {
  auto it = reasons.find(reason);
  if (it == reasons.end()) {
    const bool full = reasons.size() >= kMaxReasons + (reasons.count(kOtherReason) ? 1 : 0);
    if (full && example.empty()) example = reason;  // "(other reasons)" keeps one of them
    it = reasons.emplace(std::string(full ? kOtherReason : reason), 0).first;
  }
  it->second += n;
  if (!example.empty() && example != it->first && examples.find(it->first) == examples.end())
    examples.emplace(it->first, std::string(example));
}

void MetricData::merge_reasons(const MetricData& other) {
  for (const auto& [reason, n] : other.reasons) {
    const auto example = other.examples.find(reason);
    add_reason(reason, n, example == other.examples.end() ? std::string_view() : std::string_view(example->second));
  }
}

void MetricData::merge_parallel(const MetricData& other) {
  if (!other.present) return;
  present = true;
  histogram.merge(other.histogram);
  count += other.count;
  failed += other.failed;
  if (one_process || other.one_process) {
    gauge_last = std::max(gauge_last, other.gauge_last);
    gauge_max = std::max(gauge_max, other.gauge_max);
    one_process = true;
  } else {
    gauge_last += other.gauge_last;
    gauge_max += other.gauge_max;
  }
  merge_reasons(other);
}

void MetricData::merge_sequential(const MetricData& later) {
  if (!later.present) return;
  gauge_max = present ? std::max(gauge_max, later.gauge_max) : later.gauge_max;
  gauge_last = later.gauge_last;
  one_process = one_process || later.one_process;
  present = true;
  histogram.merge(later.histogram);
  count += later.count;
  failed += later.failed;
  merge_reasons(later);
}

void Snapshot::merge_parallel(const Snapshot& other) {
  if (metrics.size() < other.metrics.size()) metrics.resize(other.metrics.size());
  for (std::size_t i = 0; i < other.metrics.size(); ++i) metrics[i].merge_parallel(other.metrics[i]);
  requests.merge(other.requests);
}

MetricId MetricSink::id(std::string_view name, Kind kind) {
  if (auto it = cache_.find(name); it != cache_.end() && it->second.kind == kind) {
    return it->second.id;
  }
  // Unknown here, or cached with another kind: the registry decides (and throws for the
  // latter with the message naming both kinds).
  const MetricId id = registry_->intern(name, kind);
  cache_.emplace(std::string(name), CachedId{id, kind});
  return id;
}

MetricData& MetricSink::slot(MetricId id) {
  if (id >= current_.metrics.size()) current_.metrics.resize(id + 1);
  MetricData& data = current_.metrics[id];
  data.present = true;
  return data;
}

void MetricSink::record(MetricId id, Nanos value) {
  MetricData& data = slot(id);
  data.histogram.record(value);
  ++data.count;
}

void MetricSink::record(MetricId id, std::int64_t value, std::uint64_t times) {
  if (times == 0) return;
  MetricData& data = slot(id);
  data.histogram.record(value, times);
  data.count += times;
}

void MetricSink::add(MetricId id, std::uint64_t n) { slot(id).count += n; }

void MetricSink::add_error(MetricId id, std::string_view reason) {
  MetricData& data = slot(id);
  ++data.count;
  // A reason seen before is its own group: counted without building the group (which
  // allocates for a message longer than a small string).
  if (const auto known = data.reasons.find(reason); known != data.reasons.end()) {
    ++known->second;
    return;
  }
  const std::string group = error_group(reason);
  data.add_reason(group, 1, group == reason ? std::string_view() : reason);
}

void MetricSink::check(MetricId id, bool ok) {
  MetricData& data = slot(id);
  ++data.count;
  if (!ok) ++data.failed;
}

void MetricSink::set_gauge(MetricId id, double value) {
  if (std::find(gauges_.begin(), gauges_.end(), id) == gauges_.end()) gauges_.push_back(id);
  // A gauge carried over from the previous window already holds the level the window
  // started at, which counts towards the window's maximum.
  const bool had_level = id < current_.metrics.size() && current_.metrics[id].present;
  MetricData& data = slot(id);
  data.gauge_max = had_level ? std::max(data.gauge_max, value) : value;
  data.gauge_last = value;
  ++data.count;
}

void MetricSink::forget_gauge(MetricId id) {
  std::erase(gauges_, id);
  // Carried over by take() and not set since: set_gauge() counts every call, take() does not.
  if (id < current_.metrics.size() && current_.metrics[id].count == 0) current_.metrics[id] = MetricData{};
}

Snapshot MetricSink::take(std::int64_t second) {
  Snapshot finished = std::move(current_);
  finished.second = second;
  current_ = Snapshot{};
  current_.metrics.reserve(finished.metrics.size());
  // A gauge is a level, not an event: the new window starts at the last level set, even
  // if nothing sets it again during the window.
  for (const MetricId id : gauges_) {
    if (id >= finished.metrics.size() || !finished.metrics[id].present) continue;
    MetricData& carried = slot(id);
    carried.gauge_last = carried.gauge_max = finished.metrics[id].gauge_last;
  }
  return finished;
}

}  // namespace stampede::metrics
