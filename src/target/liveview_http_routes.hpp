#pragma once
// The LiveView demo app over HTTP, as the recorded Phoenix apps answer it:
//   GET /counter /posts/new /posts /components /upload /dashboard /stale /crash
//        a page: root layout, CSRF meta, the LiveView container (data-phx-main,
//        data-phx-session, data-phx-static) around the dead render; sets the _demo_key
//        session cookie when the session had no CSRF secret yet. /dashboard without a
//        logged-in session: 302 to /login.
//   GET /login?user=NAME   puts the user in the session cookie, 302 to /dashboard
//   GET /login             a page with a link that does that
//   GET /logout            drops the session, 302 to /login
//   GET /assets/app.js     the app's LiveSocket bootstrap (the two third-party bundles are
//                          not shipped: 404)
// Under "/" in the dialect `--liveview` chose, under /lv020/... in 0.20 and /lv1x/... in 1.x;
// links and redirects stay under their prefix. None of them is measured: they answer at
// once and stay out of /__truth, which is about the calibrated endpoints.
#include "target/liveview_dialect.hpp"
#include "target/route_table.hpp"

namespace stampede::target {

void add_liveview_routes(RouteTable& routes, LiveViewDialect root_dialect);

}  // namespace stampede::target
