#include "report/summary_table.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "report/text_columns.hpp"
#include "report/threshold_line.hpp"
#include "report/units.hpp"

namespace stampede::report {

namespace {

using metrics::Kind;
using metrics::NamedMetric;

constexpr std::size_t kTopReasons = 10;
constexpr std::size_t kTopIterationErrors = 10;
constexpr std::size_t kErrorMessageWidth = 160;

// Minimum widths give the table its shape when every figure is short; a column grows
// when a figure needs more (keeping a space between columns).
struct Column {
  const char* header;
  std::size_t min_width;
};
constexpr std::array<Column, 8> kColumns = {{{"count", 6},
                                             {"rate/s", 8},
                                             {"mean", 9},
                                             {"p50", 9},
                                             {"p90", 9},
                                             {"p95", 9},
                                             {"p99", 9},
                                             {"max", 9}}};
constexpr std::size_t kCounterColumns = 2;  // count and rate/s

bool is_internal(const NamedMetric& m) { return !m.name.empty() && m.name.front() == '_'; }

struct TableRow {
  const NamedMetric* metric;
  std::vector<std::string> cells;  // right-aligned under kColumns, in order
  std::string text;                // gauges: free text after the name
  const NamedMetric* errors = nullptr;  // a timing's "<name>.errors" counter, shown after max
};

constexpr std::string_view kErrorsHeader = "errors";

class MetricRows {
 public:
  explicit MetricRows(double window_seconds) : window_seconds_(window_seconds) {}

  TableRow row(const NamedMetric& m) const {
    TableRow r{&m, {}, {}, nullptr};
    switch (m.kind) {
      case Kind::Timing: histogram_cells(m, r.cells, [](double v) { return format_nanos(std::llround(v)); }); break;
      case Kind::Distribution: {
        const metrics::ValueUnit unit = metrics::distribution_unit(m.name);
        histogram_cells(m, r.cells, [unit](double v) { return format_value(unit, v); });
        break;
      }
      case Kind::Counter: r.cells = {fmt::format("{}", m.data.count), rate(m.data.count)}; break;
      case Kind::Gauge: r.text = gauge_text(m.data); break;
      case Kind::Check: break;  // in their own section
    }
    return r;
  }

 private:
  std::string rate(std::uint64_t count) const {
    if (!(window_seconds_ > 0)) return "-";
    return fmt::format("{:.2f}", static_cast<double>(count) / window_seconds_);
  }

  template <typename Format>
  void histogram_cells(const NamedMetric& m, std::vector<std::string>& cells, Format format) const {
    const metrics::Histogram& h = m.data.histogram;
    cells = {fmt::format("{}", h.count()), rate(h.count())};
    if (h.count() == 0) {
      cells.resize(kColumns.size(), "-");
      return;
    }
    cells.push_back(format(h.mean()));
    for (const double p : {50.0, 90.0, 95.0, 99.0}) cells.push_back(format(static_cast<double>(h.percentile(p))));
    cells.push_back(format(static_cast<double>(h.max())));
  }

  static std::string gauge_text(const metrics::MetricData& d) {
    if (!d.present) return "no samples";
    return fmt::format("max {}  last {}", format_number(d.gauge_max), format_number(d.gauge_last));
  }

