#include "clients/server_series.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "common/name_match.hpp"
#include "proto/prometheus_number.hpp"

namespace stampede::clients {
namespace {

using proto::Label;
using proto::MetricFamily;
using proto::MetricType;
using proto::Sample;

constexpr std::string_view kPrefix = "server.";

// "server.<base>{a="1",b="x\"y"}", leaving out the label named `skip` (a histogram's le).
std::string series_name(std::string_view base, const std::vector<Label>& labels, std::string_view skip = {}) {
  std::string out;
  out.reserve(kPrefix.size() + base.size() + 16 * labels.size());
  out += kPrefix;
  out += base;
  bool any = false;
  for (const Label& label : labels) {
    if (!skip.empty() && label.name == skip) continue;
    out += any ? ',' : '{';
    any = true;
    out += label.name;
    out += "=\"";
    for (const char c : label.value) {
      switch (c) {
        case '\\': out += "\\\\"; break;
        case '"': out += "\\\""; break;
        case '\n': out += "\\n"; break;
        default: out += c;
      }
    }
    out += '"';
  }
  if (any) out += '}';
  return out;
}

// The part of the sample's name after its family's ("_bucket"), or nullopt when the sample
// is not named after its family at all.
std::optional<std::string_view> suffix_of(const MetricFamily& family, const Sample& sample) {
  if (!sample.name.starts_with(family.name)) return std::nullopt;
  return std::string_view(sample.name).substr(family.name.size());
}

// The duration unit of a histogram or summary, from its OpenMetrics UNIT or else from the
// last word of its name, in nanoseconds; 0 when it is not a duration.
double nanoseconds_per_unit(const MetricFamily& family) {
  std::string_view unit = family.unit;
  if (unit.empty()) {
    const std::size_t underscore = family.name.rfind('_');
    if (underscore == std::string::npos) return 0;
    unit = std::string_view(family.name).substr(underscore + 1);
  }
  static constexpr std::array<std::pair<std::string_view, double>, 4> kUnits{{
      {"seconds", 1e9},
      {"milliseconds", 1e6},
      {"microseconds", 1e3},
      {"nanoseconds", 1},
  }};
  for (const auto& [word, factor] : kUnits) {
    if (unit == word) return factor;
  }
  return 0;
}

double finite_or_zero(double v) { return std::isfinite(v) ? v : 0; }

}  // namespace

ServerSeries::ServerSeries(std::vector<std::string> patterns) : patterns_(std::move(patterns)) {
  for (std::string& p : patterns_) {
    if (std::string_view(p).starts_with(kPrefix)) p.erase(0, kPrefix.size());
  }
}

bool ServerSeries::selects(const MetricFamily& family) const {
  if (patterns_.empty()) return true;
  const bool counter_without_total = family.type == MetricType::Counter && !family.name.ends_with("_total");
  for (const std::string& p : patterns_) {
    if (glob_matches(p, family.name)) return true;
    if (counter_without_total && glob_matches(p, family.name + "_total")) return true;
  }
  return false;
}

std::vector<std::string> ServerSeries::families_seen() const {
  std::vector<std::string> out(families_seen_.begin(), families_seen_.end());
  std::sort(out.begin(), out.end());
  return out;
}

void ServerSeries::reset() {
  have_previous_ = false;
  previous_ = {};
}

std::vector<ServerSeriesValue> ServerSeries::next(const proto::Exposition& scrape, double elapsed_seconds) {
  std::vector<ServerSeriesValue> out;
  current_.counters.clear();
  current_.histograms.clear();
  emitted_.clear();
  const auto emit_value = [&](const Sample& sample, double unit) {
    if (!std::isfinite(sample.value)) return;  // e.g. a summary's quantiles before any observation
    std::string name = series_name(sample.name, sample.labels);
    if (!emitted_.insert(name).second) return;
    ServerSeriesValue& v = out.emplace_back();
    v.name = std::move(name);
    v.shape = ServerSeriesValue::Shape::Value;
    v.nanoseconds_per_unit = unit;
    v.value = sample.value;
  };

  for (const MetricFamily& family : scrape.families) {
    families_seen_.insert(family.name);
    if (!selects(family)) continue;
    switch (family.type) {
      case MetricType::Counter:
        for (const Sample& sample : family.samples) {
          const auto suffix = suffix_of(family, sample);
          if (suffix == "" || suffix == "_total") add_counter(sample, elapsed_seconds, out);  // not _created
        }
        break;
      case MetricType::Gauge:
      case MetricType::Unknown:
      case MetricType::Info:
      case MetricType::StateSet:
        for (const Sample& sample : family.samples) emit_value(sample, 0);
        break;
      case MetricType::Summary: {
        const double unit = nanoseconds_per_unit(family);
        for (const Sample& sample : family.samples) {
          const auto suffix = suffix_of(family, sample);
          if (suffix == "") {
            emit_value(sample, unit);
          } else if (suffix == "_count") {
            add_counter(sample, elapsed_seconds, out);
          }
        }
        break;
      }
      case MetricType::Histogram:
      case MetricType::GaugeHistogram: add_histograms(family, out); break;
    }
  }
  std::swap(previous_, current_);
  have_previous_ = true;
  return out;
}

void ServerSeries::add_counter(const Sample& sample, double elapsed_seconds, std::vector<ServerSeriesValue>& out) {
  if (!std::isfinite(sample.value)) return;
  std::string name = series_name(sample.name, sample.labels);
  if (!current_.counters.try_emplace(name, sample.value).second) return;  // the same series twice
  if (!have_previous_ || !(elapsed_seconds > 0) || !std::isfinite(elapsed_seconds)) return;
  // New since the previous scrape, or reset (went down): all of the current value is new.
  double increase = sample.value;
  const auto before = previous_.counters.find(name);
  if (before != previous_.counters.end() && sample.value >= before->second) increase = sample.value - before->second;
  if (!emitted_.insert(name).second) return;
  ServerSeriesValue& v = out.emplace_back();
  v.name = std::move(name);
  v.shape = ServerSeriesValue::Shape::Rate;
  v.value = increase / elapsed_seconds;
}

void ServerSeries::add_histograms(const MetricFamily& family, std::vector<ServerSeriesValue>& out) {
  const bool gauge = family.type == MetricType::GaugeHistogram;
  const std::string_view sum_suffix = gauge ? "_gsum" : "_sum";
  const std::string_view count_suffix = gauge ? "_gcount" : "_count";

  // The family's series (label sets without le), in the order of their first sample.
  struct Series {
    std::string name;
    CumulativeBuckets buckets;
    bool has_count = false;
    bool broken = false;  // a bucket without a readable le, or a count that is not a number
  };
  std::vector<Series> series;
  std::unordered_map<std::string, std::size_t> index;
  for (const Sample& sample : family.samples) {
    const auto suffix = suffix_of(family, sample);
    const bool bucket = suffix == "_bucket";
    const bool sum = suffix == sum_suffix;
    const bool count = suffix == count_suffix;
    if (!bucket && !sum && !count) continue;  // _created, or a stray sample
    std::string name = series_name(family.name, sample.labels, "le");
    const auto [it, added] = index.try_emplace(name, series.size());
    if (added) series.emplace_back().name = std::move(name);
    Series& s = series[it->second];
    if (sum) {
      s.buckets.sum = finite_or_zero(sample.value);
      continue;
    }
    if (std::isnan(sample.value)) {
      s.broken = true;
      continue;
    }
    if (count) {
      s.buckets.count = sample.value;
      s.has_count = true;
      continue;
    }
    const std::string* le = sample.label("le");
    const auto bound = le == nullptr ? std::nullopt : proto::parse_exposition_float(*le);
    if (!bound || std::isnan(*bound)) {
      s.broken = true;
      continue;
    }
    s.buckets.points.emplace_back(*bound, sample.value);
  }

  const double unit = nanoseconds_per_unit(family);
  for (Series& s : series) {
    auto& points = s.buckets.points;
    std::sort(points.begin(), points.end());
    const bool repeated_bound =
        std::adjacent_find(points.begin(), points.end(), [](const auto& a, const auto& b) {
          return a.first == b.first;
        }) != points.end();
    if (s.broken || repeated_bound) continue;
    // +Inf is required; an exporter that leaves it out still has its count.
    if (points.empty() || points.back().first != std::numeric_limits<double>::infinity()) {
      if (!s.has_count) continue;
      points.emplace_back(std::numeric_limits<double>::infinity(), s.buckets.count);
    }
    if (!s.has_count) s.buckets.count = points.back().second;

    HistogramInterval interval;
    if (gauge) {
      interval.buckets = bucket_counts(points);
      interval.count = s.buckets.count;
      interval.sum = s.buckets.sum;
    } else {
      const auto [it, added] = current_.histograms.try_emplace(s.name, s.buckets);
      if (!added || !have_previous_) continue;
      const auto before = previous_.histograms.find(s.name);
      interval = histogram_interval(before == previous_.histograms.end() ? nullptr : &before->second, s.buckets);
    }
    if (!emitted_.insert(s.name).second) continue;
    ServerSeriesValue& v = out.emplace_back();
    v.name = std::move(s.name);
    v.shape = ServerSeriesValue::Shape::Buckets;
    v.nanoseconds_per_unit = unit;
    v.value = interval.count;
    v.sum = finite_or_zero(interval.sum);
    v.buckets = std::move(interval.buckets);
  }
}

}  // namespace stampede::clients
