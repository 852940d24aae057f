#include "report/run_result_builder.hpp"

#include <algorithm>
#include <cmath>

#include "metrics/metric_table.hpp"
#include "metrics/names.hpp"
#include "metrics/summary.hpp"
#include "metrics/threshold.hpp"

namespace stampede::report {

namespace {

double per_second(std::uint64_t count, double window_seconds) {
  return window_seconds > 0 ? static_cast<double>(count) / window_seconds : 0;
}

void timing_figures(const metrics::Histogram& h, MetricFigures& f) {
  f.count = h.count();
  if (f.count == 0) return;
  f.mean = h.mean();
  f.min = h.min();
  f.p50 = h.percentile(50);
  f.p90 = h.percentile(90);
  f.p95 = h.percentile(95);
  f.p99 = h.percentile(99);
  f.max = h.max();
}

std::vector<ReasonCount> sorted_reasons(const metrics::MetricData& data) {
  std::vector<ReasonCount> reasons;
  reasons.reserve(data.reasons.size());
  for (const auto& [reason, count] : data.reasons) {
    const auto example = data.examples.find(reason);
    reasons.push_back({reason, count, example == data.examples.end() ? std::string() : example->second});
  }
  // Stable on a map already sorted by reason: ties stay in reason order.
  std::stable_sort(reasons.begin(), reasons.end(),
                   [](const ReasonCount& a, const ReasonCount& b) { return a.count > b.count; });
  return reasons;
}

std::uint64_t count_of(const std::vector<MetricFigures>& metrics, std::string_view name) {
  const MetricFigures* f = find_figures(metrics, name);
  return f != nullptr ? f->count : 0;
}

}  // namespace

bool is_internal_metric(std::string_view name) { return name.starts_with('_'); }

MetricFigures figures_of(const metrics::NamedMetric& metric, double window_seconds) {
  MetricFigures f;
  f.name = metric.name;
  f.kind = metric.kind;
  f.present = metric.data.present;
  const metrics::MetricData& d = metric.data;
  switch (metric.kind) {
    case metrics::Kind::Timing:
    case metrics::Kind::Distribution: timing_figures(d.histogram, f); break;
    case metrics::Kind::Counter:
      f.count = d.count;
      f.reasons = sorted_reasons(d);
      break;
    case metrics::Kind::Check:
      f.count = d.count;
      f.fails = std::min(d.failed, d.count);
      f.passes = d.count - f.fails;
      break;
    case metrics::Kind::Gauge:
      f.count = d.count;
      f.gauge_max = d.gauge_max;
      f.gauge_last = d.gauge_last;
      break;
  }
  f.rate = per_second(f.count, window_seconds);
  return f;
}

std::vector<MetricFigures> figures_of(const metrics::MetricTable& table, double window_seconds) {
  std::vector<MetricFigures> out;
  out.reserve(table.size());
  for (const metrics::NamedMetric& m : table)
    if (!is_internal_metric(m.name)) out.push_back(figures_of(m, window_seconds));
  return out;
}

Nanos second_window(std::int64_t second, Nanos elapsed) {
  const Nanos start = second * kSecond;
  return std::clamp<Nanos>(elapsed - start, 0, kSecond);
}

SecondResult second_result(const metrics::Snapshot& second, const metrics::Registry& registry, Nanos window) {
  SecondResult s;
  s.second = second.second;
  s.requests = second.requests;
  const double window_seconds = static_cast<double>(window) / kSecond;
  for (metrics::MetricId id = 0; id < second.metrics.size(); ++id) {
    const metrics::MetricData& data = second.metrics[id];
    if (!data.present) continue;
    const metrics::NamedMetric named{registry.name(id), registry.kind(id), data};
    if (is_internal_metric(named.name)) continue;
    s.metrics.push_back(figures_of(named, window_seconds));
  }
  std::sort(s.metrics.begin(), s.metrics.end(),
            [](const MetricFigures& a, const MetricFigures& b) { return a.name < b.name; });
  if (const MetricFigures* vus = find_figures(s.metrics, metrics::names::kVus)) s.vus = vus->gauge_last;
  s.iterations = count_of(s.metrics, metrics::names::kIterations);
  s.errors = count_of(s.metrics, metrics::names::kIterationErrors);
  s.dropped = count_of(s.metrics, metrics::names::kDroppedIterations);
  return s;
}

namespace {

// The message in full that the reason `group` of `data` stands for; empty when it is itself.
std::string example_of(const metrics::MetricData& data, const std::string& group) {
  const auto it = data.examples.find(group);
  return it == data.examples.end() ? std::string() : it->second;
}

}  // namespace

SummaryModel summary_model_of(const metrics::Summary& summary, const metrics::Registry& registry, std::string scenario,
                              Nanos duration, const std::vector<metrics::ThresholdSpec>& thresholds,
                              const std::vector<std::string>& server_exposed) {
  SummaryModel model;
  model.scenario = std::move(scenario);
  model.duration = duration;
  model.window_start = 0;
  model.window_end = duration;
  model.metrics = metrics::make_metric_table(summary, registry);
  model.requests = summary.requests;
  const double seconds = std::max(1e-9, static_cast<double>(duration) / kSecond);
  for (const auto& spec : thresholds)
    model.thresholds.push_back(metrics::judge(spec, model.metrics, seconds, server_exposed));
  if (const auto* errors = metrics::find_metric(model.metrics, metrics::names::kIterationErrors)) {
    for (const auto& [message, count] : errors->data.reasons)
      model.iteration_errors.push_back({message, count, example_of(errors->data, message)});
  }
  if (const auto* crashes = metrics::find_metric(model.metrics, metrics::names::kVuCrashes)) {
    for (const auto& [message, count] : crashes->data.reasons)
      model.iteration_errors.push_back({"(VU crashed) " + message, count, example_of(crashes->data, message)});
  }
  return model;
}

void fill_summary(ScenarioResult& result, const SummaryModel& summary) {
  result.scenario = summary.scenario;
  result.duration = summary.duration;
  result.window_start = summary.window_start;
  result.window_end = summary.window_end;
  const double window_seconds = static_cast<double>(summary.window_end - summary.window_start) / kSecond;
  result.metrics = figures_of(summary.metrics, window_seconds);
  result.requests = summary.requests;
  result.thresholds = summary.thresholds;
  result.iteration_errors = summary.iteration_errors;
  std::stable_sort(result.iteration_errors.begin(), result.iteration_errors.end(),
                   [](const IterationErrorGroup& a, const IterationErrorGroup& b) { return a.count > b.count; });
}

}  // namespace stampede::report
