#pragma once
// The target's application routes: plain functions looked up by method and path. A route is
// measured (held for a drawn delay and counted in the truth) unless it says otherwise: the
// LiveView demo's pages do not, they model an app rather than a calibrated endpoint. The control
// endpoints (/__truth, /__reset) are answered by the connection itself, and a protocol
// upgrade (WebSocket, Phoenix channels, LiveView) is a decision the connection takes
// before it consults this table, because it hands over the socket rather than answering.
#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

#include "proto/http_request_parser.hpp"
#include "target/response.hpp"

namespace stampede::target {

class LiveViewPostsStore;

// Per-worker state the routes may change, owned by the worker (so no locks).
struct RouteState {
  std::uint64_t next_post_id = 0;  // ids handed out by POST /api/posts
  std::uint64_t post_id_step = 1;  // = worker count, so workers never hand out the same id
  std::mt19937_64 random;          // LiveView ids and tokens (seeded per worker)
  LiveViewPostsStore* liveview_posts = nullptr;  // the LiveView demo's posts (shared, locked)
};

struct RouteRequest {
  const proto::HttpRequest& request;
  std::string_view path;   // the target up to '?'
  std::string_view query;  // after '?', still percent-encoded
  RouteState& state;
};

using RouteHandler = void (*)(const RouteRequest&, Response&);

struct Route {
  std::string_view method;  // HEAD is served by the GET route
  std::string_view path;
  bool prefix = false;      // path is a prefix ("/api/posts/" matches "/api/posts/7")
  RouteHandler handler = nullptr;
  bool measured = true;     // false: answered at once, neither held nor counted in the truth
};

class RouteTable {
 public:
  void add(Route route) { routes_.push_back(route); }

  struct Match {
    const Route* route = nullptr;  // null: no route for this method and path
    bool path_known = false;       // some route has this path (so: 405, not 404)
  };
  Match find(std::string_view method, std::string_view path) const;

 private:
  std::vector<Route> routes_;
};

// Splits a request target into path and query; an absolute-form target
// ("http://host/path?q") is reduced to its path.
void split_target(std::string_view target, std::string_view& path, std::string_view& query);

}  // namespace stampede::target
