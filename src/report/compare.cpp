#include "report/compare.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "metrics/names.hpp"
#include "report/text_columns.hpp"
#include "report/units.hpp"

namespace stampede::report {

namespace {

std::optional<double> change_of(double base, double current) {
  if (base == 0) {
    if (current == 0) return 0.0;
    return std::nullopt;
  }
  return (current - base) / base * 100;
}

FigureChange judged_change(std::string metric, std::string figure, FigureUnit unit, double base, double current,
                           bool higher_is_worse, double allowed) {
  FigureChange c{std::move(metric), std::move(figure), unit, base, current, change_of(base, current), true, false};
  if (c.change_percent) {
    const double worse_by = higher_is_worse ? *c.change_percent : -*c.change_percent;
    c.regression = worse_by > allowed;
  } else {
    // From nothing to something: slower without measure when higher is worse.
    c.regression = higher_is_worse;
  }
  return c;
}

bool has_samples(const MetricFigures& m) { return m.kind == metrics::Kind::Timing && m.count > 0; }

void compare_timings(const ScenarioResult& base, const ScenarioResult& current, double allowed,
                     ScenarioComparison& out) {
  for (const MetricFigures& b : base.metrics) {
    if (!has_samples(b)) continue;
    const MetricFigures* c = find_figures(current.metrics, b.name);
    if (c == nullptr || !has_samples(*c)) {
      out.only_in_base.push_back(b.name);
      continue;
    }
    const std::array<std::pair<const char*, Nanos MetricFigures::*>, 3> figures = {
        {{"p50", &MetricFigures::p50}, {"p95", &MetricFigures::p95}, {"p99", &MetricFigures::p99}}};
    for (const auto& [figure, member] : figures) {
      FigureChange change = judged_change(b.name, figure, FigureUnit::Nanos, static_cast<double>(b.*member),
                                          static_cast<double>(c->*member), true, allowed);
      // How late the generator started iterations (or ran its loop) says how busy the
      // generator was, not how fast the application is: shown, never a regression of it.
      if (b.name == metrics::names::kIterationLag || b.name.starts_with("generator."))
        change.judged = change.regression = false;
      out.changes.push_back(std::move(change));
    }
  }
  for (const MetricFigures& c : current.metrics) {
    if (!has_samples(c)) continue;
    const MetricFigures* b = find_figures(base.metrics, c.name);
    if (b == nullptr || !has_samples(*b)) out.only_in_current.push_back(c.name);
  }
}

double iterations_rate(const ScenarioResult& r) {
  const MetricFigures* it = find_figures(r.metrics, metrics::names::kIterations);
  return it != nullptr ? it->rate : 0;
}

// The count of counter `name` per finished iteration: the share of iterations that raised
// for iteration.errors, errors per iteration for the others. A counter the run does not
// have counted nothing. With no finished iteration, errors count as if there were one.
double per_iteration(const ScenarioResult& r, std::string_view name) {
  const MetricFigures* it = find_figures(r.metrics, metrics::names::kIterations);
  const MetricFigures* errors = find_figures(r.metrics, name);
  const std::uint64_t count = errors != nullptr ? errors->count : 0;
  const std::uint64_t iterations = it != nullptr ? it->count : 0;
  return static_cast<double>(count) / static_cast<double>(std::max<std::uint64_t>(iterations, 1));
}

// An error figure, judged in points: worse when it rose by more than `allowed` per 100
// iterations (for the error rate: percentage points).
FigureChange error_change(std::string metric, std::string figure, FigureUnit unit, double base, double current,
                          double allowed) {
  FigureChange c{std::move(metric), std::move(figure), unit, base, current, change_of(base, current), true, false};
  // The margin keeps an exact rise of `allowed` (5 of 50 iterations: 0.1 * 100 is
  // 10.000000000000002) from counting as more than it.
  c.regression = (current - base) * 100 > allowed + 1e-9;
  return c;
}

bool is_error_counter(const MetricFigures& m) {
  return m.kind == metrics::Kind::Counter && m.name.ends_with(".errors") && m.name != metrics::names::kIterationErrors;
}

// Every `*.errors` counter of either run, by name.
std::vector<std::string> error_counters(const ScenarioResult& base, const ScenarioResult& current) {
  std::vector<std::string> names;
  for (const auto* r : {&base, &current})
    for (const MetricFigures& m : r->metrics)
      if (is_error_counter(m)) names.push_back(m.name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

ScenarioComparison compare_scenario(const ScenarioResult& base, const ScenarioResult& current, double allowed) {
  ScenarioComparison out;
  out.base_scenario = base.scenario;
  out.current_scenario = current.scenario;
  compare_timings(base, current, allowed, out);
  out.changes.push_back(judged_change(std::string(metrics::names::kIterations), "rate/s", FigureUnit::PerSecond,
                                      iterations_rate(base), iterations_rate(current), false, allowed));
  const std::string iteration_errors(metrics::names::kIterationErrors);
  out.changes.push_back(error_change(iteration_errors, "error rate", FigureUnit::Ratio,
                                     per_iteration(base, iteration_errors), per_iteration(current, iteration_errors),
                                     allowed));
  for (const std::string& name : error_counters(base, current))
    out.changes.push_back(error_change(name, "per iteration", FigureUnit::PerIteration, per_iteration(base, name),
                                       per_iteration(current, name), allowed));
  return out;
}

const ScenarioResult* find_scenario(const RunResult& run, const std::string& name) {
  for (const ScenarioResult& r : run.results)
    if (r.scenario == name) return &r;
  return nullptr;
}

std::string format_figure(FigureUnit unit, double value) {
  switch (unit) {
    case FigureUnit::Nanos: return format_nanos(static_cast<Nanos>(std::llround(value)));
    case FigureUnit::PerSecond: return fmt::format("{:.2f}", value);
    case FigureUnit::Ratio: return fmt::format("{:.2f}%", value * 100);
    case FigureUnit::PerIteration: return fmt::format("{:.2f}", value);
  }
  return format_number(value);
}

std::string format_change(const FigureChange& c) {
  if (c.unit == FigureUnit::Ratio) return fmt::format("{:+.2f} pts", (c.current - c.base) * 100);
  if (c.unit == FigureUnit::PerIteration) return fmt::format("{:+.2f}", c.current - c.base);
  if (!c.change_percent) return "new";
  return fmt::format("{:+.1f}%", *c.change_percent);
}

std::string verdict_of(const FigureChange& c) {
  if (!c.regression) return "";
  return c.is_error_figure() ? "more errors" : "slower";
}

std::string escape_markdown(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '|' || ch == '\\' || ch == '`' || ch == '*' || ch == '_' || ch == '<' || ch == '>') out += '\\';
    out += ch;
  }
  return out;
}

using Row = std::array<std::string, 6>;

std::vector<Row> rows_of(const ScenarioComparison& s) {
  std::vector<Row> rows;
  for (const FigureChange& c : s.changes) {
    rows.push_back({c.metric, c.figure, format_figure(c.unit, c.base), format_figure(c.unit, c.current),
                    format_change(c), verdict_of(c)});
  }
  return rows;
}

std::string scenario_title(const ScenarioComparison& s) {
  if (s.base_scenario == s.current_scenario) return s.base_scenario;
  return fmt::format("{} vs {}", s.base_scenario, s.current_scenario);
}

void render_text_table(const Comparison& cmp, const ScenarioComparison& s, std::string& out) {
  const Row header = {"metric", "figure", cmp.base_label, cmp.current_label, "change", ""};
  std::vector<Row> rows = rows_of(s);
  std::array<std::size_t, 6> widths{};
  for (std::size_t i = 0; i < widths.size(); ++i) widths[i] = display_width(header[i]);
  for (const Row& r : rows)
    for (std::size_t i = 0; i < widths.size(); ++i) widths[i] = std::max(widths[i], display_width(r[i]));
  const auto line = [&](const Row& r) {
    std::string l = align_left(r[0], widths[0]) + "  " + align_left(r[1], widths[1]);
    for (std::size_t i = 2; i < 5; ++i) l += "  " + align_right(r[i], widths[i]);
    if (!r[5].empty()) l += "  " + r[5];
    return l + '\n';
  };
  out += fmt::format("scenario {}\n", scenario_title(s));
  out += line(header);
  for (const Row& r : rows) out += line(r);
}

void render_markdown_table(const Comparison& cmp, const ScenarioComparison& s, std::string& out) {
  out += fmt::format("### {}\n\n", escape_markdown(scenario_title(s)));
  out += fmt::format("| metric | figure | {} | {} | change | |\n", escape_markdown(cmp.base_label),
                     escape_markdown(cmp.current_label));
  out += "|---|---|---:|---:|---:|---|\n";
  for (const Row& r : rows_of(s)) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", escape_markdown(r[0]), r[1], r[2], r[3], r[4],
                       r[5].empty() ? "" : "**" + r[5] + "**");
  }
  out += '\n';
}

