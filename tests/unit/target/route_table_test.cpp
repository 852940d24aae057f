#include "target/route_table.hpp"

#include <gtest/gtest.h>

namespace stampede::target {
namespace {

void handler_a(const RouteRequest&, Response&) {}
void handler_b(const RouteRequest&, Response&) {}

TEST(RouteTable, MatchesMethodAndPathExactOrPrefix) {
  RouteTable routes;
  routes.add({"GET", "/api/posts", false, handler_a});
  routes.add({"GET", "/api/posts/", true, handler_b});
  EXPECT_EQ(routes.find("GET", "/api/posts").route->handler, handler_a);
  EXPECT_EQ(routes.find("HEAD", "/api/posts").route->handler, handler_a);
  EXPECT_EQ(routes.find("GET", "/api/posts/7").route->handler, handler_b);
  EXPECT_EQ(routes.find("GET", "/api/posts/").route, nullptr);  // a prefix needs something after it

  const auto wrong_method = routes.find("DELETE", "/api/posts");
  EXPECT_EQ(wrong_method.route, nullptr);
  EXPECT_TRUE(wrong_method.path_known);
  const auto unknown = routes.find("GET", "/nope");
  EXPECT_EQ(unknown.route, nullptr);
  EXPECT_FALSE(unknown.path_known);
}

TEST(RouteTable, SplitsTargets) {
  std::string_view path;
  std::string_view query;
  split_target("/redirect?to=%2Fx&n=2", path, query);
  EXPECT_EQ(path, "/redirect");
  EXPECT_EQ(query, "to=%2Fx&n=2");
  split_target("/plain", path, query);
  EXPECT_EQ(path, "/plain");
  EXPECT_EQ(query, "");
  split_target("http://example.com:4000/api/posts?x=1", path, query);
  EXPECT_EQ(path, "/api/posts");
  EXPECT_EQ(query, "x=1");
  split_target("http://example.com", path, query);
  EXPECT_EQ(path, "/");
}

}  // namespace
}  // namespace stampede::target
