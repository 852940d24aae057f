#pragma once
// RFC 6265 cookies: parsing Set-Cookie and a jar that answers "which Cookie header goes
// with this request". Pure: the caller passes the current wall-clock time in seconds.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::proto {

struct Cookie {
  std::string name;
  std::string value;
  std::string domain;     // lowercased, no leading dot; empty = host-only of the setting host
  std::string path;       // default-path rule applied by the jar when the attribute is absent
  bool host_only = true;
  bool secure = false;
  bool http_only = false;
  std::string same_site;  // as sent, lowercased ("lax", "strict", "none") or empty
  std::optional<std::int64_t> expires_unix;  // absent = session cookie
};

// Parses one Set-Cookie header value. Returns nullopt for a value with no name=value pair.
// Max-Age wins over Expires; Expires accepts the RFC 1123 / 850 / asctime forms.
std::optional<Cookie> parse_set_cookie(std::string_view header, std::int64_t now_unix);

class CookieJar {
 public:
  // Stores (or replaces, or with an expiry in the past deletes) the cookie set by a response
  // from `host` for the request `path`. Rejects a Domain attribute the host does not domain-match.
  void store(std::string_view set_cookie_header, std::string_view host, std::string_view request_path,
             std::int64_t now_unix);
  // The Cookie header value for a request ("a=1; b=2"), empty when none applies.
  // Longer paths first, as RFC 6265 5.4 asks.
  std::string header_for(std::string_view host, std::string_view path, bool secure,
                         std::int64_t now_unix) const;
  const std::vector<Cookie>& cookies() const { return cookies_; }
  void clear() { cookies_.clear(); }

 private:
  std::vector<Cookie> cookies_;
};

}  // namespace stampede::proto
