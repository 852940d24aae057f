#pragma once
// The small JSON API the README demo hits:
//   GET /api/posts        200, the list of posts
//   GET /api/posts/<id>   200, the post; 404 JSON when there is none
//   POST /api/posts       201, the JSON object sent, with an "id" added; 400 on invalid JSON
// Created posts are echoed, not stored: the list stays the same, so every run sees the same data.
#include "target/route_table.hpp"

namespace stampede::target {

void add_posts_routes(RouteTable& routes);

}  // namespace stampede::target
