#pragma once
// What both HTTP clients (HTTP/1.1 in http_session.cpp, HTTP/2 in http2_exchange.cpp) do the
// same between one hop of a request and the next: store the cookies a response sets, and
// turn a 3xx's Location into the next hop (browsers' method rules included). Plain functions
// over the request's data: no sockets, no clocks.
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "clients/url_target.hpp"
#include "proto/cookie.hpp"
#include "proto/http_response_parser.hpp"  // HttpHeader

namespace stampede::clients {

// 301, 302, 303, 307 and 308: the statuses a Location is followed for.
bool is_redirect(int status);

// Safe to send twice: GET, HEAD, PUT, DELETE, OPTIONS, TRACE.
bool is_idempotent(std::string_view method);

// Stores every Set-Cookie of a response to `target` (the wall clock is read only when there is one).
void store_cookies(proto::CookieJar& jar, const std::vector<proto::HttpHeader>& headers, const UrlTarget& target);

// Where a redirect leads, and how the request changes on the way.
struct RedirectHop {
  std::shared_ptr<const UrlTarget> next;  // null: it cannot be followed (`why`)
  std::string why;
  // What browsers do: 303 always, and 301/302 after a POST, continue as a GET without body
  // (HEAD stays HEAD).
  bool to_get = false;
};
RedirectHop resolve_redirect(const UrlTarget& from, const std::string& location, int status, std::string_view method);

// Applies RedirectHop::to_get to a request's method, body and headers.
void switch_to_get(std::string& method, std::string& body, std::vector<std::pair<std::string, std::string>>& headers);

}  // namespace stampede::clients
