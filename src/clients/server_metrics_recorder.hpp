#pragma once
// Where a scrape's server series go: the sampler's MetricSink, as the `server.` metrics of
// the run's timeline (docs/reference/metrics.md, "Server metrics"). No sockets, no clock:
// the sampler says what a scrape gave and how long it took.
//
//   Value and Rate series  -> Gauge `server.<series>` (a rate is per second over the interval)
//   Buckets, a duration    -> Timing `server.<series>`, in ns (bucket_spread.hpp)
//   Buckets, other units   -> Distribution `server.<series>`
//   and for a histogram whose series have labels, also the family as a whole,
//   `server.<family>`: every label set (and every node) added together, as PromQL's
//   `sum by (le)` does, so that a threshold can judge "the" Ecto queue time.
//   server.scrape           Timing: how long each scrape took (failed ones too)
//   server.scrape.errors    Counter, by reason ("timeout", "refused", "status 500", ...)
//   server.series           Gauge: series recorded by the latest scrape of every endpoint
//
// With several endpoints every series gets instance="host:port" as its first label.
//
// A gauge is a level, carried from second to second by the sink; once its endpoint stops
// giving it (a failed scrape, a label set gone) the level is forgotten
// (MetricSink::forget_gauge), so the timeline shows a gap rather than a stale line.
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "clients/server_series.hpp"
#include "common/clock.hpp"
#include "metrics/metric_sink.hpp"

namespace stampede::clients {

namespace server_metric_names {
inline constexpr std::string_view kScrape = "server.scrape";
inline constexpr std::string_view kScrapeErrors = "server.scrape.errors";
inline constexpr std::string_view kSeries = "server.series";
}  // namespace server_metric_names

class ServerMetricsRecorder {
 public:
  // `instances`: per endpoint, the instance label's value, or "" for none (a single endpoint).
  ServerMetricsRecorder(metrics::MetricSink& sink, std::vector<std::string> instances);

  // The series of one successful scrape of `endpoint`. Returns how many were recorded; a
  // series that cannot be (its name is already another kind of metric) costs an error.
  std::size_t record_scrape(std::size_t endpoint, const std::vector<ServerSeriesValue>& series);
  // A scrape that failed; `reason` is server.scrape.errors' reason.
  void scrape_failed(std::size_t endpoint, std::string_view reason);
  // Any scrape that ended, failed or not (not one that could not start).
  void scrape_took(Nanos duration);

  // The names recorded so far, sorted.
  std::vector<std::string> names() const;

 private:
  std::string series_name(std::size_t endpoint, const std::string& name) const;
  void record_buckets(const std::string& name, const ServerSeriesValue& value);
  void update_series_gauge();

  metrics::MetricSink& sink_;
  std::vector<std::string> instances_;
  const metrics::MetricId scrape_;
  const metrics::MetricId errors_;
  const metrics::MetricId series_;
  // Per endpoint: the gauges its latest successful scrape set, and how many series it gave.
  std::vector<std::vector<metrics::MetricId>> gauges_;
  std::vector<std::size_t> series_counts_;
  std::unordered_set<std::string> names_;  // every name recorded
};

// `name` ("server.x{a=\"1\"}" or "server.x") with `label="value"` as its first label.
std::string with_first_label(std::string_view name, std::string_view label, std::string_view value);
// The family part of a series name: "server.x" for "server.x{a=\"1\"}".
std::string_view family_of(std::string_view series_name);

}  // namespace stampede::clients
