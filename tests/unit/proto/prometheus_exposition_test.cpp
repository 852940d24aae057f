#include "proto/prometheus_exposition.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "infinity.hpp"
#include "prometheus_exposition_file.hpp"

namespace stampede::proto {
namespace {

using stampede::testing::kInf;

Exposition parsed(std::string_view body, ExpositionFormat format = ExpositionFormat::Auto) {
  auto result = parse_exposition(body, format);
  EXPECT_TRUE(result.ok()) << result.error->message();
  return std::move(result.exposition);
}

ExpositionError exposition_error(std::string_view body, ExpositionFormat format = ExpositionFormat::Prometheus004) {
  auto result = parse_exposition(body, format);
  EXPECT_FALSE(result.ok()) << body;
  EXPECT_TRUE(result.exposition.families.empty());
  return result.ok() ? ExpositionError{} : *result.error;
}

const MetricFamily& family(const Exposition& e, std::string_view name) {
  const MetricFamily* f = e.find(name);
  if (f == nullptr) throw std::runtime_error("no family " + std::string(name));
  return *f;
}

std::vector<std::string> sample_names(const MetricFamily& f) {
  std::vector<std::string> out;
  for (const Sample& s : f.samples) out.push_back(s.name);
  return out;
}

// The example of the 0.0.4 format's documentation (docs/instrumenting/exposition_formats.md),
// as written there.
constexpr std::string_view kSpecExample = R"(# HELP http_requests_total The total number of HTTP requests.
# TYPE http_requests_total counter
http_requests_total{method="post",code="200"} 1027 1395066363000
http_requests_total{method="post",code="400"}    3 1395066363000

# Escaping in label values:
msdos_file_access_time_seconds{path="C:\\DIR\\FILE.TXT",error="Cannot find file:\n\"FILE.TXT\""} 1.458255915e9

# Minimalistic line:
metric_without_timestamp_and_labels 12.47

# A weird metric from before the epoch:
something_weird{problem="division by zero"} +Inf -3982045

# A histogram, which has a pretty complex representation in the text format:
# HELP http_request_duration_seconds A histogram of the request duration.
# TYPE http_request_duration_seconds histogram
http_request_duration_seconds_bucket{le="0.05"} 24054
http_request_duration_seconds_bucket{le="0.1"} 33444
http_request_duration_seconds_bucket{le="0.2"} 100392
http_request_duration_seconds_bucket{le="0.5"} 129389
http_request_duration_seconds_bucket{le="1"} 133988
http_request_duration_seconds_bucket{le="+Inf"} 144320
http_request_duration_seconds_sum 53423
http_request_duration_seconds_count 144320

# Finally a summary, which has a complex representation, too:
# HELP rpc_duration_seconds A summary of the RPC duration in seconds.
# TYPE rpc_duration_seconds summary
rpc_duration_seconds{quantile="0.01"} 3102
rpc_duration_seconds{quantile="0.05"} 3272
rpc_duration_seconds{quantile="0.5"} 4773
rpc_duration_seconds{quantile="0.9"} 9001
rpc_duration_seconds{quantile="0.99"} 76656
rpc_duration_seconds_sum 1.7560473e+07
rpc_duration_seconds_count 2693
)";

TEST(PrometheusExposition, TheFormatsOwnExample) {
  const Exposition e = parsed(kSpecExample);
  EXPECT_EQ(e.format, ExpositionFormat::Prometheus004);
  ASSERT_EQ(e.families.size(), 6u);
  EXPECT_EQ(e.sample_count(), 2u + 1 + 1 + 1 + 8 + 7);

  const MetricFamily& requests = e.families[0];
  EXPECT_EQ(requests.name, "http_requests_total");
  EXPECT_EQ(requests.type, MetricType::Counter);
  EXPECT_EQ(requests.help, "The total number of HTTP requests.");
  ASSERT_EQ(requests.samples.size(), 2u);
  const Sample& post_400 = requests.samples[1];
  EXPECT_EQ(post_400.name, "http_requests_total");
  ASSERT_EQ(post_400.labels.size(), 2u);
  EXPECT_EQ(post_400.labels[0].name, "method");  // the scrape's order, not sorted
  EXPECT_EQ(post_400.labels[0].value, "post");
  EXPECT_EQ(post_400.labels[1].name, "code");
  EXPECT_EQ(post_400.labels[1].value, "400");
  EXPECT_EQ(post_400.value, 3);
  EXPECT_EQ(post_400.timestamp_ms, 1395066363000);

  const Sample& msdos = family(e, "msdos_file_access_time_seconds").samples.at(0);
  EXPECT_EQ(*msdos.label("path"), "C:\\DIR\\FILE.TXT");
  EXPECT_EQ(*msdos.label("error"), "Cannot find file:\n\"FILE.TXT\"");
  EXPECT_EQ(msdos.label("nope"), nullptr);
  EXPECT_EQ(msdos.value, 1.458255915e9);
  EXPECT_FALSE(msdos.timestamp_ms);
  EXPECT_EQ(family(e, "msdos_file_access_time_seconds").type, MetricType::Unknown);

  const Sample& minimal = family(e, "metric_without_timestamp_and_labels").samples.at(0);
  EXPECT_TRUE(minimal.labels.empty());
  EXPECT_EQ(minimal.value, 12.47);

  const Sample& weird = family(e, "something_weird").samples.at(0);
  EXPECT_EQ(weird.value, kInf);
  EXPECT_EQ(weird.timestamp_ms, -3982045);

  const MetricFamily& histogram = family(e, "http_request_duration_seconds");
  EXPECT_EQ(histogram.type, MetricType::Histogram);
  EXPECT_EQ(histogram.help, "A histogram of the request duration.");
  ASSERT_EQ(histogram.samples.size(), 8u);
  EXPECT_EQ(histogram.samples[5].name, "http_request_duration_seconds_bucket");
  EXPECT_EQ(*histogram.samples[5].label("le"), "+Inf");
  EXPECT_EQ(histogram.samples[5].value, 144320);
  EXPECT_EQ(histogram.samples[6].name, "http_request_duration_seconds_sum");
  EXPECT_EQ(histogram.samples[7].name, "http_request_duration_seconds_count");

  const MetricFamily& summary = family(e, "rpc_duration_seconds");
  EXPECT_EQ(summary.type, MetricType::Summary);
  ASSERT_EQ(summary.samples.size(), 7u);
  EXPECT_EQ(summary.samples[0].name, "rpc_duration_seconds");
  EXPECT_EQ(*summary.samples[4].label("quantile"), "0.99");
  EXPECT_EQ(summary.samples[5].value, 17560473);
  EXPECT_EQ(summary.samples[6].name, "rpc_duration_seconds_count");
}

// From the OpenMetrics 1.0 specification's examples: UNIT, _created, a counter family
// without _total, exemplars with and without timestamps, info, stateset, gaugehistogram.
constexpr std::string_view kOpenMetricsExample = R"(# TYPE acme_http_router_request_seconds summary
# UNIT acme_http_router_request_seconds seconds
# HELP acme_http_router_request_seconds Latency though all of ACME's HTTP request router.
acme_http_router_request_seconds_sum{path="/api/v1",method="GET"} 9036.32
acme_http_router_request_seconds_count{path="/api/v1",method="GET"} 807283.0
acme_http_router_request_seconds_created{path="/api/v1",method="GET"} 1605281325.0
acme_http_router_request_seconds_sum{path="/api/v2",method="POST"} 479.3
acme_http_router_request_seconds_count{path="/api/v2",method="POST"} 34.0
acme_http_router_request_seconds_created{path="/api/v2",method="POST"} 1605281325.0
# TYPE go_goroutines gauge
# HELP go_goroutines Number of goroutines that currently exist.
go_goroutines 69
# TYPE process_cpu_seconds counter
# UNIT process_cpu_seconds seconds
# HELP process_cpu_seconds Total user and system CPU time spent in seconds.
process_cpu_seconds_total 4.20072246e+06
process_cpu_seconds_created 1605281325.0 1605281326.5
# TYPE foo histogram
foo_bucket{le="0.01"} 0
foo_bucket{le="0.1"} 8 # {} 0.054
foo_bucket{le="1"} 11 # {trace_id="KOO5S4vxi0o"} 0.67
foo_bucket{le="10"} 17 # {trace_id="oHg5SJYRHA0"} 9.8 1520879607.789
foo_bucket{le="+Inf"} 17
foo_count 17
foo_sum 324789.3
foo_created 1520430000.123
# TYPE build info
build_info{name="pretty name",version="8.2.7"} 1
# TYPE feature stateset
feature{entity="controller",feature="a"} 1.0
feature{entity="controller",feature="bb"} 0.0
# TYPE queue gaugehistogram
queue_bucket{le="0.01"} 20.0
queue_bucket{le="+Inf"} 22.0
queue_gcount 22.0
queue_gsum 2.0
# EOF
)";

