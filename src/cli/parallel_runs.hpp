#pragma once
// `stampede run a.lua b.lua --parallel`: every scenario at the same time, each with its own
// load model, thresholds, workers and results. One thread per scenario drives it (the
// scenario's own worker threads do the work); each summary block is printed when its
// scenario ends, whole (one write), so blocks never interleave.
#include <functional>
#include <string>
#include <vector>

#include "report/run_result.hpp"

namespace stampede::cli {

// Runs `run_file(file, result)` for every file at once. `results` receives, in the order of
// `files`, the result of every scenario that got to run, and `not_started` the files a stop
// signal kept from starting their load (engine::StoppedBeforeTheLoad: the caller says so).
// Returns the highest exit status; a scenario::ScenarioError in one scenario is printed
// ("error: ...") and counts as 2, and the others run on.
int run_in_parallel(const std::vector<std::string>& files,
                    const std::function<int(const std::string& file, report::ScenarioResult& result)>& run_file,
                    std::vector<report::ScenarioResult>& results, std::vector<std::string>& not_started);

}  // namespace stampede::cli
