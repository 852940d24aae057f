#pragma once
// Before a run of several files: every one loads and its load is valid, so a broken second
// scenario does not cost the first one's whole run (nor start the others of --parallel, nor
// the other ranks of a distributed run) before it is found.
#include "cli/run_args.hpp"

namespace stampede::cli {

// Prints the first scenario's error to stderr and returns false.
bool all_scenarios_load(const RunArgs& args);

}  // namespace stampede::cli