TEST(PrometheusExposition, OpenMetricsSpecExamples) {
  const Exposition e = parsed(kOpenMetricsExample, ExpositionFormat::OpenMetrics);
  EXPECT_EQ(e.format, ExpositionFormat::OpenMetrics);
  ASSERT_EQ(e.families.size(), 7u);

  const MetricFamily& router = e.families[0];
  EXPECT_EQ(router.name, "acme_http_router_request_seconds");
  EXPECT_EQ(router.type, MetricType::Summary);
  EXPECT_EQ(router.unit, "seconds");
  EXPECT_EQ(router.help, "Latency though all of ACME's HTTP request router.");
  EXPECT_EQ(sample_names(router), (std::vector<std::string>{
                                      "acme_http_router_request_seconds_sum", "acme_http_router_request_seconds_count",
                                      "acme_http_router_request_seconds_created", "acme_http_router_request_seconds_sum",
                                      "acme_http_router_request_seconds_count", "acme_http_router_request_seconds_created"}));

  const MetricFamily& cpu = family(e, "process_cpu_seconds");
  EXPECT_EQ(cpu.type, MetricType::Counter);
  EXPECT_EQ(sample_names(cpu), (std::vector<std::string>{"process_cpu_seconds_total", "process_cpu_seconds_created"}));
  EXPECT_EQ(cpu.samples[0].value, 4.20072246e+06);
  EXPECT_EQ(cpu.samples[1].timestamp_ms, 1605281326500);  // OpenMetrics timestamps are seconds

  const MetricFamily& foo = family(e, "foo");
  EXPECT_EQ(foo.type, MetricType::Histogram);
  ASSERT_EQ(foo.samples.size(), 8u);
  EXPECT_EQ(foo.samples[3].value, 17);  // the exemplar (9.8 at 1520879607.789) is dropped
  EXPECT_FALSE(foo.samples[3].timestamp_ms);
  EXPECT_EQ(foo.samples[3].labels.size(), 1u);
  EXPECT_EQ(foo.samples[7].name, "foo_created");

  EXPECT_EQ(family(e, "build").type, MetricType::Info);
  EXPECT_EQ(family(e, "build").samples.at(0).name, "build_info");
  EXPECT_EQ(family(e, "feature").type, MetricType::StateSet);
  EXPECT_EQ(family(e, "feature").samples.size(), 2u);
  const MetricFamily& queue = family(e, "queue");
  EXPECT_EQ(queue.type, MetricType::GaugeHistogram);
  EXPECT_EQ(sample_names(queue),
            (std::vector<std::string>{"queue_bucket", "queue_bucket", "queue_gcount", "queue_gsum"}));
}

