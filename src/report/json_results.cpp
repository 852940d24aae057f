#include "report/json_results.hpp"

#include <cmath>

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "metrics/metric_unit.hpp"
#include "report/find_limit_json.hpp"
#include "report/json_number.hpp"
#include "report/utf8_text.hpp"

namespace stampede::report {

namespace json = boost::json;

namespace {

json::value ms(Nanos ns) { return json_number(static_cast<double>(ns) / 1e6); }
json::value ms(double ns) { return json_number(ns / 1e6); }
json::string text(std::string_view s) { return json::string(to_valid_utf8(s)); }

json::object timing_json(const MetricFigures& f) {
  json::object o;
  o["kind"] = "timing";
  o["count"] = f.count;
  o["rate"] = json_number(f.rate);
  const bool any = f.count > 0;
  o["mean_ms"] = any ? ms(f.mean) : nullptr;
  o["min_ms"] = any ? ms(f.min) : nullptr;
  o["p50_ms"] = any ? ms(f.p50) : nullptr;
  o["p90_ms"] = any ? ms(f.p90) : nullptr;
  o["p95_ms"] = any ? ms(f.p95) : nullptr;
  o["p99_ms"] = any ? ms(f.p99) : nullptr;
  o["max_ms"] = any ? ms(f.max) : nullptr;
  return o;
}

// Like a timing, but the values are in their own unit (bytes, ...), so the fields carry no "_ms".
json::object distribution_json(const MetricFigures& f) {
  json::object o;
  o["kind"] = "distribution";
  o["unit"] = metrics::unit_name(metrics::distribution_unit(f.name));
  o["count"] = f.count;
  o["rate"] = json_number(f.rate);
  const bool any = f.count > 0;
  const auto value = [any](double v) { return any ? json_number(v) : json::value(nullptr); };
  o["mean"] = value(f.mean);
  o["min"] = value(static_cast<double>(f.min));
  o["p50"] = value(static_cast<double>(f.p50));
  o["p90"] = value(static_cast<double>(f.p90));
  o["p95"] = value(static_cast<double>(f.p95));
  o["p99"] = value(static_cast<double>(f.p99));
  o["max"] = value(static_cast<double>(f.max));
  return o;
}

json::object counter_json(const MetricFigures& f) {
  json::object o;
  o["kind"] = "counter";
  o["count"] = f.count;
  o["rate"] = json_number(f.rate);
  json::object reasons;
  json::object examples;
  for (const ReasonCount& r : f.reasons) {
    reasons[text(r.reason)] = r.count;
    if (!r.example.empty()) examples[text(r.reason)] = text(r.example);
  }
  o["reasons"] = std::move(reasons);
  if (!examples.empty()) o["examples"] = std::move(examples);
  return o;
}

json::object gauge_json(const MetricFigures& f) {
  json::object o;
  o["kind"] = "gauge";
  o["max"] = f.present ? json_number(f.gauge_max) : nullptr;
  o["last"] = f.present ? json_number(f.gauge_last) : nullptr;
  return o;
}

json::object check_json(const MetricFigures& f) {
  json::object o;
  o["passes"] = f.passes;
  o["fails"] = f.fails;
  const std::uint64_t total = f.passes + f.fails;
  o["pass_rate"] = total > 0 ? json::value(static_cast<double>(f.passes) / static_cast<double>(total)) : nullptr;
  return o;
}

// Fills "metrics" and "checks" of `into` from `figures`.
void metrics_json(const std::vector<MetricFigures>& figures, json::object& into) {
  json::object metrics_object, checks;
  for (const MetricFigures& f : figures) {
    switch (f.kind) {
      case metrics::Kind::Timing: metrics_object[text(f.name)] = timing_json(f); break;
      case metrics::Kind::Distribution: metrics_object[text(f.name)] = distribution_json(f); break;
      case metrics::Kind::Counter: metrics_object[text(f.name)] = counter_json(f); break;
      case metrics::Kind::Gauge: metrics_object[text(f.name)] = gauge_json(f); break;
      case metrics::Kind::Check: checks[text(f.name)] = check_json(f); break;
    }
  }
  into["metrics"] = std::move(metrics_object);
  into["checks"] = std::move(checks);
}

json::object tally_json(const metrics::RequestTally& t, bool with_in_flight) {
  json::object o;
  o["sent"] = t.sent;
  o["completed"] = t.completed;
  o["failed"] = t.failed;
  if (with_in_flight) {
    const std::uint64_t done = t.completed + t.failed;
    o["in_flight"] = t.sent > done ? t.sent - done : 0;
  }
  return o;
}

json::object threshold_spec_json(const metrics::ThresholdSpec& spec) {
  json::object o;
  o["metric"] = text(spec.metric);
  o["aggregation"] = text(spec.aggregation);
  o["limit"] = json_number(spec.limit);
  o["unit"] = aggregation_unit_name(metrics::aggregation_unit(spec.aggregation));
  o["source"] = text(spec.source);
  return o;
}

json::object threshold_result_json(const metrics::ThresholdResult& t) {
  json::object o = threshold_spec_json(t.spec);
  o["unit"] = aggregation_unit_name(metrics::result_unit(t));
  o["pass"] = t.pass;
  o["judged"] = t.judged;
  o["value"] = t.judged ? json_number(t.value) : nullptr;
  o["message"] = text(t.message);
  return o;
}

}  // namespace

boost::json::object threshold_result_object(const metrics::ThresholdResult& t) { return threshold_result_json(t); }

namespace {

json::object options_json(const RunOptions& options) {
  const LoadShape& shape = options.shape;
  json::object o;
  o["model"] = load_model_name(shape.model);
  o["start"] = json_number(shape.start);
  json::array stages;
  for (const Stage& st : shape.stages)
    stages.push_back(json::object{{"duration_ms", ms(st.duration)}, {"target", json_number(st.target)}});
  o["stages"] = std::move(stages);
  o["duration_ms"] = ms(shape.total_duration());
  o["max_vus"] = shape.max_vus;
  o["graceful_stop_ms"] = ms(shape.graceful_stop);
  json::array thresholds;
  for (const auto& spec : options.thresholds) thresholds.push_back(threshold_spec_json(spec));
  o["thresholds"] = std::move(thresholds);
  return o;
}

json::object scenario_json(const ScenarioResult& r) {
  json::object o;
  o["scenario"] = text(r.scenario);
  o["file"] = text(r.file);
  o["started_at"] = text(r.started_at);
  o["host"] = text(r.host);
  o["threads"] = r.threads;
  o["cpu_policy"] = text(r.cpu_policy);
  o["ranks"] = r.ranks;
  o["duration_ms"] = ms(r.duration);
  o["window"] = json::object{{"start_ms", ms(r.window_start)}, {"end_ms", ms(r.window_end)}};
  o["interrupts"] = r.interrupts;
  if (!r.lost_ranks.empty()) {  // only distributed runs that lost a rank have it
    json::array lost;
    for (const auto& l : r.lost_ranks)
      lost.push_back(json::object{{"rank", l.rank}, {"at_ms", ms(l.at)}, {"reason", text(l.reason)}});
    o["lost_ranks"] = std::move(lost);
  }
  o["passed"] = r.passed();
  o["verdict"] = r.verdict();
  o["reason"] = text(r.reason());
  o["options"] = options_json(r.options);
  metrics_json(r.metrics, o);
  json::array thresholds;
  for (const auto& t : r.thresholds) thresholds.push_back(threshold_result_json(t));
  o["thresholds"] = std::move(thresholds);
  json::array errors;
  for (const auto& e : r.iteration_errors) {
    json::object error{{"message", text(e.message)}, {"count", e.count}};
    if (!e.example.empty()) error["example"] = text(e.example);
    errors.push_back(std::move(error));
  }
  o["iteration_errors"] = std::move(errors);
  o["requests"] = tally_json(r.requests, true);
  json::array timeline;
  for (const SecondResult& s : r.timeline) timeline.push_back(second_json(s));
  o["timeline"] = std::move(timeline);
  if (r.generator) o["generator"] = generator_json(*r.generator);
  if (r.find_limit) o["find_limit"] = find_limit_json(*r.find_limit);
  return o;
}

}  // namespace

const char* load_model_name(LoadModel model) { return model == LoadModel::Rate ? "rate" : "vus"; }

const char* aggregation_unit_name(metrics::AggregationUnit unit) {
  switch (unit) {
    case metrics::AggregationUnit::Milliseconds: return "ms";
    case metrics::AggregationUnit::Count: return "count";
    case metrics::AggregationUnit::PerSecond: return "per_second";
    case metrics::AggregationUnit::Ratio: return "ratio";
  }
  return "count";
}

json::object second_json(const SecondResult& s) {
  json::object o;
  o["second"] = s.second;
  o["vus"] = json_number(s.vus);
  o["iterations"] = s.iterations;
  o["errors"] = s.errors;
  o["dropped"] = s.dropped;
  o["cpu_cores"] = s.cpu_cores ? json_number(*s.cpu_cores) : nullptr;
  o["requests"] = tally_json(s.requests, false);
  metrics_json(s.metrics, o);
  return o;
}

std::string second_json_line(std::string_view scenario, const SecondResult& second) {
  json::object o;
  o["scenario"] = text(scenario);
  for (auto& [key, value] : second_json(second)) o[key] = std::move(value);
  return json::serialize(o) + '\n';
}

std::string results_json(const RunResult& run) {
  json::object o;
  o["version"] = run.version;
  o["tool"] = json::object{{"name", text(run.tool.name)}, {"version", text(run.tool.version)}, {"commit", text(run.tool.commit)}};
  o["complete"] = run.complete;
  o["passed"] = run.passed();
  o["verdict"] = run.verdict();
  o["reason"] = text(run.reason());
  json::array results;
  for (const ScenarioResult& r : run.results) results.push_back(scenario_json(r));
  o["results"] = std::move(results);
  return json::serialize(o);
}

}  // namespace stampede::report
