#pragma once
// `server_metrics = { url = "http://127.0.0.1:9568/metrics", every = "1s", select = { "beam_*" } }`
// (or `urls = { ... }`, one per node) in a scenario's options: the Prometheus endpoint(s) the
// run scrapes while it goes (docs/guides/seeing-the-server.md). A plain string is a lone url.
// The command line's --server-metrics and --server-metrics-every override it.
#include <string>

#include "clients/server_metrics_options.hpp"

struct lua_State;

namespace stampede::scenario {

// Reads the table (or string) at `index` and validates it (validate_server_metrics): throws
// ScenarioError naming `where` ("loadtest/api.lua: options.server_metrics") and the field.
clients::ServerMetricsOptions read_server_metrics_option(lua_State* L, int index, const std::string& where);

}  // namespace stampede::scenario
