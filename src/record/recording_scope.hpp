#pragma once
// Which recorded requests belong to the app under test, and which are noise: the app's origin
// (the first page's, or --origin), static assets, other origins, LongPoll fallbacks.
#include <optional>
#include <string>
#include <string_view>

#include "record/recording.hpp"

namespace stampede::record {

struct UrlParts {
  std::string scheme;     // lowercase: http, https, ws, wss
  std::string authority;  // host[:port] as written, lowercase
  std::string path;       // "/" at least
  std::string query;      // without '?', "" when none
  // "http://host:port" with ws -> http, wss -> https and default ports left out, so that a
  // page and its socket share an origin.
  std::string origin() const;
  std::string path_and_query() const { return query.empty() ? path : path + "?" + query; }
};

// nullopt for a URL without scheme://host (data:, blob:, about:...).
std::optional<UrlParts> split_url(std::string_view url);

// A step's URL as a scenario writes it: the path and query, or `absolute` as it is when it
// is not a URL split_url reads.
std::string relative_url(const std::string& absolute);

// The origin of the app: the first document (an HTML page) the browser loaded, else the first
// request's. "" when the recording has nothing.
std::string detect_origin(const Recording& recording);

// Scripts, styles, images, fonts, media, source maps, manifests: what a browser fetches by
// itself and a load test of the app's behaviour leaves out by default (--keep-static).
bool is_static_asset(const Exchange& exchange, const UrlParts& url);

// Phoenix's LongPoll transport (the LiveSocket's fallback when the WebSocket is slow).
bool is_longpoll(const UrlParts& url);

// A query's value for `name` ("" when absent), percent-decoded.
std::string query_value(std::string_view query, std::string_view name);

}  // namespace stampede::record
