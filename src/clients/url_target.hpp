#pragma once
// Where a client connection goes, from its URL (http, https, ws or wss), parsed with
// Boost.URL: the host as DNS, SNI and certificates see it, the port (the scheme's default
// when the URL has none), and what the request line and the Host header carry. Shared by the
// HTTP client (each redirect hop too) and the WebSocket client.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

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

// One worker's parsed URLs. A scenario requests the same few URLs again and again, from
// every VU; parsing each time (Boost.URL and the strings it fills) was 4.5% of a worker's CPU
// at 50,000 requests/s (perf). Shared by the worker's VUs, so an idle VU holds none of it.
// URLs that differ every time (an id in the path) fill it up; it then starts over, which
// bounds its memory and costs one clear per kCapacity new URLs.
class UrlTargetCache {
 public:
  static constexpr std::size_t kCapacity = 256;

  explicit UrlTargetCache(UrlSchemes schemes) : schemes_(schemes) {}

  // `url` parsed, or nullptr with `why` set (as parse_url_target); failures are not kept.
  std::shared_ptr<const UrlTarget> find_or_parse(const std::string& url, std::string& why);
  std::size_t size() const { return by_url_.size(); }

 private:
  UrlSchemes schemes_;
  std::unordered_map<std::string, std::shared_ptr<const UrlTarget>> by_url_;
};

}  // namespace stampede::clients
