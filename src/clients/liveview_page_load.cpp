#include "clients/liveview_page_load.hpp"

#include <boost/url/parse.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "proto/ascii.hpp"
#include "proto/liveview_events.hpp"
#include "proto/url_resolve.hpp"

namespace stampede::clients {

namespace lv = proto::lv;

namespace {

constexpr const char* kLoginGuide = "see \"Pages behind a login\" in the README (stampede.liveview)";

using proto::ascii::lowercase;

std::string path_of(const std::string& url) {
  const auto parsed = boost::urls::parse_uri(url);
  return parsed ? lowercase(parsed->encoded_path()) : lowercase(url);
}

// A path that reads like a login page: where an app sends a visitor it does not know.
bool login_path(const std::string& url) {
  const std::string path = path_of(url);
  for (const char* word : {"login", "log_in", "log-in", "signin", "sign_in", "sign-in", "/session"}) {
    if (path.find(word) != std::string::npos) return true;
  }
  return false;
}

std::string content_type(const HttpResponse& r) {
  const std::string* v = proto::find_header(r.headers, "content-type");
  return v == nullptr ? std::string() : *v;
}

}  // namespace

HttpRequest page_request(const std::string& url, const PageLoadOptions& options) {
  HttpRequest req;
  req.method = "GET";
  req.url = url;
  req.headers.emplace_back("accept",
                           "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8");
  for (const auto& h : options.headers) req.headers.push_back(h);
  req.timeout = options.timeout;
  req.max_redirects = options.max_redirects;
  req.insecure = options.insecure;
  return req;
}

LiveOutcome read_page(const std::string& requested_url, const HttpResponse& response, LiveViewPage& page) {
  const std::string where = response.url.empty() || response.url == requested_url
                                ? requested_url
                                : fmt::format("{} (redirected to {})", requested_url, response.url);
  auto fail = [&](std::string message, std::string reason) {
    LiveOutcome o = LiveOutcome::fail("page_error", std::move(message), std::move(reason));
    o.status = response.status;
    return o;
  };
  if (!response.error.empty()) {
    if (response.error_reason == "redirects") {
      return fail(fmt::format("GET {}: {}: a redirect loop? The last response ({}) sent the browser to {}",
                              requested_url, response.error, response.status,
                              proto::find_header(response.headers, "location") != nullptr
                                  ? *proto::find_header(response.headers, "location")
                                  : response.url),
                  "redirects");
    }
    LiveOutcome o = fail(fmt::format("GET {}: {}", requested_url, response.error), response.error_reason);
    o.local_exhaustion = response.local_exhaustion;
    return o;
  }
  if (response.status >= 400) {
    return fail(fmt::format("GET {} answered {}", where, response.status), fmt::format("status {}", response.status));
  }
  page.url = response.url.empty() ? requested_url : response.url;
  page.scan = lv::scan_page(response.body);
  page.track_static.clear();
  for (const std::string& href : page.scan.track_static) page.track_static.push_back(proto::resolve_url(page.url, href));

  // Redirected to a login page: phx.gen.auth's login page is itself a LiveView, so joining it
  // would "work" and measure the wrong page.
  const bool redirected = path_of(page.url) != path_of(requested_url);
  if (redirected && login_path(page.url)) {
    return fail(fmt::format("GET {} was sent to a login page instead of the LiveView: the virtual user is not "
                            "logged in: {}",
                            where, kLoginGuide),
                "login page");
  }
  if (lv::roots_to_join(page.scan).empty()) {
    if (login_path(page.url) || lv::find_element(response.body, "input[type=password]").has_value()) {
      return fail(fmt::format("GET {} shows a login page, not the LiveView: the page has no LiveView container "
                              "(an element with data-phx-session); the virtual user is not logged in: {}",
                              where, kLoginGuide),
                  "login page");
    }
    const std::string type = content_type(response);
    const bool html = type.empty() || lowercase(type).find("html") != std::string::npos;
    return fail(fmt::format("GET {} has no LiveView: no element with data-phx-session{} (is it a `live` route? a page "
                            "behind a login: {})",
                            where, html ? "" : fmt::format(" (the response is {}, not HTML)", type), kLoginGuide),
                "no liveview");
  }
  if (page.scan.csrf_token.empty()) {
    return fail(fmt::format("GET {} has no <meta name=\"csrf-token\" content=\"...\">: the LiveView socket needs the "
                            "page's CSRF token (root layouts render it with get_csrf_token()); without it every join "
                            "is refused as \"stale\" (a page other than the one expected? {})",
                            where, kLoginGuide),
                "no csrf token");
  }
  return LiveOutcome::success();
}

}  // namespace stampede::clients
