#include "report/find_limit_json.hpp"

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <cmath>
#include <stdexcept>

#include "report/json_number.hpp"
#include "report/json_results.hpp"

namespace stampede::report {

namespace json = boost::json;

namespace {

json::value optional_ms(std::optional<Nanos> ns) {
  if (!ns) return nullptr;
  return json_number(static_cast<double>(*ns) / 1e6);
}

double read_number(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return 0;
  return v->to_number<double>();
}
std::optional<Nanos> read_ms(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return static_cast<Nanos>(std::llround(v->to_number<double>() * 1e6));
}
std::string read_string(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}
bool read_bool(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_bool() && v->get_bool();
}

metrics::ThresholdResult read_threshold(const json::object& o) {
  metrics::ThresholdResult t;
  t.spec.metric = read_string(o, "metric");
  t.spec.aggregation = read_string(o, "aggregation");
  t.spec.limit = read_number(o, "limit");
  t.spec.source = read_string(o, "source");
  t.pass = read_bool(o, "pass");
  t.judged = read_bool(o, "judged");
  t.value = read_number(o, "value");
  t.message = read_string(o, "message");
  if (t.judged && read_string(o, "unit") == "count" &&
      metrics::aggregation_unit(t.spec.aggregation) != metrics::AggregationUnit::Count)
    t.unit = metrics::AggregationUnit::Count;  // a gauge's max
  return t;
}

}  // namespace

json::object generator_json(const GeneratorFigures& g) {
  json::object o;
  o["cpu_percent_mean"] = json_number(g.cpu_mean);
  o["cpu_percent_peak"] = json_number(g.cpu_peak);
  o["loop_delay_p99_ms"] = optional_ms(g.loop_delay_p99);
  o["loop_delay_max_ms"] = optional_ms(g.loop_delay_max);
  o["iteration_lag_p99_ms"] = optional_ms(g.lag_p99);
  o["dropped_iterations"] = g.dropped;
  o["open_files_peak"] = json_number(g.fds_peak);
  o["open_files_limit"] = g.fds_limit > 0 ? json_number(g.fds_limit) : nullptr;
  o["bottleneck"] = g.bottleneck;
  o["verdict"] = g.verdict;
  o["cpu_wait_percent"] = g.cpu_wait ? json_number(*g.cpu_wait) : nullptr;
  if (!g.setup.empty()) o["setup"] = g.setup;
  return o;
}

json::object find_limit_json(const FindLimitResult& r) {
  json::object o;
  o["by"] = r.by;
  o["start"] = json_number(r.start);
  o["step"] = json_number(r.step);
  o["up_to"] = json_number(r.up_to);
  o["ramp_ms"] = optional_ms(r.ramp);
  o["hold_ms"] = optional_ms(r.hold);
  o["refine"] = r.refine;
  o["resolution"] = r.refine ? json_number(r.resolution) : nullptr;
  o["limit"] = r.limit ? json_number(*r.limit) : nullptr;
  o["failed_at"] = r.failed_at ? json_number(*r.failed_at) : nullptr;
  o["broke"] = r.broke;
  o["reached_up_to"] = r.reached_up_to;
  o["inconclusive"] = r.inconclusive;
  o["verdict"] = r.verdict;
  json::array steps;
  for (const FindLimitStep& s : r.steps) {
    json::object step;
    step["level"] = json_number(s.level);
    step["refine"] = s.refine;
    step["hold"] = json::object{{"start_ms", optional_ms(s.hold_start)}, {"end_ms", optional_ms(s.hold_end)}};
    step["status"] = s.status;
    json::array thresholds;
    for (const auto& t : s.thresholds) thresholds.push_back(threshold_result_object(t));
    step["thresholds"] = std::move(thresholds);
    step["generator"] = s.generator ? json::value(generator_json(*s.generator)) : json::value(nullptr);
    steps.push_back(std::move(step));
  }
  o["steps"] = std::move(steps);
  if (r.server) {
    json::object server;
    json::array columns;
    for (const ServerSignalColumn& c : r.server->columns) {
      json::array values;
      for (const std::optional<double>& v : c.values) values.push_back(v ? json_number(*v) : json::value(nullptr));
      columns.push_back(json::object{{"key", c.key},
                                     {"title", c.title},
                                     {"metric", c.metric},
                                     {"aggregation", c.aggregation},
                                     {"unit", c.unit},
                                     {"values", std::move(values)}});
    }
    server["columns"] = std::move(columns);
    server["first"] = r.server->first ? json::value(r.server->columns[*r.server->first].key) : json::value(nullptr);
    server["verdict"] = r.server->verdict;
    o["server"] = std::move(server);
  }
  return o;
}

GeneratorFigures read_generator_json(const json::object& o) {
  GeneratorFigures g;
  g.cpu_mean = read_number(o, "cpu_percent_mean");
  g.cpu_peak = read_number(o, "cpu_percent_peak");
  g.loop_delay_p99 = read_ms(o, "loop_delay_p99_ms");
  g.loop_delay_max = read_ms(o, "loop_delay_max_ms");
  g.lag_p99 = read_ms(o, "iteration_lag_p99_ms");
  g.dropped = static_cast<std::uint64_t>(read_number(o, "dropped_iterations"));
  g.fds_peak = read_number(o, "open_files_peak");
  g.fds_limit = read_number(o, "open_files_limit");
  g.bottleneck = read_bool(o, "bottleneck");
  g.verdict = read_string(o, "verdict");
  // Files from before these fields have neither.
  if (const auto* wait = o.if_contains("cpu_wait_percent"); wait != nullptr && wait->is_number())
    g.cpu_wait = wait->to_number<double>();
  if (o.contains("setup")) g.setup = read_string(o, "setup");
  return g;
}

FindLimitResult read_find_limit_json(const json::object& o) {
  FindLimitResult r;
  r.by = read_string(o, "by");
  r.start = read_number(o, "start");
  r.step = read_number(o, "step");
  r.up_to = read_number(o, "up_to");
  r.ramp = read_ms(o, "ramp_ms").value_or(0);
  r.hold = read_ms(o, "hold_ms").value_or(0);
  r.refine = read_bool(o, "refine");
  r.resolution = read_number(o, "resolution");
  if (const auto* v = o.if_contains("limit"); v != nullptr && !v->is_null()) r.limit = v->to_number<double>();
  if (const auto* v = o.if_contains("failed_at"); v != nullptr && !v->is_null()) r.failed_at = v->to_number<double>();
  r.broke = read_string(o, "broke");
  r.reached_up_to = read_bool(o, "reached_up_to");
  r.inconclusive = read_bool(o, "inconclusive");
  r.verdict = read_string(o, "verdict");
  if (const auto* steps = o.if_contains("steps"); steps != nullptr && steps->is_array()) {
    for (const auto& v : steps->get_array()) {
      const json::object& so = v.as_object();
      FindLimitStep s;
      s.level = read_number(so, "level");
      s.refine = read_bool(so, "refine");
      if (const auto* hold = so.if_contains("hold"); hold != nullptr && hold->is_object()) {
        s.hold_start = read_ms(hold->get_object(), "start_ms").value_or(0);
        s.hold_end = read_ms(hold->get_object(), "end_ms").value_or(0);
      }
      s.status = read_string(so, "status");
      if (const auto* ts = so.if_contains("thresholds"); ts != nullptr && ts->is_array())
        for (const auto& t : ts->get_array()) s.thresholds.push_back(read_threshold(t.as_object()));
      if (const auto* g = so.if_contains("generator"); g != nullptr && g->is_object())
        s.generator = read_generator_json(g->get_object());
      r.steps.push_back(std::move(s));
    }
  }
  if (const auto* server = o.if_contains("server"); server != nullptr && server->is_object()) {
    const json::object& so = server->get_object();
    ServerBreakdown b;
    const std::string first = read_string(so, "first");
    if (const auto* columns = so.if_contains("columns"); columns != nullptr && columns->is_array()) {
      for (const auto& v : columns->get_array()) {
        if (!v.is_object()) continue;
        const json::object& co = v.get_object();
        ServerSignalColumn c;
        c.key = read_string(co, "key");
        c.title = read_string(co, "title");
        c.metric = read_string(co, "metric");
        c.aggregation = read_string(co, "aggregation");
        c.unit = read_string(co, "unit");
        if (const auto* values = co.if_contains("values"); values != nullptr && values->is_array())
          for (const auto& x : values->get_array())
            c.values.push_back(x.is_number() ? std::optional<double>(x.to_number<double>()) : std::nullopt);
        if (!first.empty() && c.key == first) b.first = b.columns.size();
        b.columns.push_back(std::move(c));
      }
    }
    b.verdict = read_string(so, "verdict");
    r.server = std::move(b);
  }
  return r;
}

}  // namespace stampede::report
