#pragma once
// The Prometheus text exposition format (0.0.4) and OpenMetrics 1.0 text, as a /metrics
// endpoint serves them: a body in, metric families out. Pure: no sockets, no clocks.
//
//   # HELP http_request_duration_seconds Time to answer.
//   # TYPE http_request_duration_seconds histogram
//   http_request_duration_seconds_bucket{method="GET",le="0.1"} 24054
//   http_request_duration_seconds_bucket{method="GET",le="+Inf"} 33444 1700000000000
//   http_request_duration_seconds_sum{method="GET"} 53423.2
//   http_request_duration_seconds_count{method="GET"} 33444
//
// Samples are grouped into their family as Prometheus groups them: `x_bucket`, `x_sum`,
// `x_count` and `x_created` into histogram `x`, `x_total` into counter `x` (OpenMetrics
// names a counter's family without `_total`; 0.0.4 exporters name it with it, and then the
// sample's name is the family's), and so on (see family_suffixes in the .cpp). A sample
// with no HELP/TYPE/UNIT line for it, or whose name no declared family claims, is a family
// of its own, of type Unknown. Metadata applies to the samples after it, as in Prometheus: a
// HELP/TYPE/UNIT line for a name whose family already has samples opens a second family of
// that name (client_golang's OpenMetrics output has a gauge and a counter both named
// go_memstats_alloc_bytes), and samples go to the latest family of their name. Samples of a
// family split by another family's lines are gathered into one.
//
// What is accepted: the union of the two grammars, read leniently where leniency cannot
// change a number (spaces or tabs, any number of them, between tokens; trailing whitespace;
// CRLF line ends; a trailing comma in a label set; comments anywhere; exemplars in either
// format, parsed and dropped). What differs by format: timestamps (0.0.4: integer ms;
// OpenMetrics: float seconds), HELP escapes (OpenMetrics also unescapes \"), `# UNIT` (a
// comment in 0.0.4, as in Prometheus) and `# EOF` (a comment in 0.0.4; in OpenMetrics the
// required last line, whose absence means the body was cut short).
//
// Errors: like a Prometheus scrape, one malformed line fails the whole body: a family cut
// in the middle (half of a histogram's buckets) would give wrong percentiles, so a partial
// result is worse than none. The error names the line ("line 12: label value not closed").
// See docs/design/033-prometheus-exposition-parser.md.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::proto {

enum class ExpositionFormat {
  Auto,           // OpenMetrics if the body's last non-blank line is "# EOF", else 0.0.4
  Prometheus004,  // text/plain; version=0.0.4
  OpenMetrics,    // application/openmetrics-text; version=1.0.0
};

// The format a scrape response's Content-Type announces: OpenMetrics for
// application/openmetrics-text, 0.0.4 for text/plain (any version), Auto for anything
// else or nothing. Case-insensitive; parameters other than the media type are ignored.
ExpositionFormat exposition_format_of(std::string_view content_type);

// The Accept header for a scrape: OpenMetrics preferred, 0.0.4 otherwise (Prometheus
// sends the same preference order).
inline constexpr std::string_view kExpositionAccept =
    "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

enum class MetricType {
  Unknown,  // no TYPE line, "untyped" (0.0.4) or "unknown" (OpenMetrics)
  Counter,
  Gauge,
  Histogram,
  GaugeHistogram,
  Summary,
  Info,
  StateSet,
};

// "counter", "gauge", ...; Unknown is "unknown".
std::string_view metric_type_name(MetricType type);

struct Label {
  std::string name;
  std::string value;  // unescaped: \\ \" \n are one character each
};

struct Sample {
  std::string name;           // the full sample name: "x_bucket", "x_total", "x"
  std::vector<Label> labels;  // in the order of the scrape
  double value = 0;
  std::optional<std::int64_t> timestamp_ms;  // OpenMetrics' seconds are made milliseconds

  // The value of the label with this name, or nullptr.
  const std::string* label(std::string_view label_name) const;
};

struct MetricFamily {
  std::string name;  // as in TYPE/HELP: "x" for a histogram whose samples are "x_bucket"...
  MetricType type = MetricType::Unknown;
  std::string help;  // unescaped; empty without a HELP line
  std::string unit;  // OpenMetrics' # UNIT; empty otherwise
  std::vector<Sample> samples;  // in the order of the scrape
};

struct Exposition {
  ExpositionFormat format = ExpositionFormat::Prometheus004;  // as parsed: never Auto
  // In the order each family first appears (by a metadata line or a sample). A family can
  // have no samples (a TYPE line alone), and two families can share a name (see above).
  std::vector<MetricFamily> families;

  // The first family of that name, or nullptr. A linear search: for tests and messages.
  const MetricFamily* find(std::string_view name) const;
  std::size_t sample_count() const;
};

struct ExpositionError {
  std::size_t line = 0;    // 1-based; 0 when the error is about the body as a whole
  std::string what;        // "label value not closed"
  bool truncated = false;  // an OpenMetrics body without its # EOF line: cut short

  std::string message() const;  // "line 12: label value not closed"
};

struct ExpositionParse {
  Exposition exposition;  // empty when there is an error
  std::optional<ExpositionError> error;

  bool ok() const { return !error.has_value(); }
};

ExpositionParse parse_exposition(std::string_view body, ExpositionFormat format = ExpositionFormat::Auto);

}  // namespace stampede::proto
