#include "clients/server_metrics_recorder.hpp"

#include <algorithm>
#include <stdexcept>

#include "clients/bucket_spread.hpp"

namespace stampede::clients {

namespace names = server_metric_names;
using metrics::Kind;
using metrics::MetricId;

std::string with_first_label(std::string_view name, std::string_view label, std::string_view value) {
  std::string out;
  out.reserve(name.size() + label.size() + value.size() + 5);
  const std::size_t brace = name.find('{');
  out.append(name.substr(0, brace));
  out += '{';
  out.append(label);
  out += "=\"";
  out.append(value);
  out += '"';
  if (brace == std::string_view::npos) {
    out += '}';
  } else {
    out += ',';
    out.append(name.substr(brace + 1));
  }
  return out;
}

std::string_view family_of(std::string_view series_name) { return series_name.substr(0, series_name.find('{')); }

ServerMetricsRecorder::ServerMetricsRecorder(metrics::MetricSink& sink, std::vector<std::string> instances)
    : sink_(sink),
      instances_(std::move(instances)),
      scrape_(sink.id(names::kScrape, Kind::Timing)),
      errors_(sink.id(names::kScrapeErrors, Kind::Counter)),
      series_(sink.id(names::kSeries, Kind::Gauge)),
      gauges_(instances_.size()),
      series_counts_(instances_.size(), 0) {
  // Zero errors is a value from the start: a threshold on server.scrape.errors can be judged.
  sink_.add(errors_, 0);
}

std::string ServerMetricsRecorder::series_name(std::size_t endpoint, const std::string& name) const {
  const std::string& instance = instances_[endpoint];
  return instance.empty() ? name : with_first_label(name, "instance", instance);
}

std::size_t ServerMetricsRecorder::record_scrape(std::size_t endpoint, const std::vector<ServerSeriesValue>& series) {
  std::vector<MetricId> gauges;
  gauges.reserve(series.size());
  std::size_t recorded = 0;
  for (const ServerSeriesValue& value : series) {
    const std::string name = series_name(endpoint, value.name);
    try {
      if (value.shape == ServerSeriesValue::Shape::Buckets) {
        record_buckets(name, value);
      } else {
        const MetricId id = sink_.id(name, Kind::Gauge);
        sink_.set_gauge(id, value.value);
        gauges.push_back(id);
      }
    } catch (const std::invalid_argument& e) {
      // The registry refused the name: it is already another kind of metric (an exporter
      // whose family changed type, or a family named like one of ours: "scrape").
      sink_.add_error(errors_, std::string("series skipped: ") + e.what());
      continue;
    }
    ++recorded;
    names_.insert(name);
  }
  // Gauges the previous scrape set and this one did not: their series went away.
  std::sort(gauges.begin(), gauges.end());
  for (const MetricId id : gauges_[endpoint]) {
    if (!std::binary_search(gauges.begin(), gauges.end(), id)) sink_.forget_gauge(id);
  }
  gauges_[endpoint] = std::move(gauges);
  series_counts_[endpoint] = recorded;
  update_series_gauge();
  return recorded;
}

void ServerMetricsRecorder::record_buckets(const std::string& name, const ServerSeriesValue& value) {
  const bool duration = value.is_duration();
  const Kind kind = duration ? Kind::Timing : Kind::Distribution;
  const double scale = duration ? value.nanoseconds_per_unit : 1.0;
  const MetricId id = sink_.id(name, kind);
  // A series with labels also counts towards its family as a whole.
  const std::string_view family = family_of(name);
  const bool has_family = family.size() != name.size();
  const MetricId family_id = has_family ? sink_.id(family, kind) : id;
  if (has_family) names_.insert(std::string(family));
  for (const BucketDelta& bucket : value.buckets) {
    spread_bucket(bucket, scale, [&](std::int64_t v, std::uint64_t times) {
      sink_.record(id, v, times);
      if (has_family) sink_.record(family_id, v, times);
    });
  }
}

void ServerMetricsRecorder::scrape_failed(std::size_t endpoint, std::string_view reason) {
  sink_.add_error(errors_, reason);
  // What the endpoint gave before is no longer known to be its level.
  for (const MetricId id : gauges_[endpoint]) sink_.forget_gauge(id);
  gauges_[endpoint].clear();
  series_counts_[endpoint] = 0;
  update_series_gauge();
}

void ServerMetricsRecorder::scrape_took(Nanos duration) { sink_.record(scrape_, std::max<Nanos>(duration, 0)); }

void ServerMetricsRecorder::update_series_gauge() {
  std::size_t total = 0;
  for (const std::size_t n : series_counts_) total += n;
  sink_.set_gauge(series_, static_cast<double>(total));
}

std::vector<std::string> ServerMetricsRecorder::names() const {
  std::vector<std::string> out(names_.begin(), names_.end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace stampede::clients