std::string joined(const std::vector<std::string>& names, bool markdown) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += ", ";
    out += markdown ? escape_markdown(n) : n;
  }
  return out;
}

void render_only_in(const std::string& what, const std::string& label, const std::vector<std::string>& names,
                    bool markdown, std::string& out) {
  if (names.empty()) return;
  out += fmt::format("{} only in {}: {}\n", what, markdown ? escape_markdown(label) : label, joined(names, markdown));
  if (markdown) out += '\n';
}

}  // namespace

std::size_t Comparison::regressions() const { return slower() + more_errors(); }

std::size_t Comparison::slower() const {
  std::size_t n = 0;
  for (const ScenarioComparison& s : scenarios)
    for (const FigureChange& c : s.changes) n += c.regression && !c.is_error_figure() ? 1 : 0;
  return n;
}

std::size_t Comparison::more_errors() const {
  std::size_t n = 0;
  for (const ScenarioComparison& s : scenarios)
    for (const FigureChange& c : s.changes) n += c.regression && c.is_error_figure() ? 1 : 0;
  return n;
}

Comparison compare_runs(const RunResult& base, const RunResult& current, double max_regression_percent,
                        std::string base_label, std::string current_label) {
  Comparison cmp;
  cmp.base_label = std::move(base_label);
  cmp.current_label = std::move(current_label);
  cmp.max_regression_percent = max_regression_percent;
  if (base.results.size() == 1 && current.results.size() == 1) {
    cmp.scenarios.push_back(compare_scenario(base.results[0], current.results[0], max_regression_percent));
    return cmp;
  }
  for (const ScenarioResult& b : base.results) {
    if (const ScenarioResult* c = find_scenario(current, b.scenario)) {
      cmp.scenarios.push_back(compare_scenario(b, *c, max_regression_percent));
    } else {
      cmp.scenarios_only_in_base.push_back(b.scenario);
    }
  }
  for (const ScenarioResult& c : current.results)
    if (find_scenario(base, c.scenario) == nullptr) cmp.scenarios_only_in_current.push_back(c.scenario);
  return cmp;
}

