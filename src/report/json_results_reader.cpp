#include "report/json_results_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <fmt/format.h>

#include "report/find_limit_json.hpp"
#include "report/find_limit_table.hpp"
#include "report/json_results.hpp"

namespace stampede::report {

namespace json = boost::json;

namespace {

// A JSON value with the path that leads to it, so every error says where it is.
class Node {
 public:
  Node(const json::value& value, std::string path) : value_(value), path_(std::move(path)) {}

  [[noreturn]] void fail(std::string_view what) const {
    throw ResultsFormatError(fmt::format("{}: {}", path_.empty() ? "(top)" : path_, what));
  }

  const json::object& object() const {
    if (!value_.is_object()) fail("expected an object");
    return value_.get_object();
  }
  const json::array& array() const {
    if (!value_.is_array()) fail("expected an array");
    return value_.get_array();
  }

  Node at(std::string_view key) const {
    const std::string path = path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
    const json::value* v = object().if_contains(key);
    if (v == nullptr) Node(value_, path).fail("missing");
    return Node(*v, path);
  }
  bool has(std::string_view key) const { return object().contains(key); }
  Node index(std::size_t i) const { return Node(array()[i], fmt::format("{}[{}]", path_, i)); }
  Node member(std::string_view key, const json::value& v) const {
    return Node(v, fmt::format("{}[\"{}\"]", path_, key));
  }

