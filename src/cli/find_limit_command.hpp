#pragma once
// `stampede run FILE --find-limit`: the staircase, each step judged over its hold, --refine
// probes, and the limit in the summary and the results.
#include <string>

#include "cli/live_exports.hpp"
#include "cli/run_args.hpp"
#include "report/run_result.hpp"

namespace stampede::cli {

// Like run_one for a plain run: prints the summary and the limit, fills `result`. Returns 0
// when some level held, 1 when none did. Throws scenario::ScenarioError (exit 2), and
// engine::StoppedBeforeTheLoad when a Ctrl-C came before the staircase started.
int find_limit_one(const std::string& path, const RunArgs& args, LiveExports* live, report::ScenarioResult& result);

}  // namespace stampede::cli