std::string render_comparison(const Comparison& cmp, CompareFormat format) {
  const bool markdown = format == CompareFormat::Markdown;
  std::string out;
  for (const ScenarioComparison& s : cmp.scenarios) {
    if (markdown) {
      render_markdown_table(cmp, s, out);
    } else {
      render_text_table(cmp, s, out);
    }
    render_only_in("timings", cmp.base_label, s.only_in_base, markdown, out);
    render_only_in("timings", cmp.current_label, s.only_in_current, markdown, out);
    if (!markdown) out += '\n';
  }
  render_only_in("scenarios", cmp.base_label, cmp.scenarios_only_in_base, markdown, out);
  render_only_in("scenarios", cmp.current_label, cmp.scenarios_only_in_current, markdown, out);
  const std::size_t n = cmp.slower();
  const std::string limit = format_number(cmp.max_regression_percent);
  if (n == 0) {
    out += fmt::format("no figure more than {}% slower\n", limit);
  } else {
    out += fmt::format("{} {} more than {}% slower\n", n, n == 1 ? "figure" : "figures", limit);
  }
  // Errors that rose, each named: "... rose by more than 10 per 100 iterations:
  // iteration.errors error rate (0.00% → 80.00%)".
  if (const std::size_t e = cmp.more_errors(); e > 0) {
    std::string named;
    for (const ScenarioComparison& s : cmp.scenarios) {
      for (const FigureChange& c : s.changes) {
        if (!c.regression || !c.is_error_figure()) continue;
        if (!named.empty()) named += ", ";
        const std::string scenario = cmp.scenarios.size() > 1 ? scenario_title(s) + ": " : std::string();
        named += fmt::format("{}{} {} ({} → {})", markdown ? escape_markdown(scenario) : scenario,
                             markdown ? escape_markdown(c.metric) : c.metric, c.figure, format_figure(c.unit, c.base),
                             format_figure(c.unit, c.current));
      }
    }
    if (markdown) out += '\n';
    out += fmt::format("{} error {} rose by more than {} per 100 iterations: {}\n", e, e == 1 ? "figure" : "figures",
                       limit, named);
  }
  return out;
}

}  // namespace stampede::report