TEST(PrometheusExposition, AutoDetectsOpenMetricsByItsEofLine) {
  const std::string body = "# TYPE a counter\na_total 1 1700000000.5\n# EOF\n";
  const Exposition e = parsed(body);
  EXPECT_EQ(e.format, ExpositionFormat::OpenMetrics);
  EXPECT_EQ(family(e, "a").samples.at(0).timestamp_ms, 1700000000500);
  // Trailing blank lines after # EOF are tolerated by the detection and by the parser.
  EXPECT_EQ(parsed(body + "\n  \r\n").format, ExpositionFormat::OpenMetrics);
  // Without it: 0.0.4, whose timestamps are integer milliseconds.
  const auto plain = parse_exposition("a_total 1 1700000000.5\n");
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.error->message(),
            "line 1: invalid timestamp \"1700000000.5\" for \"a_total\" (0.0.4: integer milliseconds)");
  EXPECT_EQ(parsed("a_total 1 1700000000500\n").format, ExpositionFormat::Prometheus004);
  // The test reads the last line as the parser reads lines: one '\r' before the '\n' goes,
  // blanks around the words do not matter, anything else makes it some other line.
  EXPECT_EQ(parsed("a 1\n \t#  EOF \r\n").format, ExpositionFormat::OpenMetrics);
  EXPECT_EQ(parsed("a 1\n# EOF\r\r\n").format, ExpositionFormat::Prometheus004);  // found by the fuzzer
  EXPECT_EQ(parsed("a 1\n# EOF x\n").format, ExpositionFormat::Prometheus004);
  EXPECT_EQ(parsed("# EOF\na 1\n").format, ExpositionFormat::Prometheus004);
}

TEST(PrometheusExposition, FormatFromContentType) {
  EXPECT_EQ(exposition_format_of("application/openmetrics-text; version=1.0.0; charset=utf-8"),
            ExpositionFormat::OpenMetrics);
  EXPECT_EQ(exposition_format_of("application/openmetrics-text;version=0.0.1"), ExpositionFormat::OpenMetrics);
  EXPECT_EQ(exposition_format_of("text/plain; version=0.0.4; charset=utf-8"), ExpositionFormat::Prometheus004);
  EXPECT_EQ(exposition_format_of("Text/Plain"), ExpositionFormat::Prometheus004);
  EXPECT_EQ(exposition_format_of(" text/plain ;charset=utf-8"), ExpositionFormat::Prometheus004);
  EXPECT_EQ(exposition_format_of(""), ExpositionFormat::Auto);
  EXPECT_EQ(exposition_format_of("application/json"), ExpositionFormat::Auto);
  EXPECT_EQ(exposition_format_of("text/plainer"), ExpositionFormat::Auto);
}

TEST(PrometheusExposition, OpenMetricsWithoutEofIsTruncated) {
  const std::string cut = "# TYPE h histogram\nh_bucket{le=\"1\"} 3\nh_bucket{le=\"+Inf\"} 4\n";
  const ExpositionError e = exposition_error(cut, ExpositionFormat::OpenMetrics);
  EXPECT_TRUE(e.truncated);
  EXPECT_EQ(e.line, 0u);
  EXPECT_EQ(e.message(), "the body does not end with # EOF: cut short?");
  // The same body read as 0.0.4 (no end marker there) is complete.
  EXPECT_EQ(parsed(cut, ExpositionFormat::Prometheus004).sample_count(), 2u);
  // An empty OpenMetrics body has no # EOF either.
  EXPECT_TRUE(exposition_error("", ExpositionFormat::OpenMetrics).truncated);
  EXPECT_EQ(parsed("# EOF", ExpositionFormat::OpenMetrics).families.size(), 0u);
}

TEST(PrometheusExposition, NothingMayFollowOpenMetricsEof) {
  const ExpositionError e = exposition_error("a 1\n# EOF\nb 2\n", ExpositionFormat::OpenMetrics);
  EXPECT_EQ(e.message(), "line 3: data after # EOF");
  EXPECT_FALSE(e.truncated);
  EXPECT_EQ(exposition_error("a 1\n# EOF now\n", ExpositionFormat::OpenMetrics).message(),
            "line 2: unexpected \"now\" after # EOF");
  // In 0.0.4 "# EOF" is a comment like any other.
  EXPECT_EQ(parsed("a 1\n# EOF\nb 2\n", ExpositionFormat::Prometheus004).families.size(), 2u);
}

