#pragma once
// Where a client connection goes, from its URL (http, https, ws or wss), parsed with
// Boost.URL: the host as DNS, SNI and certificates see it, the port (the scheme's default
// when the URL has none), and what the request line and the Host header carry. Shared by the
// HTTP client (each redirect hop too) and the WebSocket client.
#include <cstdint>
#include <string>
#include <string_view>

namespace stampede::clients {

struct UrlTarget {
  std::string url;             // as given
  bool tls = false;            // https or wss
  std::string host;            // lowercased; IPv6 without brackets (what DNS, SNI and cookies see)
  std::uint16_t port = 0;      // the URL's, else 80 (http, ws) or 443 (https, wss)
  std::string host_header;     // host[:port] as the Host header wants it (the port unless the default)
  std::string request_target;  // path?query, "/" when the path is empty
  std::string path;            // the path only, "/" when empty (what cookies match on)
  std::string origin;          // scheme://host:port: the HTTP client pools connections per origin
};

// The schemes a client takes.
enum class UrlSchemes {
  http,       // http:// and https://
  websocket,  // ws:// and wss://
};

// Parses `text` into `out`. Returns false, with `out` unspecified, unless `text` is an
// absolute URL of one of `schemes` with a host (a name, IPv4 or IPv6) and a valid port. `why`
// then says what is wrong with it as a sentence fragment ("it has no host", "a WebSocket URL
// starts with ws:// or wss://"), for an error message that names the URL first.
bool parse_url_target(std::string_view text, UrlSchemes schemes, UrlTarget& out, std::string& why);

}  // namespace stampede::clients
