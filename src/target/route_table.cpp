#include "target/route_table.hpp"

namespace stampede::target {

RouteTable::Match RouteTable::find(std::string_view method, std::string_view path) const {
  if (method == "HEAD") method = "GET";
  Match match;
  for (const auto& route : routes_) {
    const bool path_matches =
        route.prefix ? path.size() > route.path.size() && path.substr(0, route.path.size()) == route.path
                     : path == route.path;
    if (!path_matches) continue;
    match.path_known = true;
    if (route.method == method) {
      match.route = &route;
      return match;
    }
  }
  return match;
}

void split_target(std::string_view target, std::string_view& path, std::string_view& query) {
  if (!target.empty() && target.front() != '/') {
    // absolute-form: skip "scheme://authority"
    const auto scheme_end = target.find("://");
    if (scheme_end != std::string_view::npos) {
      const auto path_start = target.find_first_of("/?", scheme_end + 3);
      target = path_start == std::string_view::npos ? std::string_view("/") : target.substr(path_start);
    }
  }
  const auto question = target.find('?');
  path = target.substr(0, question);
  if (path.empty()) path = "/";
  query = question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
}

}  // namespace stampede::target