TEST(PrometheusExposition, WhitespaceCrlfAndBlankLines) {
  const std::string body =
      "\r\n"
      "  # HELP a   Spaced help.  \r\n"
      "\t# TYPE\ta\tgauge \r\n"
      "   \r\n"
      "  a { x = \"1\" , y=\"2\" }\t 5 \t 1700000000000 \r\n"
      "a{x=\"3\",} 6\r\n"
      "a{} 7\n"
      "a{x=\"4\"}8";  // no blank after the brace, and no final line feed
  const Exposition e = parsed(body);
  const MetricFamily& a = family(e, "a");
  EXPECT_EQ(a.type, MetricType::Gauge);
  EXPECT_EQ(a.help, "Spaced help.");
  ASSERT_EQ(a.samples.size(), 4u);
  EXPECT_EQ(a.samples[0].labels.size(), 2u);
  EXPECT_EQ(*a.samples[0].label("y"), "2");
  EXPECT_EQ(a.samples[0].value, 5);
  EXPECT_EQ(a.samples[0].timestamp_ms, 1700000000000);
  EXPECT_EQ(*a.samples[1].label("x"), "3");
  EXPECT_TRUE(a.samples[2].labels.empty());
  EXPECT_EQ(a.samples[3].value, 8);
}

TEST(PrometheusExposition, LabelValueEscapes) {
  const Exposition e = parsed(R"(a{v="back\\slash",q="say \"hi\"",n="two\nlines",t="tab\t kept",u="snow ☃"} 1)");
  const Sample& s = family(e, "a").samples.at(0);
  EXPECT_EQ(*s.label("v"), "back\\slash");
  EXPECT_EQ(*s.label("q"), "say \"hi\"");
  EXPECT_EQ(*s.label("n"), "two\nlines");
  EXPECT_EQ(*s.label("t"), "tab\\t kept");  // an unknown escape stays as written, as in Prometheus
  EXPECT_EQ(*s.label("u"), "snow \xe2\x98\x83");
  // A '}', ',' or '#' inside a value is text.
  const Exposition tricky = parsed(R"(b{path="/a,b}#c"} 2)");
  EXPECT_EQ(*family(tricky, "b").samples.at(0).label("path"), "/a,b}#c");
}

TEST(PrometheusExposition, HelpEscapesDifferByFormat) {
  const std::string help = R"(# HELP a Path C:\\dir, "quoted" \"escaped\", two\nlines, \x kept)";
  EXPECT_EQ(family(parsed(help + "\n", ExpositionFormat::Prometheus004), "a").help,
            "Path C:\\dir, \"quoted\" \\\"escaped\\\", two\nlines, \\x kept");
  EXPECT_EQ(family(parsed(help + "\n# EOF\n", ExpositionFormat::OpenMetrics), "a").help,
            "Path C:\\dir, \"quoted\" \"escaped\", two\nlines, \\x kept");
  EXPECT_EQ(family(parsed("# HELP a\n"), "a").help, "");
}

TEST(PrometheusExposition, CommentsAndUnitOutsideOpenMetrics) {
  const Exposition e = parsed(
      "# just a comment\n"
      "#no space: a comment too\n"
      "#\n"
      "# UNIT a seconds\n"  // 0.0.4 has no UNIT: Prometheus reads it as a comment
      "# HELPER is not HELP\n"
      "a 1\n");
  ASSERT_EQ(e.families.size(), 1u);
  EXPECT_EQ(family(e, "a").unit, "");
}

TEST(PrometheusExposition, SpecialValues) {
  const Exposition e = parsed("a{k=\"nan\"} NaN\na{k=\"pinf\"} +Inf\na{k=\"ninf\"} -Inf\na{k=\"exp\"} -1.5e-3\n");
  const auto& s = family(e, "a").samples;
  ASSERT_EQ(s.size(), 4u);
  EXPECT_TRUE(std::isnan(s[0].value));
  EXPECT_EQ(s[1].value, kInf);
  EXPECT_EQ(s[2].value, -kInf);
  EXPECT_EQ(s[3].value, -0.0015);
}

TEST(PrometheusExposition, UndeclaredSamplesAreFamiliesOfTheirOwn) {
  // No TYPE line: nothing groups x_bucket with x_count; each name is an Unknown family.
  const Exposition e = parsed("x_bucket{le=\"1\"} 1\nx_bucket{le=\"+Inf\"} 2\nx_count 2\nplain 3\n");
  ASSERT_EQ(e.families.size(), 3u);
  EXPECT_EQ(e.families[0].name, "x_bucket");
  EXPECT_EQ(e.families[0].samples.size(), 2u);
  EXPECT_EQ(e.families[1].name, "x_count");
  EXPECT_EQ(e.families[2].type, MetricType::Unknown);
}

