#pragma once
// A recording in, the scenario model out (scenario_model.hpp): what `stampede convert` and
// `stampede record` share. Pure: no files, no sockets, no clock.
#include <string>

#include "record/recording.hpp"
#include "record/scenario_model.hpp"

namespace stampede::record {

struct ConvertOptions {
  std::string origin;               // "" = the first page's (recording_scope.hpp)
  bool keep_static = false;         // keep scripts, styles, images... as requests
  double think_time_cap_ms = 5000;  // the longest pause kept between two actions; 0 = no pauses
  std::string name = "Recorded";    // the scenario's name
};

struct BuildResult {
  Scenario scenario;
  std::string error;  // "" when built; else why nothing can be made (no WebSocket frames...)
};

BuildResult build_scenario(const Recording& recording, const ConvertOptions& options);

}  // namespace stampede::record
