#include "report/server_signals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "report/run_result_builder.hpp"
#include "report/units.hpp"

namespace stampede::report {

namespace {

constexpr std::string_view kPrefix = "server.";

std::string_view family_of(std::string_view name) { return name.substr(0, name.find('{')); }
bool has_labels(std::string_view name) { return name.find('{') != std::string_view::npos; }
bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }
bool has_label(std::string_view name, std::string_view label_and_value) {
  return contains(name.substr(name.find('{') == std::string_view::npos ? name.size() : name.find('{')), label_and_value);
}

// ---------------------------------------------------------------------------------------
// Which series each signal is read from.

bool is_run_queue(std::string_view family) { return contains(family, "run_queue"); }
bool is_utilization(std::string_view family) {
  return contains(family, "scheduler") && contains(family, "utilization");
}
bool is_memory(std::string_view family) {
  return (contains(family, "memory") && !contains(family, "limit")) || family == "server.process_resident_memory_bytes";
}
bool is_ecto_queue(std::string_view family) {
  return (contains(family, "ecto") || contains(family, "repo")) && contains(family, "queue");
}
bool is_handler(std::string_view family) {
  const bool live = (contains(family, "live_view") || contains(family, "live_component")) &&
                    (contains(family, "handle_event") || contains(family, "handle_params") || contains(family, "mount"));
  const bool channel = contains(family, "channel") && (contains(family, "handled_in") || contains(family, "join"));
  return (live || channel) && !contains(family, "exception");
}
bool is_schedulers_online(std::string_view family) { return contains(family, "schedulers_online"); }
// Requests the server has received and not answered yet: the built-in target's
// stampede_target_http_requests_in_flight, OpenTelemetry's http.server.active_requests,
// the common http_requests_in_flight / _inprogress gauges. Not Go's
// promhttp_metric_handler_requests_in_flight: that counts scrapes of /metrics only.
bool is_in_flight(std::string_view family) {
  const bool in_flight = contains(family, "in_flight") || contains(family, "inflight") ||
                         contains(family, "inprogress") || contains(family, "active_requests");
  return in_flight && contains(family, "request") && !contains(family, "metric_handler");
}
int in_flight_rank(std::string_view name) { return has_labels(name) ? 1 : 0; }  // the total before one route's

// Lower ranks are preferred as the one series a gauge signal is read from.
int run_queue_rank(std::string_view name) {
  // The total (Stampede.Probe's erlang_vm_run_queues_length, telemetry_poller's
  // vm_total_run_queue_lengths_total) before one queue of many.
  const std::string_view family = family_of(name);
  return (has_labels(name) ? 2 : 0) + (contains(family, "queues") || contains(family, "total") ? 0 : 1);
}
int utilization_rank(std::string_view name) {
  if (has_label(name, "type=\"normal\"")) return 0;  // all normal schedulers together (the probe's)
  if (!has_labels(name)) return 1;
  return 2;
}
int memory_rank(std::string_view name) {
  const std::string_view family = family_of(name);
  if (has_label(name, "kind=\"total\"") || has_label(name, "type=\"total\"")) return 0;  // the probe's
  if (contains(family, "allocated") || family == "server.vm_memory_total") return 1;   // PromEx, telemetry_poller
  if (family == "server.process_resident_memory_bytes") return 3;                       // the process, not the BEAM
  return has_labels(name) ? 4 : 2;
}

struct Reading {
  std::optional<double> value;
  std::string metric;
};

// A gauge signal at one step: the preferred series' highest level over the hold.
template <typename IsFamily, typename Rank>
Reading gauge_signal(const std::vector<MetricFigures>& server, IsFamily is_family, Rank rank) {
  const MetricFigures* best = nullptr;
  for (const MetricFigures& f : server) {
    if (f.kind != metrics::Kind::Gauge || !f.present || !is_family(family_of(f.name))) continue;
    if (best == nullptr || rank(f.name) < rank(best->name) ||
        (rank(f.name) == rank(best->name) && f.name.size() < best->name.size()))
      best = &f;
  }
  if (best == nullptr) return {};
  return {best->gauge_max, best->name};
}

double p95_of(const MetricFigures& f) {
  return f.kind == metrics::Kind::Timing ? static_cast<double>(f.p95) / 1e6 : static_cast<double>(f.p95);
}

// A histogram signal at one step: the p95 of the family as a whole when there is one (the
// sampler records it for labelled families), else of the worst series (`worst`), else the first.
template <typename IsFamily>
Reading histogram_signal(const std::vector<MetricFigures>& server, IsFamily is_family, bool worst) {
  const MetricFigures* best = nullptr;
  for (const MetricFigures& f : server) {
    const bool histogram = f.kind == metrics::Kind::Timing || f.kind == metrics::Kind::Distribution;
    if (!histogram || f.count == 0 || !is_family(family_of(f.name))) continue;
    if (best == nullptr) {
      best = &f;
    } else if (worst) {
      if (has_labels(f.name) && (!has_labels(best->name) || p95_of(f) > p95_of(*best))) best = &f;
    } else if (!has_labels(f.name) && has_labels(best->name)) {
      best = &f;
    }
  }
  if (best == nullptr) return {};
  return {p95_of(*best), best->name};
}

// ---------------------------------------------------------------------------------------
// When a signal broke.

struct SignalSpec {
  std::string_view key;
  std::string_view title;
  std::string_view label;  // in the sentence: "the BEAM run queue"
  std::string_view aggregation;
};

constexpr SignalSpec kSignals[] = {
    {"run_queue", "run queue max", "the BEAM run queue", "max"},
    {"scheduler_utilization", "schedulers busy max", "the schedulers' utilization", "max"},
    {"ecto_queue", "Ecto queue p95", "the Ecto queue time p95", "p95"},
    {"memory", "memory max", "memory", "max"},
    {"handler", "slowest handler p95", "the slowest handler's p95", "p95"},
    // Last: requests piling up is what any of the causes above looks like from outside.
    {"in_flight", "requests in flight max", "the requests in flight", "max"},
};

constexpr double kSaturatedUtilization = 0.9;
constexpr double kEctoQueueTargetMs = 50;  // DBConnection's default queue_target

bool jumped(std::string_view key, double before, double after) {
  if (key == "memory") return after >= 2 * before && after - before >= 100e6;
  // A utilization that rises with the load is the load: only its line (90%) means trouble.
  if (key == "scheduler_utilization") return false;
  const double floor = key == "run_queue" || key == "handler" || key == "in_flight" ? 10 : 5;
  return after >= 3 * before && after - before >= floor;
}

// Past a line that means trouble whatever the app (not for memory and handlers: theirs
// depends on the app).
bool over_the_line(std::string_view key, double value, std::optional<double> schedulers) {
  if (key == "scheduler_utilization") return value >= kSaturatedUtilization;
  if (key == "ecto_queue") return value >= kEctoQueueTargetMs;
  if (key == "run_queue") return schedulers && value > *schedulers;
  return false;
}

std::string unit_of(std::string_view key, bool timing) {
  if (key == "run_queue" || key == "in_flight") return "count";
  if (key == "scheduler_utilization") return "ratio";
  if (key == "memory") return "bytes";
  return timing ? "ms" : "number";
}

}  // namespace