TEST(PrometheusExposition, SuffixesJoinOnlyTheFamilyTypeThatHasThem) {
  const Exposition e = parsed(
      "# TYPE g gauge\ng 1\ng_total 2\n"            // a gauge has no _total: g_total is its own
      "# TYPE c counter\nc_total 3\nc_count 4\n"    // a counter has no _count
      "# TYPE s summary\ns{quantile=\"0.5\"} 5\ns_sum 6\ns_count 7\ns_bucket 8\n");
  EXPECT_EQ(family(e, "g").samples.size(), 1u);
  EXPECT_EQ(family(e, "g_total").type, MetricType::Unknown);
  EXPECT_EQ(sample_names(family(e, "c")), std::vector<std::string>{"c_total"});
  EXPECT_NE(e.find("c_count"), nullptr);
  EXPECT_EQ(sample_names(family(e, "s")), (std::vector<std::string>{"s", "s_sum", "s_count"}));
  EXPECT_NE(e.find("s_bucket"), nullptr);
}

TEST(PrometheusExposition, ExactDeclaredNameWinsOverASuffix) {
  // A 0.0.4 counter named with its _total, next to an unrelated family named without it.
  const Exposition e = parsed(
      "# TYPE requests counter\nrequests 1\n"
      "# TYPE requests_total counter\nrequests_total 2\n");
  EXPECT_EQ(sample_names(family(e, "requests")), std::vector<std::string>{"requests"});
  EXPECT_EQ(sample_names(family(e, "requests_total")), std::vector<std::string>{"requests_total"});
}

TEST(PrometheusExposition, InterleavedSamplesOfAFamilyAreGathered) {
  // Out of the spec, but Prometheus reads it: the samples of `a` before and after `b` are
  // one family, declared or not.
  const Exposition e = parsed("# TYPE a gauge\na{i=\"1\"} 1\n# TYPE b gauge\nb 2\na{i=\"2\"} 3\nu 4\nb 5\nu 6\n");
  ASSERT_EQ(e.families.size(), 3u);
  EXPECT_EQ(e.families[0].samples.size(), 2u);
  EXPECT_EQ(e.families[1].samples.size(), 2u);
  EXPECT_EQ(e.families[2].samples.size(), 2u);
}

TEST(PrometheusExposition, MetadataDescribesTheSamplesAfterIt) {
  // client_golang's OpenMetrics encoder (as in prometheus-2.42.0-a.om): a gauge, then a
  // counter whose family name, without _total, is the gauge's.
  const Exposition e = parsed(
      "# HELP go_memstats_alloc_bytes Number of bytes allocated and still in use.\n"
      "# TYPE go_memstats_alloc_bytes gauge\n"
      "go_memstats_alloc_bytes 1.051508e+07\n"
      "# HELP go_memstats_alloc_bytes Total number of bytes allocated, even if freed.\n"
      "# TYPE go_memstats_alloc_bytes counter\n"
      "go_memstats_alloc_bytes_total 1.8770168e+07\n"
      "# EOF\n");
  ASSERT_EQ(e.families.size(), 2u);
  EXPECT_EQ(e.families[0].type, MetricType::Gauge);
  EXPECT_EQ(e.families[0].help, "Number of bytes allocated and still in use.");
  EXPECT_EQ(sample_names(e.families[0]), std::vector<std::string>{"go_memstats_alloc_bytes"});
  EXPECT_EQ(e.families[1].name, "go_memstats_alloc_bytes");
  EXPECT_EQ(e.families[1].type, MetricType::Counter);
  EXPECT_EQ(e.families[1].help, "Total number of bytes allocated, even if freed.");
  EXPECT_EQ(sample_names(e.families[1]), std::vector<std::string>{"go_memstats_alloc_bytes_total"});

  // A TYPE line after a family's samples types the samples after it, not those before.
  const Exposition late = parsed("a 1\n# TYPE a gauge\na 2\n");
  ASSERT_EQ(late.families.size(), 2u);
  EXPECT_EQ(late.families[0].type, MetricType::Unknown);
  EXPECT_EQ(late.families[1].type, MetricType::Gauge);
  EXPECT_EQ(late.families[1].samples.at(0).value, 2);

  // Before any sample, metadata lines complete one family; a later TYPE wins.
  const Exposition retyped = parsed("# TYPE x counter\n# HELP x Help.\n# TYPE x gauge\nx 1\n");
  ASSERT_EQ(retyped.families.size(), 1u);
  EXPECT_EQ(retyped.families[0].type, MetricType::Gauge);
  EXPECT_EQ(retyped.families[0].help, "Help.");
}

TEST(PrometheusExposition, FamilyWithoutSamplesIsKept) {
  const Exposition e = parsed("# HELP idle Nothing yet.\n# TYPE idle counter\n");
  ASSERT_EQ(e.families.size(), 1u);
  EXPECT_TRUE(e.families[0].samples.empty());
  EXPECT_EQ(e.families[0].type, MetricType::Counter);
}

TEST(PrometheusExposition, ExemplarsAreReadAndDropped) {
  for (const auto format : {ExpositionFormat::OpenMetrics, ExpositionFormat::Prometheus004}) {
    const Exposition e = parsed(
        "# TYPE r counter\n"
        "r_total{code=\"200\"} 12 # {trace_id=\"4bf92f3577b34da6a3ce929d0e0e4736\",span_id=\"00f067aa0ba902b7\"} 1 "
        "1700000000.001\n"
        "r_total{code=\"500\"} 2 1700000000 # {trace_id=\"abc\"} 1.0\n"
        "# EOF\n",
        format);
    const MetricFamily& r = family(e, "r");
    ASSERT_EQ(r.samples.size(), 2u);
    EXPECT_EQ(r.samples[0].value, 12);
    EXPECT_EQ(r.samples[0].labels.size(), 1u);
    EXPECT_FALSE(r.samples[0].timestamp_ms);
    EXPECT_TRUE(r.samples[1].timestamp_ms);
  }
}

