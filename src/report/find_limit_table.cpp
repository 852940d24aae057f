#include "report/find_limit_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/text_columns.hpp"
#include "report/threshold_line.hpp"
#include "report/units.hpp"

namespace stampede::report {

std::string format_level(double level) {
  const double whole = std::floor(level);
  std::string digits = fmt::format("{}", static_cast<long long>(whole));
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  if (level != whole) out += fmt::format("{:.2f}", level - whole).substr(1);
  return out;
}

std::string format_load(double level, bool by_rate) {
  if (by_rate) return format_level(level) + " iterations/s";
  return format_level(level) + (level == 1 ? " VU" : " VUs");
}

std::string first_broken(const FindLimitStep& step) {
  for (const auto& t : step.thresholds) {
    if (t.pass) continue;
    const std::string line = format_threshold_line(t);
    return line.substr(line.find(' ') + 1);  // without "fail "
  }
  return {};
}

const FindLimitStep* verdict_step(const FindLimitResult& r) {
  const auto at = [&r](double level, auto&& status_fits) -> const FindLimitStep* {
    for (const FindLimitStep& s : r.steps)
      if (s.level == level && status_fits(s.status)) return &s;
    return nullptr;
  };
  if (r.limit) return at(*r.limit, [](const std::string& status) { return status == "pass"; });
  if (r.failed_at)
    return at(*r.failed_at, [](const std::string& status) { return status == "fail" || status == "inconclusive"; });
  return nullptr;
}

std::string render_find_limit(const FindLimitResult& r) {
  const bool by_rate = r.by == "rate";
  std::string out = "limit\n" + r.verdict + "\n";

  // Columns: the level, each threshold's metric and aggregation, the status.
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{by_rate ? "rate/s" : "VUs"};
  const std::vector<metrics::ThresholdResult>* columns = nullptr;
  for (const auto& s : r.steps)
    if (!s.thresholds.empty()) {
      columns = &s.thresholds;
      break;
    }
  if (columns != nullptr)
    for (const auto& t : *columns) header.push_back(t.spec.metric + " " + t.spec.aggregation);
  header.emplace_back("status");
  rows.push_back(header);
  for (const auto& s : r.steps) {
    if (s.status == "not_reached") continue;
    std::vector<std::string> row{format_level(s.level) + (s.refine ? " (refine)" : "")};
    for (std::size_t i = 0; columns != nullptr && i < columns->size(); ++i) {
      if (i < s.thresholds.size() && s.thresholds[i].judged) {
        row.push_back(format_aggregation_value(metrics::result_unit(s.thresholds[i]), s.thresholds[i].value));
      } else {
        row.emplace_back("-");
      }
    }
    row.push_back(s.status);
    rows.push_back(row);
  }
  std::vector<std::size_t> widths(header.size(), 0);
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], display_width(row[i]));
  for (const auto& row : rows) {
    std::string line = align_left(row[0], widths[0]);
    for (std::size_t i = 1; i < row.size(); ++i) {
      line += "  ";
      line += i + 1 == row.size() ? row[i] : align_right(row[i], widths[i]);
    }
    out += line + "\n";
  }
  return out;
}

std::string limit_badge_text(const RunResult& run) {
  std::string out;
  for (const ScenarioResult& r : run.results) {
    if (!r.find_limit) continue;
    const auto& fl = *r.find_limit;
    if (!out.empty()) out += " · ";
    if (fl.limit) {
      // Every level up to the last one held: the limit is at least that, not that.
      out += (fl.reached_up_to ? "limit ≥ " : "limit ") + format_load(*fl.limit, fl.by == "rate");
      if (fl.inconclusive) out += " (generator-bound)";
    } else {
      out += fl.inconclusive ? "inconclusive" : "no level held";
    }
  }
  return out;
}

std::string render_generator_line(const GeneratorFigures& g, bool polling) {
  std::string out = fmt::format("generator: {}{}cpu {:.0f}% (busiest worker thread{}; peak second {:.0f}%)", g.setup,
                                g.setup.empty() ? "" : "; ", g.cpu_mean, polling ? ", empty polls aside" : "",
                                g.cpu_peak);
  if (g.loop_delay_p99) out += ", loop delay p99 " + format_nanos(*g.loop_delay_p99);
  if (g.lag_p99) out += ", iteration.lag p99 " + format_nanos(*g.lag_p99);
  if (g.dropped > 0) out += fmt::format(", {} dropped iterations", g.dropped);
  // Only when it matters: a worker kept from its CPU by other processes (a local server).
  if (g.cpu_wait && *g.cpu_wait >= 1) out += fmt::format(", waited for a CPU {:.0f}%", *g.cpu_wait);
  if (g.fds_limit > 0) {
    out += fmt::format(", open files {} / {}", format_level(g.fds_peak), format_level(g.fds_limit));
  } else {
    out += fmt::format(", open files {}", format_level(g.fds_peak));
  }
  out += "\n";
  if (!g.verdict.empty()) out += g.verdict + "\n";
  return out;
}

}  // namespace stampede::report