std::string format_signal(const std::string& unit, double value) {
  if (unit == "ratio") return fmt::format("{:.0f}%", value * 100);
  if (unit == "bytes") return format_bytes(value);
  if (unit == "ms") return format_nanos(static_cast<Nanos>(std::llround(value * 1e6)));
  if (unit == "count") return fmt::format("{:.0f}", value);
  return format_number(value);
}

std::vector<MetricFigures> server_figures(const metrics::MetricTable& table, double seconds) {
  std::vector<MetricFigures> out;
  for (const metrics::NamedMetric& m : table) {
    if (std::string_view(m.name).starts_with(kPrefix)) out.push_back(figures_of(m, seconds));
  }
  return out;
}

ServerBreakdown what_broke_first(const std::vector<ServerStepFigures>& steps, std::optional<std::size_t> failing_step) {
  ServerBreakdown out;
  // Steps in level order, as the staircase and the refine probes went.
  std::vector<std::size_t> by_level(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) by_level[i] = i;
  std::stable_sort(by_level.begin(), by_level.end(), [&](std::size_t a, std::size_t b) { return steps[a].level < steps[b].level; });
  if (!failing_step) {
    for (const std::size_t i : by_level) {
      if (steps[i].status == "fail") {
        failing_step = i;
        break;
      }
    }
  }

  // Read every signal at every step.
  for (const SignalSpec& spec : kSignals) {
    ServerSignalColumn column;
    column.key = spec.key;
    column.title = spec.title;
    column.aggregation = spec.aggregation;
    bool timing = false;
    for (const ServerStepFigures& step : steps) {
      Reading r;
      if (spec.key == "run_queue") r = gauge_signal(step.server, is_run_queue, run_queue_rank);
      if (spec.key == "scheduler_utilization") r = gauge_signal(step.server, is_utilization, utilization_rank);
      if (spec.key == "memory") r = gauge_signal(step.server, is_memory, memory_rank);
      if (spec.key == "ecto_queue") r = histogram_signal(step.server, is_ecto_queue, /*worst=*/false);
      if (spec.key == "handler") r = histogram_signal(step.server, is_handler, /*worst=*/true);
      if (spec.key == "in_flight") r = gauge_signal(step.server, is_in_flight, in_flight_rank);
      if (r.value && spec.key == "scheduler_utilization" && *r.value > 1.5) *r.value /= 100;  // a percentage
      column.values.push_back(r.value);
      if (!r.metric.empty()) {
        for (const MetricFigures& f : step.server) {
          if (f.name == r.metric) timing = timing || f.kind == metrics::Kind::Timing;
        }
        // The handler column names the slowest one where it matters most: at the failing step.
        if (column.metric.empty() || spec.key != "handler" || (failing_step && &step == &steps[*failing_step]))
          column.metric = r.metric;
      }
    }
    if (column.metric.empty()) continue;  // the endpoint has nothing for this signal
    column.unit = unit_of(spec.key, timing);
    out.columns.push_back(std::move(column));
  }
  if (!failing_step || *failing_step >= steps.size()) return out;

  const auto schedulers_at = [&](std::size_t i) -> std::optional<double> {
    Reading r = gauge_signal(steps[i].server, is_schedulers_online, utilization_rank);
    return r.value;
  };
  // A failed threshold on the column's series (or, for the handler, on any handler series).
  const auto threshold_failed = [&](const ServerSignalColumn& c, std::size_t i) -> const metrics::ThresholdResult* {
    for (const metrics::ThresholdResult& t : steps[i].thresholds) {
      if (t.pass || !t.judged) continue;
      if (t.spec.metric == c.metric || family_of(t.spec.metric) == family_of(c.metric)) return &t;
    }
    return nullptr;
  };

  // For each column: the lowest level from which it stayed broken up to the failing step.
  const std::size_t f = *failing_step;
  const auto f_pos = static_cast<std::size_t>(std::find(by_level.begin(), by_level.end(), f) - by_level.begin());
  struct Broke {
    std::size_t column;
    std::size_t from_pos;  // position in by_level
    const metrics::ThresholdResult* threshold;
  };
  std::optional<Broke> first;
  for (std::size_t c = 0; c < out.columns.size(); ++c) {
    const ServerSignalColumn& col = out.columns[c];
    const auto value_at = [&](std::size_t pos) { return col.values[by_level[pos]]; };
    if (!value_at(f_pos)) continue;
    const auto broken_at = [&](std::size_t pos) -> bool {
      const std::optional<double> v = value_at(pos);
      if (!v) return false;
      if (threshold_failed(col, by_level[pos]) != nullptr) return true;
      if (over_the_line(col.key, *v, schedulers_at(by_level[pos]))) return true;
      // Moved sharply from the nearest lower level that has a value.
      for (std::size_t p = pos; p-- > 0;) {
        if (const std::optional<double> before = value_at(p)) return jumped(col.key, *before, *v);
      }
      return false;
    };
    if (!broken_at(f_pos)) continue;
    // Back from the failing step while the signal stays broken, or stays at least as high as
    // where it first moved (a jump is a move between two steps; what follows need not jump again).
    std::size_t from = f_pos;
    while (from > 0) {
      const std::optional<double> before = value_at(from - 1);
      if (!before || !broken_at(from - 1) || *before > *value_at(f_pos)) break;
      --from;
    }
    const metrics::ThresholdResult* threshold = threshold_failed(col, by_level[f_pos]);
    // Earlier is first; at the same level, a failed threshold (the user's own line), then the
    // order of kSignals.
    const bool better = !first || from < first->from_pos ||
                        (from == first->from_pos && threshold != nullptr && first->threshold == nullptr);
    if (better) first = Broke{c, from, threshold};
  }
  if (!first) return out;

  out.first = first->column;
  const ServerSignalColumn& col = out.columns[first->column];
  const std::string to = format_signal(col.unit, *col.values[f]);
  // From where it was before it moved: the step below the first broken one, if measured.
  std::optional<double> before;
  if (first->from_pos > 0) before = col.values[by_level[first->from_pos - 1]];
  const SignalSpec& spec = *std::find_if(std::begin(kSignals), std::end(kSignals),
                                         [&](const SignalSpec& s) { return s.key == col.key; });
  std::string what = before ? fmt::format("{} went from {} to {}", spec.label, format_signal(col.unit, *before), to)
                            : fmt::format("{} was {}", spec.label, to);
  if (col.key == "handler") what += fmt::format(" ({})", col.metric);
  std::string why;
  if (first->threshold != nullptr) {
    why = fmt::format("over its threshold, {} {} <= {}", first->threshold->spec.metric,
                      first->threshold->spec.aggregation, format_number(first->threshold->spec.limit));
  } else if (col.key == "run_queue") {
    const std::optional<double> schedulers = schedulers_at(f);
    why = schedulers ? fmt::format("the schedulers were saturated (more processes ready to run than its {:.0f} "
                                   "schedulers)",
                                   *schedulers)
                     : "the schedulers were saturated";
  } else if (col.key == "scheduler_utilization") {
    why = "the BEAM ran out of CPU";
  } else if (col.key == "ecto_queue") {
    why = "requests waited for a database connection: the Ecto pool was too small, or the database too slow";
  } else if (col.key == "memory") {
    why = "the app held more memory per user than it could afford";
  } else if (col.key == "in_flight") {
    why = "the server answered slower than requests arrived, and they piled up";
  } else {
    why = "the app's own handler code could not keep up";
  }
  out.verdict = what + ": " + why;
  return out;
}

}  // namespace stampede::report