  double window_seconds_;
};

// "  refused  12" lines under a counter, most frequent first; a reason that groups messages
// has one of them in full on the line below it ("    e.g. ...").
void render_reasons(const metrics::MetricData& d, std::string& out) {
  std::vector<std::pair<std::string_view, std::uint64_t>> reasons(d.reasons.begin(), d.reasons.end());
  std::stable_sort(reasons.begin(), reasons.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  const std::size_t shown = std::min(reasons.size(), kTopReasons);
  std::size_t reason_width = 0;
  std::size_t count_width = 0;
  for (std::size_t i = 0; i < shown; ++i) {
    reason_width = std::max(reason_width, display_width(reasons[i].first));
    count_width = std::max(count_width, fmt::formatted_size("{}", reasons[i].second));
  }
  for (std::size_t i = 0; i < shown; ++i) {
    out += fmt::format("  {}  {}\n", align_left(reasons[i].first, reason_width),
                       align_right(fmt::format("{}", reasons[i].second), count_width));
    if (const auto example = d.examples.find(reasons[i].first); example != d.examples.end())
      out += fmt::format("    e.g. {}\n", one_line(example->second, kErrorMessageWidth));
  }
  if (reasons.size() > shown) {
    std::uint64_t rest = 0;
    for (std::size_t i = shown; i < reasons.size(); ++i) rest += reasons[i].second;
    out += fmt::format("  ... and {} more reasons ({})\n", reasons.size() - shown, rest);
  }
}

bool has_samples(const NamedMetric& m) {
  switch (m.kind) {
    case Kind::Timing:
    case Kind::Distribution: return m.data.histogram.count() > 0;
    case Kind::Counter: return m.data.count > 0;
    case Kind::Gauge: return m.data.present;
    case Kind::Check: return m.data.count > 0;
  }
  return false;
}

// "x.errors" counts the failures of timing "x": shown in x's row, as its last column.
std::string_view timing_of_errors(std::string_view name) {
  constexpr std::string_view kErrors = ".errors";
  return name.ends_with(kErrors) ? name.substr(0, name.size() - kErrors.size()) : std::string_view();
}

void render_metrics(const SummaryModel& model, std::string& out) {
  const double window_seconds = static_cast<double>(model.window_end - model.window_start) / 1e9;
  const MetricRows rows_of(window_seconds);
  // A threshold's metric is shown whatever it holds: its line below refers to it.
  std::set<std::string_view> named;
  for (const auto& t : model.thresholds) named.insert(t.spec.metric);
  std::map<std::string_view, const NamedMetric*> by_name;
  for (const NamedMetric& m : model.metrics) by_name[m.name] = &m;
  std::map<std::string_view, const NamedMetric*> errors_of;  // a timing's name -> its errors counter
  for (const NamedMetric& m : model.metrics) {
    if (m.kind != Kind::Counter) continue;
    const std::string_view timing = timing_of_errors(m.name);
    const auto it = timing.empty() ? by_name.end() : by_name.find(timing);
    if (it != by_name.end() && (it->second->kind == Kind::Timing || it->second->kind == Kind::Distribution))
      errors_of[it->first] = &m;
  }

  std::vector<TableRow> rows;
  std::size_t hidden = 0;
  bool errors_column = false;
  for (const NamedMetric& m : model.metrics) {
    if (is_internal(m) || m.kind == Kind::Check) continue;
    if (m.kind == Kind::Counter && errors_of.count(timing_of_errors(m.name)) > 0) continue;  // in its timing's row
    const auto errors = errors_of.find(m.name);
    const NamedMetric* errors_metric = errors == errors_of.end() ? nullptr : errors->second;
    const bool shown = model.all_metrics || named.count(m.name) > 0 || has_samples(m) ||
                       (errors_metric != nullptr && (has_samples(*errors_metric) || named.count(errors_metric->name) > 0));
    if (!shown) {
      ++hidden;
      continue;
    }
    TableRow row = rows_of.row(m);
    if (errors_metric != nullptr) {
      row.errors = errors_metric;
      errors_column = true;
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return;
  std::sort(rows.begin(), rows.end(),
            [](const TableRow& a, const TableRow& b) { return a.metric->name < b.metric->name; });

  std::size_t name_width = display_width("metric");
  std::size_t used_columns = kCounterColumns;
  std::array<std::size_t, kColumns.size()> widths{};
  for (std::size_t c = 0; c < kColumns.size(); ++c) {
    widths[c] = std::max(kColumns[c].min_width, display_width(kColumns[c].header) + 1);
  }
  std::size_t errors_width = display_width(kErrorsHeader) + 1;
  for (const TableRow& r : rows) {
    name_width = std::max(name_width, display_width(r.metric->name));
    used_columns = std::max(used_columns, r.cells.size());
    for (std::size_t c = 0; c < r.cells.size(); ++c) {
      widths[c] = std::max(widths[c], display_width(r.cells[c]) + 1);
    }
    if (r.errors != nullptr) errors_width = std::max(errors_width, fmt::formatted_size(" {}", r.errors->data.count));
  }
  if (errors_column) used_columns = kColumns.size();  // the errors column comes after max

  out += align_left("metric", name_width);
  for (std::size_t c = 0; c < used_columns; ++c) out += align_right(kColumns[c].header, widths[c]);
  if (errors_column) out += align_right(kErrorsHeader, errors_width);
  out += '\n';
  for (const TableRow& r : rows) {
    std::string line = align_left(r.metric->name, name_width);
    for (std::size_t c = 0; c < r.cells.size(); ++c) line += align_right(r.cells[c], widths[c]);
    if (r.errors != nullptr) line += align_right(fmt::format("{}", r.errors->data.count), errors_width);
    if (!r.text.empty()) line += " " + r.text;
    // Trailing spaces only come from padding the name of a row without figures.
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + '\n';
    if (r.metric->kind == Kind::Counter) render_reasons(r.metric->data, out);
    if (r.errors != nullptr) render_reasons(r.errors->data, out);
  }
  if (hidden > 0)
    out += fmt::format("({} metric{} with nothing recorded not shown: --summary all lists every one)\n", hidden,
                       hidden == 1 ? "" : "s");
}

void render_requests(const SummaryModel& model, std::string& out) {
  const metrics::RequestTally& t = model.requests;
  const std::uint64_t done = t.completed + t.failed;
  const std::uint64_t in_flight = t.sent > done ? t.sent - done : 0;
  out += fmt::format("requests: {} sent, {} completed, {} failed, {} in flight at the end\n", t.sent,
                     t.completed, t.failed, in_flight);
  out += fmt::format("window: {} to {}\n", format_seconds(model.window_start),
                     format_seconds(model.window_end));
}

// Rounded down, so any failure shows below 100.00%.
std::string pass_percentage(std::uint64_t passed, std::uint64_t total) {
  if (total == 0) return "-";
  __extension__ typedef unsigned __int128 Wide;  // passed * 10000 overflows 64 bits past 1.8e15
  const auto hundredths = static_cast<std::uint64_t>(static_cast<Wide>(passed) * 10000 / total);
  return fmt::format("{}.{:02}%", hundredths / 100, hundredths % 100);
}

void render_checks(const SummaryModel& model, std::string& out) {
  std::vector<const NamedMetric*> checks;
  std::size_t name_width = 0;
  for (const NamedMetric& m : model.metrics) {
    if (is_internal(m) || m.kind != Kind::Check) continue;
    checks.push_back(&m);
    name_width = std::max(name_width, display_width(m.name));
  }
  if (checks.empty()) return;
  out += "checks\n";
  for (const NamedMetric* m : checks) {
    const std::uint64_t total = m->data.count;
    const std::uint64_t passed = total - std::min(total, m->data.failed);
    out += fmt::format("  {}  {}  ({} / {})\n", align_left(m->name, name_width),
                       align_right(pass_percentage(passed, total), 8), passed, total);
  }
}

void render_iteration_errors(const SummaryModel& model, std::string& out) {
  if (model.iteration_errors.empty()) return;
  std::vector<const IterationErrorGroup*> groups;
  for (const IterationErrorGroup& g : model.iteration_errors) groups.push_back(&g);
  std::sort(groups.begin(), groups.end(), [](const auto* a, const auto* b) {
    return a->count != b->count ? a->count > b->count : a->message < b->message;
  });
  const std::size_t shown = std::min(groups.size(), kTopIterationErrors);
  const std::size_t count_width = fmt::formatted_size("{}", groups.front()->count);
  out += "iteration errors\n";
  for (std::size_t i = 0; i < shown; ++i) {
    out += fmt::format("  {}  {}\n", align_right(fmt::format("{}", groups[i]->count), count_width),
                       one_line(groups[i]->message, kErrorMessageWidth));
    if (!groups[i]->example.empty())
      out += fmt::format("  {}  e.g. {}\n", std::string(count_width, ' '), one_line(groups[i]->example, kErrorMessageWidth));
  }
  if (groups.size() > shown) {
    std::uint64_t rest = 0;
    for (std::size_t i = shown; i < groups.size(); ++i) rest += groups[i]->count;
    out += fmt::format("  ... and {} more messages ({} errors)\n", groups.size() - shown, rest);
  }
}

void render_thresholds(const SummaryModel& model, std::string& out) {
  if (model.thresholds.empty()) return;
  out += "thresholds\n";
  for (const metrics::ThresholdResult& t : model.thresholds) out += format_threshold_line(t) + '\n';
}

}  // namespace

std::string render_summary_table(const SummaryModel& model) {
  std::string out = fmt::format("{} ran for {}\n", model.scenario, format_seconds(model.duration));
  render_metrics(model, out);
  render_requests(model, out);
  render_checks(model, out);
  render_iteration_errors(model, out);
  render_thresholds(model, out);
  return out;
}

}  // namespace stampede::report
