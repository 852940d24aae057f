#pragma once
// The whole route table of the built-in target: "/" (a short text, the benchmark's URL),
// the posts API, the client test helpers, and the LiveView demo's pages (last: the routes
// above are found first, as fast as before).
#include "target/liveview_dialect.hpp"
#include "target/route_table.hpp"

namespace stampede::target {

// `root_liveview`: the dialect of the LiveView pages under "/".
RouteTable make_target_routes(LiveViewDialect root_liveview = LiveViewDialect::V1);

}  // namespace stampede::target
