#pragma once
// The dashboard of one `stampede run` (--dashboard): the web server, fed with the run's
// figures as results-file JSON (report/json_results.hpp), the same data the HTML report
// draws, so the live page and the report read alike.
//
//   LiveDashboard dashboard("127.0.0.1", 4040);   // listening once constructed
//   dashboard.scenario_started(tool, header);     // for each scenario file
//   dashboard.second(figures);                    // each merged second (any thread)
//   dashboard.scenario_finished(run_so_far);      // the full results
//   ... the server keeps serving the final page until the object is destroyed.
#include <cstdint>
#include <string>

#include "dashboard/dashboard_server.hpp"
#include "report/run_result.hpp"

namespace stampede::dashboard {

class LiveDashboard {
 public:
  // Throws std::runtime_error with a sentence when the address cannot be had.
  LiveDashboard(const std::string& host, std::uint16_t port);

  // "http://127.0.0.1:4040/" (the bound port, when 0 was asked for).
  std::string url() const;

  // `header` says what runs (name, file, options, host, threads); its figures are not read.
  void scenario_started(const report::ToolInfo& tool, const report::ScenarioResult& header);
  void second(const report::SecondResult& second);
  void scenario_finished(const report::RunResult& run_so_far);

 private:
  std::string host_;
  DashboardServer server_;
};

}  // namespace stampede::dashboard