// A PromEx Phoenix histogram and counter, shaped as TelemetryMetricsPrometheus.Core's
// exporter writes them (labels sorted, `le` last, one "\n" between lines, integer buckets
// from exponential!(1, 2, 12), label values not escaped).
constexpr std::string_view kPromEx =
    "# HELP my_app_prom_ex_phoenix_http_request_duration_milliseconds The time it takes for the application to "
    "respond to HTTP requests.\n"
    "# TYPE my_app_prom_ex_phoenix_http_request_duration_milliseconds histogram\n"
    "my_app_prom_ex_phoenix_http_request_duration_milliseconds_bucket{action=\"index\",controller=\"MyAppWeb."
    "PageController\",method=\"GET\",path=\"/\",status=\"200\",le=\"1\"} 3\n"
    "my_app_prom_ex_phoenix_http_request_duration_milliseconds_bucket{action=\"index\",controller=\"MyAppWeb."
    "PageController\",method=\"GET\",path=\"/\",status=\"200\",le=\"2\"} 9\n"
    "my_app_prom_ex_phoenix_http_request_duration_milliseconds_bucket{action=\"index\",controller=\"MyAppWeb."
    "PageController\",method=\"GET\",path=\"/\",status=\"200\",le=\"4\"} 12\n"
    "my_app_prom_ex_phoenix_http_request_duration_milliseconds_bucket{action=\"index\",controller=\"MyAppWeb."
    "PageController\",method=\"GET\",path=\"/\",status=\"200\",le=\"+Inf\"} 12\n"
    "my_app_prom_ex_phoenix_http_request_duration_milliseconds_sum{action=\"index\",controller=\"MyAppWeb."
    "PageController\",method=\"GET\",path=\"/\",status=\"200\"} 23.5\n"
    "my_app_prom_ex_phoenix_http_request_duration_milliseconds_count{action=\"index\",controller=\"MyAppWeb."
    "PageController\",method=\"GET\",path=\"/\",status=\"200\"} 12\n"
    "# HELP my_app_prom_ex_phoenix_http_requests_total The number of requests have been serviced.\n"
    "# TYPE my_app_prom_ex_phoenix_http_requests_total counter\n"
    "my_app_prom_ex_phoenix_http_requests_total{action=\"index\",controller=\"MyAppWeb.PageController\",method="
    "\"GET\",path=\"/\",status=\"200\"} 12\n"
    "# HELP my_app_prom_ex_beam_stats_run_queue_count The number of processes waiting to run.\n"
    "# TYPE my_app_prom_ex_beam_stats_run_queue_count gauge\n"
    "my_app_prom_ex_beam_stats_run_queue_count 0\n";

TEST(PrometheusExposition, PromExShapedOutput) {
  const Exposition e = parsed(kPromEx);
  ASSERT_EQ(e.families.size(), 3u);
  const MetricFamily& duration = e.families[0];
  EXPECT_EQ(duration.type, MetricType::Histogram);
  ASSERT_EQ(duration.samples.size(), 6u);
  EXPECT_EQ(duration.samples[0].labels.back().name, "le");
  EXPECT_EQ(*duration.samples[0].label("controller"), "MyAppWeb.PageController");
  EXPECT_EQ(family(e, "my_app_prom_ex_phoenix_http_requests_total").samples.at(0).value, 12);
}

// peep's Prometheus exporter: its floats come from :erlang.float_to_binary/2 and its HELP
// is escaped.
TEST(PrometheusExposition, PeepShapedOutput) {
  const Exposition e = parsed(
      "# HELP vm_memory_total Total memory \\\\ allocated\n"
      "# TYPE vm_memory_total gauge\n"
      "vm_memory_total{node=\"a@host\"} 5.00000000000000000000e-01\n"
      "\n"
      "# HELP phoenix_endpoint_stop_duration Request time\n"
      "# TYPE phoenix_endpoint_stop_duration histogram\n"
      "phoenix_endpoint_stop_duration_bucket{method=\"GET\",le=\"0.005\"} 1\n"
      "phoenix_endpoint_stop_duration_bucket{method=\"GET\",le=\"+Inf\"} 1\n"
      "phoenix_endpoint_stop_duration_sum{method=\"GET\"} 0.0021\n"
      "phoenix_endpoint_stop_duration_count{method=\"GET\"} 1\n");
  EXPECT_EQ(family(e, "vm_memory_total").help, "Total memory \\ allocated");
  EXPECT_EQ(family(e, "vm_memory_total").samples.at(0).value, 0.5);
  EXPECT_EQ(family(e, "phoenix_endpoint_stop_duration").samples.size(), 4u);
}

