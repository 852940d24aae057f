#pragma once
// The dashboard around a `stampede run`: opened before the first scenario (its URL
// printed on stderr), and kept serving the final results after the last one.
#include <memory>

#include "cli/dashboard_args.hpp"
#include "dashboard/live_dashboard.hpp"

namespace stampede::cli {

// Listens on args.listen and prints the URL. Throws std::runtime_error with a sentence
// for the user when the address cannot be had.
std::unique_ptr<dashboard::LiveDashboard> open_dashboard(const DashboardArgs& args);

// Blocks while the dashboard serves the final results: until Ctrl-C (or SIGTERM), or
// until args.linger has passed.
void serve_final_results(const DashboardArgs& args, const dashboard::LiveDashboard& dashboard);

}  // namespace stampede::cli
