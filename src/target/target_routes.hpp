#pragma once
// The whole route table of the built-in target: "/" (a short text, the benchmark's URL),
// the posts API and the client test helpers.
#include "target/route_table.hpp"

namespace stampede::target {

RouteTable make_target_routes();

}  // namespace stampede::target
