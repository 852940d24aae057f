#pragma once
// Reading a results file (`stampede run --out`) back, for the subcommands that work from
// one after the run (`stampede report`).
#include <optional>
#include <string>

#include "report/run_result.hpp"

namespace stampede::cli {

// The run in `path`, or nullopt after saying on stderr why it cannot be read ("error:
// cannot read r.json: No such file or directory", "error: r.json is not a Stampede
// results file: ...").
std::optional<report::RunResult> read_results_file(const std::string& path);

}  // namespace stampede::cli
