#pragma once
// A scenario file read once, on the calling thread, before any load: its name, options,
// thresholds and source addresses, and setup()'s result; and its setup() and teardown()
// run to completion on a private event loop. What every run of a scenario starts from: a
// plain run, find-limit, --parallel's runs and rank 0 of a distributed run.
#include <boost/asio/ip/address.hpp>

#include <string>
#include <vector>

#include "metrics/metric_sink.hpp"
#include "metrics/threshold.hpp"
#include "scenario/scenario_options.hpp"

namespace stampede::engine {

// What the command line changes of a scenario's own options.
struct ScenarioOverrides {
  bool insecure = false;        // --insecure
  std::string local_addresses;  // --local-addresses (empty: the scenario's)
};

struct PreparedScenario {
  std::string path;
  std::string name;
  scenario::ScenarioOptions options;
  bool has_setup = false;
  bool has_teardown = false;
  bool insecure = false;
  std::string setup_data;
  std::vector<boost::asio::ip::address> local_addresses;
  std::vector<metrics::ThresholdSpec> thresholds;
};

// Loads the file and reads its options (throws scenario::ScenarioError).
PreparedScenario load_scenario(const std::string& path, const ScenarioOverrides& overrides, metrics::Registry& registry);
// Runs setup() (throws scenario::ScenarioError when it fails). A stop signal noted before it
// or while it runs (engine/stop_signals.hpp) abandons it: throws StoppedBeforeTheLoad.
void run_setup(PreparedScenario& scenario, metrics::Registry& registry);
// Runs teardown(); the message when it failed, empty otherwise. Ctrl-C, SIGTERM or SIGUSR1
// abandon it: one stalled request in it must not cost the summary of what the run measured.
std::string run_teardown(const PreparedScenario& scenario, metrics::Registry& registry);

}  // namespace stampede::engine
