#include "clients/http_hop.hpp"

#include <chrono>

#include "proto/http_text.hpp"
#include "proto/url_resolve.hpp"

namespace stampede::clients {

using proto::http_text::iequals;

bool is_redirect(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

bool is_idempotent(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE" || method == "OPTIONS" ||
         method == "TRACE";
}

void store_cookies(proto::CookieJar& jar, const std::vector<proto::HttpHeader>& headers, const UrlTarget& target) {
  std::int64_t now_unix = -1;  // cookies expire on the calendar, not on the monotonic clock
  for (const auto& header : headers) {
    if (header.name != "set-cookie") continue;
    if (now_unix < 0) {
      now_unix = std::chrono::duration_cast<std::chrono::seconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count();
    }
    jar.store(header.value, target.host, target.path, now_unix);
  }
}

RedirectHop resolve_redirect(const UrlTarget& from, const std::string& location, int status, std::string_view method) {
  RedirectHop hop;
  const auto next_url = proto::resolve_reference(from.url, location);
  auto next = std::make_shared<UrlTarget>();
  hop.why = "it is not a valid URL";
  if (!next_url || !parse_url_target(next_url->buffer(), UrlSchemes::http, *next, hop.why)) {
    hop.why = "the redirect to \"" + location + "\" cannot be followed: " + hop.why;
    return hop;
  }
  hop.why.clear();
  hop.next = std::move(next);
  hop.to_get = (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST");
  return hop;
}

void switch_to_get(std::string& method, std::string& body, std::vector<std::pair<std::string, std::string>>& headers) {
  method = "GET";
  body.clear();
  std::erase_if(headers, [](const auto& h) {
    return iequals(h.first, "content-type") || iequals(h.first, "content-encoding") ||
           iequals(h.first, "transfer-encoding");
  });
}

}  // namespace stampede::clients
