#pragma once
// Successive scrapes of a server's /metrics turned into the `server.` series of a run's
// timeline (issue 33, `--server-metrics`). Pure: the caller scrapes, parses
// (proto/prometheus_exposition.hpp) and says how much time passed; this says what the
// interval measured.
//
//   counter                 -> Rate: increase per second (a decrease is a restart: the
//                              current value is the increase, as Prometheus' rate() takes it)
//   gauge, unknown/untyped,
//   info, stateset          -> Value: the value as scraped
//   histogram               -> Buckets: the observations of the interval per bucket, their
//                              count and sum (bucket_deltas.hpp)
//   gaugehistogram          -> Buckets: the current distribution
//   summary                 -> Value per quantile (`quantile` stays a label), and Rate of
//                              `_count` (observations per second)
//
// Series names: "server." + the sample's name (a counter's is its `_total` name in either
// format, a histogram's its family name), then the labels in the scrape's order, without
// `le`, escaped as in the exposition: server.phoenix_http_requests_total{method="GET",
// status="200"}; no braces without labels. `_created`, a histogram's or summary's `_sum`,
// and samples with a NaN or infinite value give no series.
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "clients/bucket_deltas.hpp"
#include "proto/prometheus_exposition.hpp"

namespace stampede::clients {

struct ServerSeriesValue {
  enum class Shape {
    Rate,     // value: per second over the interval
    Value,    // value: as scraped
    Buckets,  // buckets, value (observations in the interval) and sum
  };

  std::string name;
  Shape shape = Shape::Value;
  // Not 0 when the values (and bucket bounds) are durations: multiply by this to get
  // nanoseconds. Histogram and summary families whose name ends in _seconds (1e9),
  // _milliseconds (1e6, PromEx), _microseconds (1e3) or _nanoseconds (1), or whose
  // OpenMetrics UNIT is one of those words. Everything else is a plain number.
  double nanoseconds_per_unit = 0;
  double value = 0;
  double sum = 0;
  std::vector<BucketDelta> buckets;

  bool is_duration() const { return nanoseconds_per_unit > 0; }
};

class ServerSeries {
 public:
  // Glob patterns ('*', '?') matched against family names (and, for a counter, its
  // `_total` name too, so "x_total" selects it in either format); a leading "server." is
  // ignored. No patterns: every family.
  explicit ServerSeries(std::vector<std::string> patterns = {});

  // The series of this scrape, in the scrape's order. `elapsed_seconds`: since the scrape
  // given to the previous call. The first scrape (or the first after reset()) gives values
  // and gauge histograms only: rates and histogram intervals need a previous scrape. A
  // series that is new since the previous scrape (a labelled counter is created at its
  // first increment) counts from zero. Without a positive elapsed time there are no rates.
  // A series name that comes twice in one scrape is taken once, the first time.
  std::vector<ServerSeriesValue> next(const proto::Exposition& scrape, double elapsed_seconds);

  // Forgets the previous scrape (e.g. after scrapes failed for a while).
  void reset();

  bool selects(const proto::MetricFamily& family) const;
  // The name of every family of every scrape so far, selected or not, sorted: what a
  // pattern or a threshold could have named (see closest_names in common/name_match.hpp).
  std::vector<std::string> families_seen() const;

 private:
  struct Scrape {
    std::unordered_map<std::string, double> counters;              // series name -> value
    std::unordered_map<std::string, CumulativeBuckets> histograms;  // series name -> buckets
  };

  void add_counter(const proto::Sample& sample, double elapsed_seconds, std::vector<ServerSeriesValue>& out);
  void add_histograms(const proto::MetricFamily& family, std::vector<ServerSeriesValue>& out);

  std::vector<std::string> patterns_;
  bool have_previous_ = false;
  Scrape previous_;
  Scrape current_;
  std::unordered_set<std::string> emitted_;  // series names of the scrape being read
  std::unordered_set<std::string> families_seen_;
};

}  // namespace stampede::clients
