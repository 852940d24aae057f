#pragma once
// Endpoints that exist so client features can be tested against the target:
//   GET /api/cookie[?name=N&value=V]   sets a cookie (default stampede_session=s3cr3t)
//   GET /api/whoami                    echoes the Cookie header: {"cookie":"..."}
//   GET /redirect?to=/api/posts&n=3    302 n times (n defaults to 1), the last one to `to`
//   GET /gzip                          a gzip-encoded body when Accept-Encoding allows gzip
//   GET /chunked                       a body sent with Transfer-Encoding: chunked
//   GET /status/<code>                 answers with that status (200-599)
//   GET /slow?ms=N                     held N ms instead of the drawn delay
// Like every application route they are measured: held and counted in the truth.
#include "target/route_table.hpp"

namespace stampede::target {

void add_test_helper_routes(RouteTable& routes);

}  // namespace stampede::target
