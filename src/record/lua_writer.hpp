#pragma once
// The scenario model as a Lua scenario file a person can read and edit: a comment saying what
// was recorded and what was left out, the requires it needs, BASE from $BASE_URL, helpers only
// when used (csrf_token, follow), options with a zero-errors threshold, and one line per user
// action in `run`.
#include <string>

#include "record/scenario_model.hpp"

namespace stampede::record {

struct WriteOptions {
  std::string command;     // how it was made, for the header: "stampede convert session.har"
  std::string output_path; // where it is written ("" = stdout), for the "stampede run" hint
};

std::string write_lua(const Scenario& scenario, const WriteOptions& options);

// The `convert --check` report: pages, LiveViews, topics, events, and what would be left out.
std::string describe(const Scenario& scenario);

}  // namespace stampede::record