TEST(PrometheusExposition, MalformedLinesNameTheLineAndWhatIsWrong) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"x{path=\"/a} 1", "line 1: label value of \"path\" in \"x\" not closed"},
      {"x{a=\"b\" 1", "line 1: expected ',' or '}' after the value of label \"a\" of \"x\", got '1'"},
      {"x{a=\"b\"", "line 1: label set of \"x\" not closed"},
      {"x{a=b} 1", "line 1: value of label \"a\" of \"x\" is not quoted"},
      {"x{a} 1", "line 1: expected '=' after label name \"a\" of \"x\""},
      {"x{1a=\"b\"} 1", "line 1: expected a label name in \"x\", got '1'"},
      {"x{,} 1", "line 1: expected a label name in \"x\", got ','"},
      {"x{a=\"b\",,} 1", "line 1: expected a label name in \"x\", got ','"},
      {"x{a=\"b\",a=\"c\"} 1", "line 1: label \"a\" appears twice in \"x\""},
      {"x{a=\"\xff\"} 1", "line 1: label value of \"a\" in \"x\" is not valid UTF-8"},
      {"x", "line 1: no value for \"x\""},
      {"x{a=\"b\"}", "line 1: no value for \"x\""},
      {"x abc", "line 1: invalid value \"abc\" for \"x\""},
      {"x 1e400", "line 1: invalid value \"1e400\" for \"x\""},
      {"x-y 1", "line 1: unexpected '-' after the metric name \"x\""},
      {"x 1 2 3", "line 1: unexpected \"3\" after the timestamp of \"x\""},
      {"x 1 # trace", "line 1: expected an exemplar's '{' after '#' on the line of \"x\""},
      {"x 1 # {a=\"b\"", "line 1: exemplar: label set of \"x\" not closed"},
      {"x 1 # {a=\"b\"} ", "line 1: exemplar of \"x\" without a value"},
      {"x 1 # {a=\"b\"} one", "line 1: invalid exemplar value \"one\" for \"x\""},
      {"x 1 # {a=\"b\"} 1 NaN", "line 1: invalid exemplar timestamp \"NaN\" for \"x\""},
      {"x 1 # {a=\"b\"} 1 2 3", "line 1: unexpected \"3\" after the exemplar of \"x\""},
      {"-x 1", "line 1: expected a metric name or '#', got '-'"},
      {"{\"x\"} 1", "line 1: quoted metric names ({\"name\", ...}) are not supported"},
      {"x{\"a\"=\"b\"} 1", "line 1: quoted label names (UTF-8 names) are not supported"},
      {"x\x01 1", "line 1: unexpected byte 0x01 after the metric name \"x\""},
      {"# HELP", "line 1: HELP line without a metric name"},
      {"# HELP 9x help", "line 1: expected a metric name after HELP, got '9'"},
      {"# HELP x\xff", "line 1: unexpected byte 0xff after the metric name in HELP \"x\""},
      {"# HELP x bad \xff", "line 1: HELP text of \"x\" is not valid UTF-8"},
      {"# TYPE x", "line 1: TYPE line for \"x\" without a type"},
      {"# TYPE x countr", "line 1: unknown metric type \"countr\" for \"x\""},
      {"# TYPE x counter gauge", "line 1: unexpected \"gauge\" after the type of \"x\""},
  };
  for (const auto& [body, message] : cases) {
    EXPECT_EQ(exposition_error(body).message(), message) << body;
  }
}

TEST(PrometheusExposition, OneBadLineFailsTheWholeScrapeAndNamesItsNumber) {
  std::string body(kSpecExample);
  body += "\n\nhttp_requests_total{method=\"get\",code=\"200} 5\nfine_after 1\n";
  const auto bad_line = static_cast<std::size_t>(std::count(kSpecExample.begin(), kSpecExample.end(), '\n')) + 3;
  const ExpositionError e = exposition_error(body);
  EXPECT_EQ(e.line, bad_line);
  EXPECT_EQ(e.message(), "line " + std::to_string(bad_line) +
                             ": label value of \"code\" in \"http_requests_total\" not closed");
  // CRLF bodies count lines the same way.
  EXPECT_EQ(exposition_error("a 1\r\n\r\nb x\r\n").message(), "line 3: invalid value \"x\" for \"b\"");
}

TEST(PrometheusExposition, OpenMetricsLineErrorsToo) {
  EXPECT_EQ(exposition_error("# UNIT a seconds extra\n# EOF\n", ExpositionFormat::OpenMetrics).message(),
            "line 1: unexpected text after the unit of \"a\"");
  EXPECT_EQ(exposition_error("a 1 1e300\n# EOF\n", ExpositionFormat::OpenMetrics).message(),
            "line 1: invalid timestamp \"1e300\" for \"a\" (OpenMetrics: seconds)");
}

TEST(PrometheusExposition, LongLinesAreQuotedShortInMessages) {
  const std::string body = "x " + std::string(500, '9') + "z\n";
  const std::string message = exposition_error(body).message();
  EXPECT_LT(message.size(), 120u);
  EXPECT_NE(message.find("...\""), std::string::npos);
}

// ---- Real bodies (tests/vectors/prometheus-expositions/README.md) --------------------------

