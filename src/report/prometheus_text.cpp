#include "metrics/metric_unit.hpp"
#include "report/prometheus_text.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "report/utf8_text.hpp"

namespace stampede::report {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Sample {
  std::string series;  // the family's name, or it with _sum / _count
  Labels labels;
  double value = 0;
};

struct Family {
  std::string name;
  std::string type;  // counter, gauge, summary
  std::string help;
  std::vector<Sample> samples;
};

// Families in the order they are first added.
class Exposition {
 public:
  Family& family(const std::string& name, std::string_view type, std::string_view help) {
    const auto [it, added] = index_.try_emplace(name, families_.size());
    if (added) families_.push_back({name, std::string(type), std::string(help), {}});
    return families_[it->second];
  }
  std::string render() const;

 private:
  std::vector<Family> families_;
  std::map<std::string, std::size_t> index_;
};

std::string escape_label_value(std::string_view value) {
  std::string out;
  for (const char c : to_valid_utf8(value)) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
  return out;
}

std::string escape_help(std::string_view help) {
  std::string out;
  for (const char c : to_valid_utf8(help)) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
  return out;
}

std::string exposition_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

std::string Exposition::render() const {
  std::string out;
  for (const Family& f : families_) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", f.name, escape_help(f.help), f.name, f.type);
    for (const Sample& s : f.samples) {
      out += s.series;
      if (!s.labels.empty()) {
        out += '{';
        for (std::size_t i = 0; i < s.labels.size(); ++i) {
          if (i > 0) out += ',';
          out += fmt::format("{}=\"{}\"", s.labels[i].first, escape_label_value(s.labels[i].second));
        }
        out += '}';
      }
      out += ' ' + exposition_value(s.value) + '\n';
    }
  }
  return out;
}

// Families of every run; a user's metric may not take these names.
constexpr const char* kRunFamilies[] = {
    "stampede_requests_sent_total",   "stampede_requests_completed_total", "stampede_requests_failed_total",
    "stampede_requests_in_flight",    "stampede_elapsed_seconds",          "stampede_iterations_per_second",
    "stampede_generator_cpu_cores",   "stampede_checks_total",
};

// The series names a metric of `kind` adds for family base `base`.
std::vector<std::string> series_of(const std::string& base, metrics::Kind kind) {
  switch (kind) {
    case metrics::Kind::Timing: return {base + "_seconds", base + "_seconds_sum", base + "_seconds_count"};
    case metrics::Kind::Counter: return {base + "_total", base + "_by_reason_total"};
    case metrics::Kind::Gauge: return {base};
    // The base already ends in its unit ("stampede_live_diff_bytes").
    case metrics::Kind::Distribution: return {base, base + "_sum", base + "_count"};
    case metrics::Kind::Check: return {};
  }
  return {};
}

// A family base ("stampede_http_request") for every (name, kind), collision-free.
std::map<std::pair<std::string, metrics::Kind>, std::string> family_bases(const std::vector<ScenarioResult>& runs) {
  std::set<std::pair<std::string, metrics::Kind>> metrics_seen;
  for (const ScenarioResult& r : runs)
    for (const MetricFigures& m : r.metrics)
      if (m.kind != metrics::Kind::Check) metrics_seen.insert({m.name, m.kind});
  std::set<std::string> used(std::begin(kRunFamilies), std::end(kRunFamilies));
  std::map<std::pair<std::string, metrics::Kind>, std::string> bases;
  for (const auto& key : metrics_seen) {
    const std::string stem = "stampede_" + prometheus_name(key.first);
    for (int n = 1;; ++n) {
      const std::string base = n == 1 ? stem : fmt::format("{}_{}", stem, n);
      const auto series = series_of(base, key.second);
      if (std::none_of(series.begin(), series.end(), [&](const std::string& s) { return used.count(s) > 0; })) {
        used.insert(series.begin(), series.end());
        bases[key] = base;
        break;
      }
    }
  }
  return bases;
}

// A Prometheus summary of a histogram's quantiles; recorded values are divided by `per_unit`
// to get the exported unit (1e9 ns per second for timings).
void add_summary(Exposition& e, const std::string& name, std::string help, const Labels& scenario,
                 const MetricFigures& m, double per_unit) {
  Family& f = e.family(name, "summary", std::move(help));
  const std::pair<const char*, Nanos> quantiles[] = {{"0.5", m.p50}, {"0.9", m.p90}, {"0.95", m.p95}, {"0.99", m.p99}};
  for (const auto& [q, value] : quantiles) {
    Labels labels = scenario;
    labels.emplace_back("quantile", q);
    // A quantile of no samples is NaN in Prometheus' own client libraries.
    f.samples.push_back({name, labels, m.count > 0 ? static_cast<double>(value) / per_unit : std::nan("")});
  }
  f.samples.push_back({name + "_sum", scenario, m.mean * static_cast<double>(m.count) / per_unit});
  f.samples.push_back({name + "_count", scenario, static_cast<double>(m.count)});
}

