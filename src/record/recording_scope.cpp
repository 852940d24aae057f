#include "record/recording_scope.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "proto/ascii.hpp"
#include "proto/form.hpp"

namespace stampede::record {
namespace {

using proto::ascii::lowercase;

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::string UrlParts::origin() const {
  std::string web_scheme = scheme == "ws" ? "http" : scheme == "wss" ? "https" : scheme;
  std::string host = authority;
  if ((web_scheme == "http" && ends_with(host, ":80")) || (web_scheme == "https" && ends_with(host, ":443")))
    host.resize(host.rfind(':'));
  return web_scheme + "://" + host;
}

std::string relative_url(const std::string& absolute) {
  if (auto url = split_url(absolute)) return url->path_and_query();
  return absolute;
}

std::optional<UrlParts> split_url(std::string_view url) {
  const auto colon = url.find("://");
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  UrlParts parts;
  parts.scheme = lowercase(url.substr(0, colon));
  if (parts.scheme != "http" && parts.scheme != "https" && parts.scheme != "ws" && parts.scheme != "wss")
    return std::nullopt;
  auto rest = url.substr(colon + 3);
  rest = rest.substr(0, rest.find('#'));
  const auto path_at = rest.find_first_of("/?");
  parts.authority = lowercase(rest.substr(0, path_at));
  if (parts.authority.empty()) return std::nullopt;
  // user:password@ is not part of the origin
  if (const auto at = parts.authority.rfind('@'); at != std::string::npos) parts.authority.erase(0, at + 1);
  if (path_at == std::string_view::npos) {
    parts.path = "/";
    return parts;
  }
  rest = rest.substr(path_at);
  const auto question = rest.find('?');
  parts.path = std::string(rest.substr(0, question));
  if (parts.path.empty()) parts.path = "/";
  if (question != std::string_view::npos) parts.query = std::string(rest.substr(question + 1));
  return parts;
}

std::string detect_origin(const Recording& recording) {
  for (const auto& exchange : recording.exchanges) {
    if (exchange.websocket) continue;
    const bool html = exchange.response_mime.find("html") != std::string::npos;
    if (exchange.resource_type == "document" || (exchange.resource_type.empty() && html)) {
      if (auto url = split_url(exchange.url)) return url->origin();
    }
  }
  for (const auto& exchange : recording.exchanges)
    if (auto url = split_url(exchange.url)) return url->origin();
  return {};
}

bool is_static_asset(const Exchange& exchange, const UrlParts& url) {
  static constexpr std::array<std::string_view, 8> kTypes{"script", "stylesheet", "image", "font",
                                                          "media", "manifest", "texttrack", "other"};
  if (std::find(kTypes.begin(), kTypes.end(), exchange.resource_type) != kTypes.end() &&
      exchange.resource_type != "other")
    return true;
  static constexpr std::array<std::string_view, 22> kExtensions{
      ".js",  ".mjs", ".css", ".map",  ".png",  ".jpg", ".jpeg", ".gif", ".svg", ".ico", ".webp",
      ".avif", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp4", ".webm", ".mp3", ".webmanifest", ".txt"};
  const auto path = lowercase(url.path);
  for (const auto extension : kExtensions)
    if (ends_with(path, extension)) return extension != ".txt" || path == "/robots.txt";
  const auto& mime = exchange.response_mime;
  for (const std::string_view kind : {"javascript", "text/css", "image/", "font/", "audio/", "video/"})
    if (mime.find(kind) != std::string::npos) return true;
  return false;
}

bool is_longpoll(const UrlParts& url) { return ends_with(url.path, "/longpoll"); }

std::string query_value(std::string_view query, std::string_view name) {
  for (const auto& [key, value] : proto::decode_form(query))
    if (key == name) return value;
  return {};
}

}  // namespace stampede::record
