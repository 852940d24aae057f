#include "report/junit_xml.hpp"

#include <fmt/format.h>

#include "report/find_limit_table.hpp"
#include "report/threshold_line.hpp"
#include "report/xml_text.hpp"

namespace stampede::report {

namespace {

struct TestCase {
  std::string classname;
  std::string name;
  std::string failure_type;  // empty: passed
  std::string failure_message;
  std::string system_out;  // the case's output, which CI shows beside the result
};

std::string threshold_case_name(const metrics::ThresholdSpec& spec) {
  const auto unit = metrics::aggregation_unit(spec.aggregation);
  return fmt::format("{} {} <= {}", spec.metric, spec.aggregation, format_aggregation_value(unit, spec.limit));
}

// `where`: for a find-limit run, the load the thresholds were judged at ("at 10 VUs: ").
TestCase threshold_case(const std::string& scenario, const metrics::ThresholdResult& t, const std::string& where) {
  TestCase c{scenario + ".thresholds", threshold_case_name(t.spec), {}, {}, {}};
  if (t.pass) return c;
  c.failure_type = "threshold";
  if (t.judged) {
    const auto unit = metrics::aggregation_unit(t.spec.aggregation);
    c.failure_message = fmt::format("{}{} {} = {}, above {}", where, t.spec.metric, t.spec.aggregation,
                                    format_aggregation_value(unit, t.value), format_aggregation_value(unit, t.spec.limit));
  } else {
    c.failure_message = where + t.message;
  }
  return c;
}

// A find-limit run: one case for the search itself, failed when no level held (which is
// when the run exits 1, even if the generator, not a threshold, stopped it). The verdict
// ("Held 10 VUs; 14 VUs broke ...") is its failure message, or its output when it passed.
TestCase find_limit_case(const std::string& scenario, const FindLimitResult& fl) {
  TestCase c{scenario + ".find_limit", "a level held", {}, {}, {}};
  if (fl.limit) {
    c.system_out = fl.verdict;
    return c;
  }
  c.failure_type = "find_limit";
  c.failure_message = fl.verdict;
  return c;
}

TestCase check_case(const std::string& scenario, const MetricFigures& check) {
  TestCase c{scenario + ".checks", check.name, {}, {}, {}};
  if (check.fails == 0) return c;
  const std::uint64_t total = check.passes + check.fails;
  c.failure_type = "check";
  c.failure_message = fmt::format("{} of {} failed ({:.2f}%)", check.fails, total,
                                  100.0 * static_cast<double>(check.fails) / static_cast<double>(total));
  return c;
}

std::vector<TestCase> cases_of(const ScenarioResult& r) {
  std::vector<TestCase> cases;
  // A find-limit run's thresholds are those of the step that decided it (verdict_step).
  std::string where;
  if (r.find_limit)
    if (const FindLimitStep* step = verdict_step(*r.find_limit))
      where = fmt::format("at {}: ", format_load(step->level, r.find_limit->by == "rate"));
  if (r.find_limit) cases.push_back(find_limit_case(r.scenario, *r.find_limit));
  for (const auto& t : r.thresholds) cases.push_back(threshold_case(r.scenario, t, where));
  for (const MetricFigures& m : r.metrics)
    if (m.kind == metrics::Kind::Check) cases.push_back(check_case(r.scenario, m));
  return cases;
}

std::size_t failures_in(const std::vector<TestCase>& cases) {
  std::size_t n = 0;
  for (const TestCase& c : cases) n += c.failure_type.empty() ? 0 : 1;
  return n;
}

std::string junit_seconds(Nanos d) { return fmt::format("{:.3f}", static_cast<double>(d) / kSecond); }

void render_suite(const ScenarioResult& r, const std::vector<TestCase>& cases, std::string& out) {
  out += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{}\" "
      "timestamp=\"{}\" hostname=\"{}\">\n",
      xml_escape(r.scenario), cases.size(), failures_in(cases), junit_seconds(r.duration), xml_escape(r.started_at),
      xml_escape(r.host));
  out += "    <properties>\n";
  out += fmt::format("      <property name=\"file\" value=\"{}\"/>\n", xml_escape(r.file));
  out += fmt::format("      <property name=\"interrupted\" value=\"{}\"/>\n", r.interrupts > 0 ? "true" : "false");
  out += "    </properties>\n";
  for (const TestCase& c : cases) {
    const std::string head =
        fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\"", xml_escape(c.classname), xml_escape(c.name));
    if (c.failure_type.empty() && c.system_out.empty()) {
      out += head + "/>\n";
      continue;
    }
    out += head + ">\n";
    if (!c.failure_type.empty())
      out += fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n", c.failure_type,
                         xml_escape(c.failure_message), xml_escape(c.failure_message));
    if (!c.system_out.empty()) out += fmt::format("      <system-out>{}</system-out>\n", xml_escape(c.system_out));
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n";
}

}  // namespace

std::string junit_xml(const RunResult& run) {
  std::vector<std::vector<TestCase>> suites;
  std::size_t tests = 0, failures = 0;
  Nanos time = 0;
  for (const ScenarioResult& r : run.results) {
    suites.push_back(cases_of(r));
    tests += suites.back().size();
    failures += failures_in(suites.back());
    time += r.duration;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"stampede\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{}\">\n", tests,
                     failures, junit_seconds(time));
  for (std::size_t i = 0; i < run.results.size(); ++i) render_suite(run.results[i], suites[i], out);
  out += "</testsuites>\n";
  return out;
}

}  // namespace stampede::report
