#include "clients/url_mistake.hpp"

#include <boost/url/parse.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>

#include "proto/ascii.hpp"
#include "proto/http_text.hpp"

namespace stampede::clients {

namespace {

constexpr std::array<std::string_view, 4> kSchemes{"http", "https", "ws", "wss"};

using proto::ascii::lowercase;

bool is_ours(std::string_view scheme) {
  for (std::string_view s : kSchemes)
    if (s == scheme) return true;
  return false;
}

bool is_web(std::string_view scheme) { return scheme == "http" || scheme == "https"; }

// Levenshtein distance, for "htp" -> "http"; the strings are a few characters long.
std::size_t distance(std::string_view a, std::string_view b) {
  std::array<std::size_t, 16> row{};
  if (b.size() >= row.size()) return b.size();
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The scheme of `schemes` a misspelt one is closest to ("htp", "hhtp", "wws"), or empty
// when none is near: one edit away, or two with the same first letter ("ftp" is not "http").
std::string_view closest_scheme(std::string_view scheme, UrlSchemes schemes) {
  std::string_view best;
  std::size_t best_distance = 3;
  for (std::string_view s : kSchemes) {
    if (is_web(s) != (schemes == UrlSchemes::http)) continue;
    const std::size_t d = distance(scheme, s);
    if (d == 2 && (scheme.empty() || scheme.front() != s.front())) continue;
    if (d < best_distance) {
      best = s;
      best_distance = d;
    }
  }
  return best;
}

// A character a URL cannot carry as it is (RFC 3986: controls, space, non-ASCII, and
// "<>\"{}|\\^`"), as "'é' at character 12"; empty when there is none.
std::string unencoded_character(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool bad = c <= 0x20 || c >= 0x7f || std::string_view("<>\"{}|\\^`").find(static_cast<char>(c)) !=
                                                     std::string_view::npos;
    if (!bad) continue;
    std::size_t end = i + 1;
    if (c >= 0xc0)
      while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80) ++end;
    const std::string shown = c == ' ' ? "a space" : c < 0x20 ? fmt::format("byte 0x{:02x}", c)
                                                              : fmt::format("'{}'", text.substr(i, end - i));
    return fmt::format("{} at character {}", shown, i + 1);
  }
  return {};
}

// What follows "scheme://" when the scheme is right: the host and port, and the rest.
std::string describe_after_scheme(std::string_view rest) {
  const std::size_t authority_end = std::min(rest.size(), rest.find_first_of("/?#"));
  const std::string_view authority = rest.substr(0, authority_end);
  if (authority.empty()) return "it has no host";
  if (authority.front() == '[' && authority.find(']') == std::string_view::npos)
    return "its IPv6 address has no closing ']'";
  const std::size_t bracket = authority.rfind(']');
  const std::size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
    const std::string_view port = authority.substr(colon + 1);
    if (port.find_first_not_of("0123456789") != std::string_view::npos)
      return fmt::format("its port \"{}\" is not a number", port);
  }
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] != '%') continue;
    const auto hex = [&](std::size_t at) {
      return at < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[at])) != 0;
    };
    if (!hex(i + 1) || !hex(i + 2)) return "it has a '%' that two hex digits do not follow: write %25 for a percent sign";
  }
  return {};
}

}  // namespace

std::string describe_url_mistake(std::string_view text, UrlSchemes schemes) {
  const bool web = schemes == UrlSchemes::http;
  const std::string_view usual = web ? "http" : "ws";
  const std::string_view expected =
      web ? "an HTTP URL starts with http:// or https://" : "a WebSocket URL starts with ws:// or wss://";
  if (text.empty()) return "the URL is empty";
  if (text.front() == ' ' || text.back() == ' ' || text.front() == '\t' || text.back() == '\n')
    return "it starts or ends with a space: trim it";
  if (std::string bad = unencoded_character(text); !bad.empty())
    return fmt::format("it has {}, which a URL cannot carry as it is: percent-encode it (a space is %20)", bad);

  const std::size_t separator = text.find("://");
  if (separator == std::string_view::npos) {
    if (text.front() == '/')
      return fmt::format("it is a path, not a whole URL: give the scheme and the host too, e.g. {}://localhost:4000{}",
                         usual, text);
    const std::size_t colon = text.find(':');
    if (colon != std::string_view::npos && is_ours(lowercase(text.substr(0, colon)))) {
      std::string_view rest = text.substr(colon + 1);
      while (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
      return fmt::format("\"{}:\" must be followed by \"//\": did you mean {}://{}?", text.substr(0, colon),
                         lowercase(text.substr(0, colon)), rest);
    }
    return fmt::format("missing scheme: did you mean {}://{}?", usual, text);
  }

  const std::string scheme = lowercase(text.substr(0, separator));
  const std::string_view rest = text.substr(separator + 3);
  if (is_ours(scheme) && is_web(scheme) != web) {
    const std::string_view same_security = web ? (scheme == "wss" ? "https" : "http") : (scheme == "https" ? "wss" : "ws");
    return fmt::format("{} ({} is {} scheme): did you mean {}://{}?", expected, scheme,
                       web ? "a WebSocket" : "an HTTP", same_security, rest);
  }
  if (!is_ours(scheme)) {
    if (const std::string_view near = closest_scheme(scheme, schemes); !near.empty())
      return fmt::format("unknown scheme \"{}\": did you mean {}://{}?", text.substr(0, separator), near, rest);
    return fmt::format("{}, not {}://", expected, text.substr(0, separator));
  }
  if (std::string why = describe_after_scheme(rest); !why.empty()) return why;
  const auto parsed = boost::urls::parse_uri(text);
  return fmt::format("it is not a valid URL ({})", parsed ? "unknown reason" : parsed.error().message());
}

}  // namespace stampede::clients
