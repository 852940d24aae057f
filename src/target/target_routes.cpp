#include "target/target_routes.hpp"

#include "target/liveview_http_routes.hpp"
#include "target/posts_api.hpp"
#include "target/test_helper_routes.hpp"

namespace stampede::target {
namespace {

void root(const RouteRequest&, Response& response) { response.set_static(200, kText, "stampede target\n"); }

}  // namespace

RouteTable make_target_routes(LiveViewDialect root_liveview) {
  RouteTable routes;
  routes.add({"GET", "/", false, root});
  add_posts_routes(routes);
  add_test_helper_routes(routes);
  add_liveview_routes(routes, root_liveview);
  return routes;
}

}  // namespace stampede::target