void add_timing(Exposition& e, const std::string& base, const Labels& scenario, const MetricFigures& m) {
  add_summary(e, base + "_seconds", fmt::format("Stampede timing \"{}\" over the run so far, in seconds", m.name),
              scenario, m, 1e9);
}

void add_distribution(Exposition& e, const std::string& base, const Labels& scenario, const MetricFigures& m) {
  add_summary(e, base,
              fmt::format("Stampede distribution \"{}\" over the run so far, in {}", m.name,
                          metrics::unit_name(metrics::distribution_unit(m.name))),
              scenario, m, 1);
}

void add_counter(Exposition& e, const std::string& base, const Labels& scenario, const MetricFigures& m) {
  Family& total = e.family(base + "_total", "counter", fmt::format("Stampede counter \"{}\"", m.name));
  total.samples.push_back({total.name, scenario, static_cast<double>(m.count)});
  if (m.reasons.empty()) return;
  Family& by_reason =
      e.family(base + "_by_reason_total", "counter", fmt::format("Stampede counter \"{}\" by reason", m.name));
  for (const ReasonCount& r : m.reasons) {
    Labels labels = scenario;
    labels.emplace_back("reason", r.reason);
    by_reason.samples.push_back({by_reason.name, labels, static_cast<double>(r.count)});
  }
}

void add_gauge(Exposition& e, const std::string& base, const Labels& scenario, const MetricFigures& m) {
  if (!m.present) return;
  Family& f = e.family(base, "gauge", fmt::format("Stampede gauge \"{}\": its latest value", m.name));
  f.samples.push_back({base, scenario, m.gauge_last});
}

void add_run_figures(Exposition& e, const Labels& scenario, const ScenarioResult& r) {
  const metrics::RequestTally& t = r.requests;
  const auto add = [&](const char* name, const char* type, const char* help, double value) {
    Family& f = e.family(name, type, help);
    f.samples.push_back({name, scenario, value});
  };
  add("stampede_requests_sent_total", "counter", "Requests sent by every client", static_cast<double>(t.sent));
  add("stampede_requests_completed_total", "counter",
      "Requests that succeeded: an HTTP response with status below 400, an ok channel reply, a completed WebSocket handshake",
      static_cast<double>(t.completed));
  add("stampede_requests_failed_total", "counter",
      "Requests that failed: an HTTP response with status 400 or above (404 included), a channel reply that was "
      "not ok, or no answer at all (refused, reset, timeout, ...)",
      static_cast<double>(t.failed));
  const std::uint64_t done = t.completed + t.failed;
  add("stampede_requests_in_flight", "gauge", "Requests sent and not finished yet",
      static_cast<double>(t.sent > done ? t.sent - done : 0));
  add("stampede_elapsed_seconds", "gauge", "Time since the scenario's run started",
      static_cast<double>(r.duration) / 1e9);
  if (r.timeline.empty()) return;
  const SecondResult& last = r.timeline.back();
  add("stampede_iterations_per_second", "gauge", "Iterations finished in the latest second",
      static_cast<double>(last.iterations));
  if (last.cpu_cores)
    add("stampede_generator_cpu_cores", "gauge", "CPU the generator used in the latest second (1 = one core)",
        *last.cpu_cores);
}

void add_checks(Exposition& e, const Labels& scenario, const ScenarioResult& r) {
  for (const MetricFigures& m : r.metrics) {
    if (m.kind != metrics::Kind::Check) continue;
    Family& f = e.family("stampede_checks_total", "counter", "Check outcomes by check and result");
    for (const auto& [result, count] : {std::pair{"pass", m.passes}, std::pair{"fail", m.fails}}) {
      Labels labels = scenario;
      labels.emplace_back("check", m.name);
      labels.emplace_back("result", result);
      f.samples.push_back({f.name, labels, static_cast<double>(count)});
    }
  }
}

}  // namespace

std::string prometheus_name(std::string_view metric) {
  std::string out(metric);
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':';
    if (!ok) c = '_';
  }
  return out;
}

std::string prometheus_text(const std::vector<ScenarioResult>& scenarios) {
  const auto bases = family_bases(scenarios);
  Exposition e;
  for (const ScenarioResult& r : scenarios) add_run_figures(e, {{"scenario", r.scenario}}, r);
  for (const ScenarioResult& r : scenarios) add_checks(e, {{"scenario", r.scenario}}, r);
  // Metric families in name order, each with every scenario's sample together.
  for (const auto& [key, base] : bases) {
    for (const ScenarioResult& r : scenarios) {
      const Labels scenario{{"scenario", r.scenario}};
      for (const MetricFigures& m : r.metrics) {
        if (m.name != key.first || m.kind != key.second) continue;
        switch (m.kind) {
          case metrics::Kind::Timing: add_timing(e, base, scenario, m); break;
          case metrics::Kind::Distribution: add_distribution(e, base, scenario, m); break;
          case metrics::Kind::Counter: add_counter(e, base, scenario, m); break;
          case metrics::Kind::Gauge: add_gauge(e, base, scenario, m); break;
          case metrics::Kind::Check: break;
        }
      }
    }
  }
  return e.render();
}

}  // namespace stampede::report
