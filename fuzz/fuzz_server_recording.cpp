// Two arbitrary /metrics bodies as two scrapes of one endpoint, through everything the
// server-metrics sampler does with a body (clients/server_metrics_recorder.hpp): parse,
// turn into series (rates, bucket deltas) and record into a sink, bucket counts spread into
// our histograms (clients/bucket_spread.hpp) whatever their bounds and counts (NaN-free but
// huge, negative, fractional). With the sanitizers: no crash, no undefined behaviour; and
// every labelled histogram series holds exactly the samples its buckets spread, its family
// total the sum of its series.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "clients/bucket_spread.hpp"
#include "clients/server_metrics_recorder.hpp"
#include "clients/server_series.hpp"
#include "proto/prometheus_exposition.hpp"

namespace {

using namespace stampede;

std::uint64_t spread_total(const clients::ServerSeriesValue& v) {
  std::uint64_t total = 0;
  const double scale = v.is_duration() ? v.nanoseconds_per_unit : 1.0;
  for (const auto& b : v.buckets) clients::spread_bucket(b, scale, [&](std::int64_t, std::uint64_t n) { total += n; });
  return total;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  // The first byte: the seconds between the two scrapes (0 gives no rates).
  const double elapsed = data[0] / 16.0;
  const std::size_t split = input.find('\xff');
  const std::string_view first = input.substr(0, split);
  const std::string_view second = split == std::string_view::npos ? first : input.substr(split + 1);

  metrics::Registry registry;
  metrics::MetricSink sink(registry);
  clients::ServerMetricsRecorder recorder(sink, {""});
  clients::ServerSeries series;
  std::map<std::string, std::uint64_t> expected;  // labelled histogram series -> samples
  std::map<std::string, std::uint64_t> families;  // their families -> samples
  for (const std::string_view body : {first, second}) {
    const auto parsed = proto::parse_exposition(body);
    if (!parsed.ok()) {
      recorder.scrape_failed(0, "parse: " + parsed.error->message());
      continue;
    }
    const auto values = series.next(parsed.exposition, elapsed);
    recorder.record_scrape(0, values);
    // A series whose name (or family's) is already another kind of metric was skipped, with
    // an error: a body can change a family's type or unit from one scrape to the next.
    const auto is_kind = [&](std::string_view name, metrics::Kind kind) {
      metrics::MetricId id = 0;
      return registry.find(name, id) && registry.kind(id) == kind;
    };
    for (const auto& v : values) {
      if (v.shape != clients::ServerSeriesValue::Shape::Buckets || v.name.find('{') == std::string::npos) continue;
      const metrics::Kind kind = v.is_duration() ? metrics::Kind::Timing : metrics::Kind::Distribution;
      if (!is_kind(v.name, kind) || !is_kind(clients::family_of(v.name), kind)) continue;
      const std::uint64_t n = spread_total(v);
      expected[v.name] += n;
      families[std::string(clients::family_of(v.name))] += n;
    }
  }
  const metrics::Snapshot s = sink.take(0);
  const auto count_of = [&](const std::string& name) -> std::uint64_t {
    metrics::MetricId id = 0;
    if (!registry.find(name, id) || id >= s.metrics.size()) return 0;
    return s.metrics[id].histogram.count();
  };
  for (const auto& [name, n] : expected) {
    if (count_of(name) != n) std::abort();
  }
  for (const auto& [family, n] : families) {
    // The family's own unlabelled series, if the body had one, adds to it too.
    if (count_of(family) < n) std::abort();
  }
  return 0;
}
