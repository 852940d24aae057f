#include "dashboard/live_dashboard.hpp"

#include <fmt/format.h>

#include <boost/json/serialize.hpp>

#include "report/html_page.hpp"
#include "report/json_results.hpp"

namespace stampede::dashboard {

LiveDashboard::LiveDashboard(const std::string& host, std::uint16_t port)
    : host_(host), server_(host, port, report::html_page(report::PageKind::Dashboard, "")) {
  server_.start();
}

std::string LiveDashboard::url() const {
  if (host_.find(':') != std::string::npos) return fmt::format("http://[{}]:{}/", host_, server_.port());
  return fmt::format("http://{}:{}/", host_, server_.port());
}

void LiveDashboard::scenario_started(const report::ToolInfo& tool, const report::ScenarioResult& header) {
  // A results file holding this scenario alone, before any figure: the page reads the
  // name, the options and the thresholds from it, as it reads a finished file.
  report::RunResult start;
  start.tool = tool;
  report::ScenarioResult scenario;
  scenario.scenario = header.scenario;
  scenario.file = header.file;
  scenario.options = header.options;
  scenario.started_at = header.started_at;
  scenario.host = header.host;
  scenario.threads = header.threads;
  scenario.ranks = header.ranks;
  start.results.push_back(std::move(scenario));
  server_.begin(report::results_json(start));
}

void LiveDashboard::second(const report::SecondResult& second) {
  server_.add_second(boost::json::serialize(report::second_json(second)));
}

void LiveDashboard::scenario_finished(const report::RunResult& run_so_far) {
  server_.finish(report::results_json(run_so_far));
}

}  // namespace stampede::dashboard
