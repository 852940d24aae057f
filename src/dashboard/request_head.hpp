#pragma once
// The little of an HTTP/1.1 request the dashboard needs: its method, its path (without the
// query) and its Host header. The dashboard answers GETs of three paths, so it reads the
// head as text rather than through a general parser.
#include <optional>
#include <string>
#include <string_view>

namespace stampede::dashboard {

struct RequestHead {
  std::string method;  // "GET"
  std::string path;    // "/events" (no query string)
  std::string host;    // the Host header as sent, lowercased; empty when absent
};

// `head` is the request up to and including the blank line. nullopt when its request
// line is malformed.
std::optional<RequestHead> parse_request_head(std::string_view head);

// Whether a request naming `host` in its Host header is addressed to a loopback listener
// on `port`: 127.0.0.1, localhost or [::1]. A web page on another site can make the
// browser send requests to loopback under a name of its own (DNS rebinding); the Host
// header it sends then names that site, so such requests are refused.
bool is_loopback_host(std::string_view host, unsigned port);

}  // namespace stampede::dashboard
