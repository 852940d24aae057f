#include "metrics/threshold.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/name_match.hpp"
#include "metrics/builtin_metrics.hpp"

namespace stampede::metrics {

namespace {

// TimingOrGauge: `max` is also a gauge's highest level (e.g. {"generator.cpu", max = 90}).
enum class AppliesTo { Timing, TimingOrGauge, Check, Any };

struct Aggregation {
  std::string_view name;
  AggregationUnit unit;
  AppliesTo applies_to;
  double percentile;  // for p50..p99; negative otherwise
};

constexpr Aggregation kAggregations[] = {
    {"min", AggregationUnit::Milliseconds, AppliesTo::Timing, -1},
    {"mean", AggregationUnit::Milliseconds, AppliesTo::Timing, -1},
    {"p50", AggregationUnit::Milliseconds, AppliesTo::Timing, 50},
    {"p90", AggregationUnit::Milliseconds, AppliesTo::Timing, 90},
    {"p95", AggregationUnit::Milliseconds, AppliesTo::Timing, 95},
    {"p99", AggregationUnit::Milliseconds, AppliesTo::Timing, 99},
    {"max", AggregationUnit::Milliseconds, AppliesTo::TimingOrGauge, -1},
    {"failed", AggregationUnit::Count, AppliesTo::Check, -1},
    {"failed_rate", AggregationUnit::Ratio, AppliesTo::Check, -1},
    {"count", AggregationUnit::Count, AppliesTo::Any, -1},
    {"rate", AggregationUnit::PerSecond, AppliesTo::Any, -1},
};

const Aggregation* find_aggregation(std::string_view name) {
  for (const Aggregation& a : kAggregations) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

const char* unit_suffix(AggregationUnit unit) {
  switch (unit) {
    case AggregationUnit::Milliseconds: return "ms";
    case AggregationUnit::PerSecond: return "/s";
    case AggregationUnit::Count:
    case AggregationUnit::Ratio: return "";
  }
  return "";
}

// The number of samples behind the metric's aggregations; a counter's zero is a value
// (nothing happened), so it is never "no samples" once the counter exists.
std::uint64_t samples(const NamedMetric& metric) {
  switch (metric.kind) {
    case Kind::Timing:
    case Kind::Distribution: return metric.data.histogram.count();
    case Kind::Counter: return 1;
    case Kind::Check:
    case Kind::Gauge: return metric.data.count;
  }
  return 0;
}

// min, mean, pNN or max of a histogram, in the recorded values' unit (ns for a timing).
double histogram_value(const Aggregation& a, const Histogram& h) {
  if (a.percentile >= 0) return static_cast<double>(h.percentile(a.percentile));
  if (a.name == "min") return static_cast<double>(h.min());
  if (a.name == "max") return static_cast<double>(h.max());
  return h.mean();
}

double timing_ms(const Aggregation& a, const Histogram& h) {
  constexpr double kNanosPerMilli = 1e6;
  return histogram_value(a, h) / kNanosPerMilli;
}

ThresholdResult unjudged(const ThresholdSpec& spec, std::string why) {
  ThresholdResult result;
  result.spec = spec;
  result.message = std::move(why);
  return result;
}

// Why a metric that is not in the run's table at all cannot be judged, with a way out where
// one is likely: a typo of a built-in name, or a counter of rare events that never happened
// in this run (a counter exists from its first increment, and zero is a value only then).
std::string never_recorded(const ThresholdSpec& spec, const Aggregation& a) {
  std::string message = fmt::format("no samples: \"{}\" was never recorded", spec.metric);
  if (const std::string_view near = nearest_builtin(spec.metric); !near.empty()) {
    message += fmt::format(" (did you mean \"{}\"?)", near);
  } else if (a.applies_to == AppliesTo::Any && !builtin_kind(spec.metric)) {
    message += fmt::format(
        " (a counter of events that may not happen: call stampede.increment(\"{}\", 0) in run so that zero is "
        "recorded)",
        spec.metric);
  }
  return message;
}

constexpr std::string_view kServerPrefix = "server.";

}  // namespace

std::string server_series_not_recorded(std::string_view metric, const std::vector<std::string>& known) {
  const std::string quoted = fmt::format("\"{}\"", metric);
  if (known.empty())
    return fmt::format(
        "no samples: {} was never recorded: no server metrics were scraped (stampede run --server-metrics URL, or "
        "the scenario's server_metrics option)",
        quoted);
  // The family was on the endpoint, but the select patterns left it out.
  if (std::find(known.begin(), known.end(), metric) != known.end())
    return fmt::format(
        "no samples: {} is exposed by the endpoint but was not selected: add \"{}\" to server_metrics.select", quoted,
        metric.substr(kServerPrefix.size()));
  std::vector<std::string> near = closest_names(metric, known);
  if (near.empty()) near = closest_by_words(metric, known);
  if (near.empty()) {
    std::size_t families = 0;
    for (const std::string& name : known) families += name.find('{') == std::string::npos;
    return fmt::format("no samples: {} is not exposed by the endpoint, and none of the {} families it exposed is close "
                       "to that name",
                       quoted, families);
  }
  std::string list;
  for (const std::string& name : near) list += (list.empty() ? "" : ", ") + name;
  return fmt::format("no samples: {} is not exposed by the endpoint; closest: {}", quoted, list);
}

std::string validate_aggregation(std::string_view aggregation) {
  if (find_aggregation(aggregation) != nullptr) return {};
  return fmt::format(
      "unknown aggregation \"{}\": use min, mean, p50, p90, p95, p99 or max (timings, in ms), "
      "failed or failed_rate (checks), count or rate (any metric)",
      aggregation);
}

AggregationUnit aggregation_unit(std::string_view aggregation) {
  const Aggregation* a = find_aggregation(aggregation);
  return a != nullptr ? a->unit : AggregationUnit::Count;
}

std::string applicability_error(std::string_view aggregation, std::string_view metric, Kind kind) {
  const Aggregation* a = find_aggregation(aggregation);
  if (a == nullptr) return validate_aggregation(aggregation);
  const bool histogram = kind == Kind::Timing || kind == Kind::Distribution;
  if ((a->applies_to == AppliesTo::Timing && !histogram) ||
      (a->applies_to == AppliesTo::TimingOrGauge && !histogram && kind != Kind::Gauge) ||
      (a->applies_to == AppliesTo::Check && kind != Kind::Check)) {
    const char* wanted = a->applies_to == AppliesTo::Check ? "check"
                         : a->applies_to == AppliesTo::Timing ? "timing" : "timing or a gauge";
    return fmt::format("{} applies to a {}, but \"{}\" is a {}", a->name, wanted, metric, kind_name(kind));
  }
  return {};
}

ThresholdResult judge(const ThresholdSpec& spec, const MetricTable& metrics, double duration_seconds) {
  return judge(spec, metrics, duration_seconds, {});
}

ThresholdResult judge(const ThresholdSpec& spec, const MetricTable& metrics, double duration_seconds,
                      const std::vector<std::string>& server_exposed) {
  const Aggregation* a = find_aggregation(spec.aggregation);
  if (a == nullptr) return unjudged(spec, validate_aggregation(spec.aggregation));
  const NamedMetric* metric = find_metric(metrics, spec.metric);
  // A server series the run never registered: the endpoint did not expose it, or it was not
  // selected, or nothing was scraped. (One registered but without samples in the window, a
  // histogram that saw no observations, is judged below: "recorded nothing".)
  if (metric == nullptr && std::string_view(spec.metric).starts_with(kServerPrefix)) {
    std::vector<std::string> known = server_exposed;
    for (const NamedMetric& m : metrics) {
      if (std::string_view(m.name).starts_with(kServerPrefix)) known.push_back(m.name);
    }
    std::sort(known.begin(), known.end());
    known.erase(std::unique(known.begin(), known.end()), known.end());
    // Our own (server.scrape, ...) are not the endpoint's names.
    std::erase_if(known, [](const std::string& n) {
      return n == "server.scrape" || n == "server.scrape.errors" || n == "server.series";
    });
    return unjudged(spec, server_series_not_recorded(spec.metric, known));
  }
  if (metric == nullptr) return unjudged(spec, never_recorded(spec, *a));
  const Kind kind = metric->kind;
  const bool histogram = kind == Kind::Timing || kind == Kind::Distribution;
  if (std::string why = applicability_error(spec.aggregation, spec.metric, kind); !why.empty()) {
    return unjudged(spec, std::move(why));
  }
  if (samples(*metric) == 0) {
    return unjudged(spec, fmt::format("no samples: \"{}\" recorded nothing", spec.metric));
  }

  const MetricData& data = metric->data;
  const std::uint64_t count = histogram ? data.histogram.count() : data.count;
  double value = 0;
  AggregationUnit unit = a->unit;
  if (kind == Kind::Gauge && a->name == "max") {
    // A gauge's max is its highest level, in the gauge's own unit.
    unit = AggregationUnit::Count;
    value = data.gauge_max;
  } else if (kind == Kind::Distribution && a->unit == AggregationUnit::Milliseconds) {
    // min, mean, pNN and max of plain values are in the values' own unit (bytes, ...).
    unit = AggregationUnit::Count;
    value = histogram_value(*a, data.histogram);
  } else {
    switch (a->unit) {
      case AggregationUnit::Milliseconds: value = timing_ms(*a, data.histogram); break;
      case AggregationUnit::Ratio:
        value = static_cast<double>(data.failed) / static_cast<double>(data.count);
        break;
      case AggregationUnit::Count:
        value = static_cast<double>(a->name == "failed" ? data.failed : count);
        break;
      case AggregationUnit::PerSecond:
        if (!(duration_seconds > 0) || !std::isfinite(duration_seconds)) {
          return unjudged(spec, fmt::format("rate needs a duration above zero, got {}s", duration_seconds));
        }
        value = static_cast<double>(count) / duration_seconds;
        break;
    }
  }

  ThresholdResult result;
  result.spec = spec;
  result.judged = true;
  result.value = value;
  result.pass = value <= spec.limit;  // false for a NaN limit
  if (unit != a->unit) result.unit = unit;
  const char* suffix = unit_suffix(unit);
  result.message = fmt::format("{} {:.6g}{} {} {:.6g}{}", a->name, value, suffix,
                               result.pass ? "<=" : ">", spec.limit, suffix);
  return result;
}

}  // namespace stampede::metrics