TEST(PrometheusExpositionVectors, NodeExporter) {
  const std::string body = testing::read_exposition_vector("node_exporter-1.5.0.prom");
  const Exposition e = parsed(body, exposition_format_of("text/plain; version=0.0.4; charset=utf-8"));
  // expfmt's TextParser reads 282 families from it; every sample line has one.
  EXPECT_EQ(e.families.size(), 282u);
  EXPECT_EQ(e.sample_count(), 505u);
  std::size_t untyped = 0;
  for (const MetricFamily& f : e.families) {
    EXPECT_FALSE(f.help.empty()) << f.name;  // every family has a HELP line...
    if (f.type == MetricType::Unknown) ++untyped;
  }
  EXPECT_EQ(untyped, 47u);  // ...and a TYPE line, "untyped" for the node_vmstat_* ones
  EXPECT_EQ(family(e, "node_vmstat_pgpgin").type, MetricType::Unknown);
  const MetricFamily& cpu = family(e, "node_cpu_seconds_total");
  EXPECT_EQ(cpu.type, MetricType::Counter);
  EXPECT_EQ(cpu.samples.size(), 16u);
  const Sample& idle = cpu.samples.at(0);
  EXPECT_EQ(*idle.label("cpu"), "0");
  EXPECT_EQ(*idle.label("mode"), "idle");
  EXPECT_EQ(idle.value, 92.48);
  const MetricFamily& gc = family(e, "go_gc_duration_seconds");
  EXPECT_EQ(gc.type, MetricType::Summary);
  EXPECT_EQ(sample_names(gc).size(), 7u);
  EXPECT_EQ(*family(e, "node_exporter_build_info").samples.at(0).label("version"), "1.5.0");
}

TEST(PrometheusExpositionVectors, PrometheusServerHistogramsAndNaNQuantiles) {
  const Exposition e = parsed(testing::read_exposition_vector("prometheus-2.42.0-a.prom"));
  EXPECT_EQ(e.families.size(), 169u);
  EXPECT_EQ(e.sample_count(), 379u);
  const MetricFamily& http = family(e, "prometheus_http_request_duration_seconds");
  EXPECT_EQ(http.type, MetricType::Histogram);
  std::size_t metrics_handler_buckets = 0;
  for (const Sample& s : http.samples) {
    if (s.name == "prometheus_http_request_duration_seconds_bucket" && *s.label("handler") == "/metrics") {
      ++metrics_handler_buckets;
      EXPECT_EQ(s.value, 7);
    }
  }
  EXPECT_EQ(metrics_handler_buckets, 10u);  // 0.1 ... 120 and +Inf
  const MetricFamily& engine = family(e, "prometheus_engine_query_duration_seconds");
  EXPECT_EQ(engine.type, MetricType::Summary);
  std::size_t nan_quantiles = 0;
  for (const Sample& s : engine.samples) {
    if (*s.label("slice") == "result_sort" && s.label("quantile") != nullptr) {
      EXPECT_TRUE(std::isnan(s.value));
      ++nan_quantiles;
    }
  }
  EXPECT_EQ(nan_quantiles, 3u);
}

// The same scrape in both formats (client_golang's OpenMetrics encoder wrote the .om from
// the .prom) gives the same numbers, family by family, sample by sample.
TEST(PrometheusExpositionVectors, BothFormatsOfOneScrapeAgree) {
  const Exposition text = parsed(testing::read_exposition_vector("prometheus-2.42.0-a.prom"));
  const Exposition om = parsed(testing::read_exposition_vector("prometheus-2.42.0-a.om"),
                               exposition_format_of("application/openmetrics-text; version=1.0.0; charset=utf-8"));
  EXPECT_EQ(om.format, ExpositionFormat::OpenMetrics);
  ASSERT_EQ(text.families.size(), om.families.size());
  ASSERT_EQ(text.sample_count(), om.sample_count());
  // Samples by name and labels, in either body.
  auto key = [](const Sample& s) {
    std::string k = s.name;
    for (const Label& l : s.labels) k += "|" + l.name + "=" + l.value;
    return k;
  };
  std::map<std::string, double> om_values;
  for (const MetricFamily& f : om.families) {
    for (const Sample& s : f.samples) om_values[key(s)] = s.value;
  }
  std::size_t compared = 0;
  for (const MetricFamily& f : text.families) {
    // A 0.0.4 counter family is named with _total; its OpenMetrics family without.
    const std::string om_name =
        f.type == MetricType::Counter && f.name.ends_with("_total") ? f.name.substr(0, f.name.size() - 6) : f.name;
    // Two OpenMetrics families can share a name (go_memstats_alloc_bytes): take the one of
    // the same type.
    const MetricFamily* g = nullptr;
    for (const MetricFamily& candidate : om.families) {
      if (candidate.name == om_name && candidate.type == f.type) g = &candidate;
    }
    ASSERT_NE(g, nullptr) << f.name;
    EXPECT_EQ(g->type, f.type) << f.name;
    EXPECT_EQ(g->help, f.help) << f.name;
    for (const Sample& s : f.samples) {
      std::string k = key(s);
      // client_golang writes quantile and le label values as floats ("0" -> "0.0", "1" -> "1.0").
      const auto it = om_values.find(k);
      if (it == om_values.end()) continue;
      ++compared;
      if (std::isnan(s.value)) {
        EXPECT_TRUE(std::isnan(it->second)) << k;
      } else {
        EXPECT_EQ(it->second, s.value) << k;
      }
    }
  }
  EXPECT_GT(compared, 250u);
}

}  // namespace
}  // namespace stampede::proto
