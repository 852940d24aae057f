#pragma once
// The first thing a browser does for a LiveView: GET the page (following redirects, keeping
// cookies: the VU's HttpSession does both), then read what the socket and the join need from
// it (proto/liveview_page.hpp). When the page is not a LiveView page, say why in words a user
// can act on: an HTTP error, a redirect loop, no LiveView container, no CSRF meta tag, or a
// login page where the LiveView was expected.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "clients/http_session.hpp"
#include "clients/liveview_outcome.hpp"
#include "proto/liveview_page.hpp"

namespace stampede::clients {

struct LiveViewPage {
  std::string url;                         // after redirects: the URL the join sends
  proto::lv::PageScan scan;                // csrf_token, views, title
  std::vector<std::string> track_static;   // scan.track_static resolved against `url`
};

struct PageLoadOptions {
  std::vector<std::pair<std::string, std::string>> headers;  // added to the GET
  Nanos timeout = 10 * kSecond;
  int max_redirects = 10;
  bool insecure = false;
};

// The GET request a browser's address bar makes for `url`.
HttpRequest page_request(const std::string& url, const PageLoadOptions& options);

// Reads the response to page_request: a page, or a page_error outcome naming `requested_url`
// (and where redirects led) and what was missing. reason: the transport's reason word,
// "status <n>", "redirects", "no liveview", "login page" or "no csrf token".
LiveOutcome read_page(const std::string& requested_url, const HttpResponse& response, LiveViewPage& page);

}  // namespace stampede::clients