  bool is_null() const { return value_.is_null(); }
  std::string string() const {
    if (!value_.is_string()) fail("expected a string");
    return std::string(value_.get_string());
  }
  bool boolean() const {
    if (!value_.is_bool()) fail("expected true or false");
    return value_.get_bool();
  }
  double number() const {
    if (value_.is_double()) return value_.get_double();
    if (value_.is_int64()) return static_cast<double>(value_.get_int64());
    if (value_.is_uint64()) return static_cast<double>(value_.get_uint64());
    fail("expected a number");
  }
  // Null reads as `fallback` (figures that could not be computed).
  double number_or(double fallback) const { return is_null() ? fallback : number(); }
  std::uint64_t count() const {
    if (value_.is_uint64()) return value_.get_uint64();
    if (value_.is_int64() && value_.get_int64() >= 0) return static_cast<std::uint64_t>(value_.get_int64());
    fail("expected a whole number >= 0");
  }
  std::int64_t integer() const {
    if (value_.is_int64()) return value_.get_int64();
    if (value_.is_uint64() && value_.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
      return static_cast<std::int64_t>(value_.get_uint64());
    fail("expected a whole number");
  }
  // Milliseconds in the file, nanoseconds in the model.
  Nanos nanos() const { return static_cast<Nanos>(std::llround(number() * 1e6)); }
  Nanos nanos_or_zero() const { return is_null() ? 0 : nanos(); }

 private:
  const json::value& value_;
  std::string path_;
};

metrics::Kind kind_named(const Node& n) {
  const std::string kind = n.string();
  if (kind == "timing") return metrics::Kind::Timing;
  if (kind == "counter") return metrics::Kind::Counter;
  if (kind == "gauge") return metrics::Kind::Gauge;
  if (kind == "distribution") return metrics::Kind::Distribution;
  n.fail("expected \"timing\", \"counter\", \"gauge\" or \"distribution\"");
}

MetricFigures read_metric(const std::string& name, const Node& n) {
  MetricFigures f;
  f.name = name;
  f.kind = kind_named(n.at("kind"));
  switch (f.kind) {
    case metrics::Kind::Timing:
      f.count = n.at("count").count();
      f.rate = n.at("rate").number_or(0);
      f.present = f.count > 0;
      f.mean = n.at("mean_ms").number_or(0) * 1e6;
      f.min = n.at("min_ms").nanos_or_zero();
      f.p50 = n.at("p50_ms").nanos_or_zero();
      f.p90 = n.at("p90_ms").nanos_or_zero();
      f.p95 = n.at("p95_ms").nanos_or_zero();
      f.p99 = n.at("p99_ms").nanos_or_zero();
      f.max = n.at("max_ms").nanos_or_zero();
      break;
    case metrics::Kind::Distribution: {
      f.count = n.at("count").count();
      f.rate = n.at("rate").number_or(0);
      f.present = f.count > 0;
      f.mean = n.at("mean").number_or(0);
      const auto value = [&n](const char* key) { return static_cast<Nanos>(std::llround(n.at(key).number_or(0))); };
      f.min = value("min");
      f.p50 = value("p50");
      f.p90 = value("p90");
      f.p95 = value("p95");
      f.p99 = value("p99");
      f.max = value("max");
      break;
    }
    case metrics::Kind::Counter: {
      f.count = n.at("count").count();
      f.rate = n.at("rate").number_or(0);
      f.present = f.count > 0;
      const Node reasons = n.at("reasons");
      const bool has_examples = n.has("examples");
      for (const auto& [reason, count] : reasons.object()) {
        std::string example;
        if (has_examples && n.at("examples").has(reason)) example = n.at("examples").at(reason).string();
        f.reasons.push_back({std::string(reason), reasons.member(reason, count).count(), std::move(example)});
      }
      std::stable_sort(f.reasons.begin(), f.reasons.end(),
                       [](const ReasonCount& a, const ReasonCount& b) { return a.count > b.count; });
      break;
    }
    case metrics::Kind::Gauge:
      f.present = !n.at("last").is_null();
      f.gauge_max = n.at("max").number_or(0);
      f.gauge_last = n.at("last").number_or(0);
      break;
    case metrics::Kind::Check: break;
  }
  return f;
}

MetricFigures read_check(const std::string& name, const Node& n) {
  MetricFigures f;
  f.name = name;
  f.kind = metrics::Kind::Check;
  f.passes = n.at("passes").count();
  f.fails = n.at("fails").count();
  f.count = f.passes + f.fails;
  f.present = f.count > 0;
  return f;
}

// "metrics" and "checks" of `n`, together and sorted by name, as in the model.
std::vector<MetricFigures> read_metrics(const Node& n) {
  std::vector<MetricFigures> out;
  const Node metrics_node = n.at("metrics");
  for (const auto& [name, value] : metrics_node.object())
    out.push_back(read_metric(std::string(name), metrics_node.member(name, value)));
  const Node checks = n.at("checks");
  for (const auto& [name, value] : checks.object())
    out.push_back(read_check(std::string(name), checks.member(name, value)));
  std::sort(out.begin(), out.end(), [](const MetricFigures& a, const MetricFigures& b) { return a.name < b.name; });
  return out;
}

metrics::RequestTally read_tally(const Node& n) {
  return {n.at("sent").count(), n.at("completed").count(), n.at("failed").count()};
}

metrics::ThresholdSpec read_threshold_spec(const Node& n) {
  return {n.at("metric").string(), n.at("aggregation").string(), n.at("limit").number_or(0), n.at("source").string()};
}

metrics::ThresholdResult read_threshold_result(const Node& n) {
  metrics::ThresholdResult t;
  t.spec = read_threshold_spec(n);
  t.pass = n.at("pass").boolean();
  t.judged = n.at("judged").boolean();
  t.value = n.at("value").number_or(0);
  t.message = n.at("message").string();
  return t;
}

RunOptions read_options(const Node& n) {
  RunOptions o;
  const std::string model = n.at("model").string();
  if (model != load_model_name(LoadModel::Vus) && model != load_model_name(LoadModel::Rate))
    n.at("model").fail("expected \"vus\" or \"rate\"");
  o.shape.model = model == "rate" ? LoadModel::Rate : LoadModel::Vus;
  o.shape.start = n.at("start").number_or(0);
  const Node stages = n.at("stages");
  for (std::size_t i = 0; i < stages.array().size(); ++i) {
    const Node st = stages.index(i);
    o.shape.stages.push_back({st.at("duration_ms").nanos(), st.at("target").number_or(0)});
  }
  o.shape.max_vus = static_cast<int>(n.at("max_vus").integer());
  o.shape.graceful_stop = n.at("graceful_stop_ms").nanos();
  const Node thresholds = n.at("thresholds");
  for (std::size_t i = 0; i < thresholds.array().size(); ++i)
    o.thresholds.push_back(read_threshold_spec(thresholds.index(i)));
  return o;
}

SecondResult read_second(const Node& n) {
  SecondResult s;
  s.second = n.at("second").integer();
  s.vus = n.at("vus").number_or(0);
  s.iterations = n.at("iterations").count();
  s.errors = n.at("errors").count();
  s.dropped = n.at("dropped").count();
  if (!n.at("cpu_cores").is_null()) s.cpu_cores = n.at("cpu_cores").number();
  s.requests = read_tally(n.at("requests"));
  s.metrics = read_metrics(n);
  return s;
}

ScenarioResult read_scenario(const Node& n) {
  ScenarioResult r;
  r.scenario = n.at("scenario").string();
  r.file = n.at("file").string();
  r.started_at = n.at("started_at").string();
  r.host = n.at("host").string();
  r.threads = static_cast<int>(n.at("threads").integer());
  if (n.has("cpu_policy")) r.cpu_policy = n.at("cpu_policy").string();  // files before it was recorded: normal
  r.ranks = static_cast<int>(n.at("ranks").integer());
  r.duration = n.at("duration_ms").nanos();
  r.window_start = n.at("window").at("start_ms").nanos();
  r.window_end = n.at("window").at("end_ms").nanos();
  r.interrupts = static_cast<int>(n.at("interrupts").integer());
  if (n.has("lost_ranks")) {
    const Node lost = n.at("lost_ranks");
    for (std::size_t i = 0; i < lost.array().size(); ++i) {
      const Node l = lost.index(i);
      r.lost_ranks.push_back({static_cast<int>(l.at("rank").integer()), l.at("at_ms").nanos(), l.at("reason").string()});
    }
  }
  r.options = read_options(n.at("options"));
  r.metrics = read_metrics(n);
  const Node thresholds = n.at("thresholds");
  for (std::size_t i = 0; i < thresholds.array().size(); ++i)
    r.thresholds.push_back(read_threshold_result(thresholds.index(i)));
  const Node errors = n.at("iteration_errors");
  for (std::size_t i = 0; i < errors.array().size(); ++i) {
    const Node e = errors.index(i);
    r.iteration_errors.push_back(
        {e.at("message").string(), e.at("count").count(), e.has("example") ? e.at("example").string() : std::string()});
  }
  r.requests = read_tally(n.at("requests"));
  const Node timeline = n.at("timeline");
  for (std::size_t i = 0; i < timeline.array().size(); ++i) r.timeline.push_back(read_second(timeline.index(i)));
  // Optional sections (files from before they existed have none).
  for (const char* key : {"generator", "find_limit"}) {
    if (!n.has(key) || n.at(key).is_null()) continue;
    const Node section = n.at(key);
    try {
      if (std::string_view(key) == "generator") {
        r.generator = read_generator_json(section.object());
      } else {
        r.find_limit = read_find_limit_json(section.object());
      }
    } catch (const ResultsFormatError&) {
      throw;
    } catch (const std::exception& e) {
      section.fail(e.what());
    }
  }
  // Files written before a find-limit run carried its thresholds have none at the top:
  // they are the deciding step's (verdict_step), which the file holds.
  if (r.find_limit && r.thresholds.empty())
    if (const FindLimitStep* decided = verdict_step(*r.find_limit)) r.thresholds = decided->thresholds;
  return r;
}

}  // namespace

RunResult read_results_json(std::string_view text) {
  boost::system::error_code ec;
  const json::value doc = json::parse(text, ec);
  if (ec) throw ResultsFormatError(fmt::format("not JSON: {}", ec.message()));
  const Node root(doc, "");
  if (!doc.is_object() || !root.has("version") || !root.has("results"))
    throw ResultsFormatError("not a Stampede results file (no \"version\" and \"results\")");
  RunResult run;
  run.version = static_cast<int>(root.at("version").integer());
  if (run.version != kResultsSchemaVersion)
    throw ResultsFormatError(fmt::format("results file version {}; this stampede reads version {}", run.version,
                                         kResultsSchemaVersion));
  const Node tool = root.at("tool");
  run.tool = {tool.at("name").string(), tool.at("version").string(), tool.at("commit").string()};
  // Files from before checkpoints (cli/results_checkpoint.hpp) were always complete.
  if (root.has("complete")) run.complete = root.at("complete").boolean();
  if (!run.complete && root.has("reason")) run.incomplete_reason = root.at("reason").string();
  const Node results = root.at("results");
  for (std::size_t i = 0; i < results.array().size(); ++i) run.results.push_back(read_scenario(results.index(i)));
  return run;
}

}  // namespace stampede::report
