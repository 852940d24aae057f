#include "proto/cookie.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "proto/ascii.hpp"
#include "proto/http_text.hpp"

namespace stampede::proto {
namespace {

// RFC 6265bis 5.6: larger cookies and attribute values are ignored, as browsers do.
constexpr std::size_t kMaxNameValueBytes = 4096;
constexpr std::size_t kMaxAttributeValueBytes = 1024;
constexpr std::int64_t kSecondsPerDay = 86400;

using ascii::iequals;
using ascii::is_digit;
using ascii::lowercase;
using http_text::trim_ows;

// A control character in a name or value would let a server inject into our Cookie header.
bool has_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return (c < 0x20 && c != '\t') || c == 0x7f;
  });
}

// ---- cookie-date (RFC 6265 5.1.1) ----------------------------------------------------------
// One lenient algorithm reads the RFC 1123, RFC 850 and asctime forms alike: the date is cut
// into tokens, and each token is tried as a time, a day, a month and a year in that order.

bool is_date_delimiter(unsigned char c) {
  return c == 0x09 || (c >= 0x20 && c <= 0x2f) || (c >= 0x3b && c <= 0x40) || (c >= 0x5b && c <= 0x60) ||
         (c >= 0x7b && c <= 0x7e);
}

// 1 to max_digits digits at the front, followed by the end or a non-digit.
std::optional<int> leading_number(std::string_view token, std::size_t min_digits, std::size_t max_digits,
                                  std::size_t* used = nullptr) {
  std::size_t n = 0;
  int v = 0;
  while (n < token.size() && is_digit(token[n])) {
    if (n == max_digits) return std::nullopt;
    v = v * 10 + (token[n] - '0');
    ++n;
  }
  if (n < min_digits) return std::nullopt;
  if (used != nullptr) *used = n;
  return v;
}

bool parse_time_token(std::string_view token, int& h, int& m, int& s) {
  int* fields[] = {&h, &m, &s};
  for (int i = 0; i < 3; ++i) {
    std::size_t used = 0;
    const auto v = leading_number(token, 1, 2, &used);
    if (!v) return false;
    *fields[i] = *v;
    token.remove_prefix(used);
    if (i < 2) {
      if (token.empty() || token.front() != ':') return false;
      token.remove_prefix(1);
    }
  }
  return true;
}

int month_of(std::string_view token) {
  static constexpr std::array<std::string_view, 12> kMonths{"jan", "feb", "mar", "apr", "may", "jun",
                                                            "jul", "aug", "sep", "oct", "nov", "dec"};
  if (token.size() < 3) return 0;
  for (std::size_t i = 0; i < kMonths.size(); ++i) {
    if (iequals(token.substr(0, 3), kMonths[i])) return static_cast<int>(i) + 1;
  }
  return 0;
}

bool is_leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int y, int m) {
  static constexpr std::array<int, 12> kDays{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : kDays[static_cast<std::size_t>(m - 1)];
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(int y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<std::int64_t>(y - era * 400);
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

std::optional<std::int64_t> parse_cookie_date(std::string_view text) {
  std::optional<int> hour, minute, second, day, month, year;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_date_delimiter(static_cast<unsigned char>(text[i]))) ++i;
    const std::size_t start = i;
    while (i < text.size() && !is_date_delimiter(static_cast<unsigned char>(text[i]))) ++i;
    const std::string_view token = text.substr(start, i - start);
    if (token.empty()) continue;
    int h = 0, m = 0, s = 0;
    if (!hour && parse_time_token(token, h, m, s)) {
      hour = h;
      minute = m;
      second = s;
    } else if (auto dom = day ? std::nullopt : leading_number(token, 1, 2)) {
      day = dom;
    } else if (int mon = month ? 0 : month_of(token); mon != 0) {
      month = mon;
    } else if (auto yr = year ? std::nullopt : leading_number(token, 2, 4)) {
      year = yr;
    }
  }
  if (!hour || !day || !month || !year) return std::nullopt;
  int y = *year;
  if (y >= 70 && y <= 99) y += 1900;
  if (y >= 0 && y <= 69) y += 2000;
  if (y < 1601 || *hour > 23 || *minute > 59 || *second > 59) return std::nullopt;
  if (*day < 1 || *day > days_in_month(y, *month)) return std::nullopt;
  return days_from_civil(y, *month, *day) * kSecondsPerDay + *hour * 3600 + *minute * 60 + *second;
}

// ---- attributes ----------------------------------------------------------------------------

// Max-Age: an optional '-' and digits; anything else is ignored. Huge values saturate.
std::optional<std::int64_t> parse_max_age(std::string_view v) {
  const bool negative = !v.empty() && v.front() == '-';
  if (negative) v.remove_prefix(1);
  if (v.empty() || !std::all_of(v.begin(), v.end(), is_digit)) return std::nullopt;
  if (negative) return std::int64_t{-1};
  std::int64_t n = 0;
  for (const char c : v) {
    n = n * 10 + (c - '0');
    if (n > std::numeric_limits<std::int32_t>::max()) return std::int64_t{std::numeric_limits<std::int32_t>::max()};
  }
  return n;
}

std::int64_t add_saturating(std::int64_t a, std::int64_t b) {
  if (b > 0 && a > std::numeric_limits<std::int64_t>::max() - b) return std::numeric_limits<std::int64_t>::max();
  return a + b;
}

// ---- matching (RFC 6265 5.1.3, 5.1.4) ------------------------------------------------------

bool is_ip_address(std::string_view host) {
  if (host.find(':') != std::string_view::npos) return true;  // IPv6, with or without brackets
  return !host.empty() && std::all_of(host.begin(), host.end(), [](char c) { return is_digit(c) || c == '.'; });
}

bool domain_matches(std::string_view host, std::string_view domain) {
  if (host == domain) return true;
  return host.size() > domain.size() && host.ends_with(domain) && host[host.size() - domain.size() - 1] == '.' &&
         !is_ip_address(host);
}

bool path_matches(std::string_view request_path, std::string_view cookie_path) {
  if (!request_path.starts_with(cookie_path)) return false;
  return request_path.size() == cookie_path.size() || cookie_path.back() == '/' ||
         request_path[cookie_path.size()] == '/';
}

std::string_view request_path_of(std::string_view path) {
  path = path.substr(0, path.find_first_of("?#"));
  return path.empty() ? std::string_view("/") : path;
}

std::string default_path(std::string_view request_path) {
  const std::string_view path = request_path_of(request_path);
  const std::size_t last_slash = path.rfind('/');
  if (path.front() != '/' || last_slash == 0) return "/";
  return std::string(path.substr(0, last_slash));
}

std::string normalise_host(std::string_view host) {
  std::string h = lowercase(host);
  if (!h.empty() && h.back() == '.') h.pop_back();
  return h;
}

bool expired(const Cookie& c, std::int64_t now_unix) { return c.expires_unix && *c.expires_unix <= now_unix; }

}  // namespace

std::optional<Cookie> parse_set_cookie(std::string_view header, std::int64_t now_unix) {
  const std::size_t semicolon = header.find(';');
  const std::string_view pair = header.substr(0, semicolon);
  const std::size_t eq = pair.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  Cookie c;
  c.name = trim_ows(pair.substr(0, eq));
  c.value = trim_ows(pair.substr(eq + 1));
  if (c.name.empty() || c.name.size() + c.value.size() > kMaxNameValueBytes || has_control(c.name) ||
      has_control(c.value)) {
    return std::nullopt;
  }

  std::optional<std::int64_t> max_age_expiry;
  std::optional<std::int64_t> expires;
  std::string_view attributes = semicolon == std::string_view::npos ? std::string_view{} : header.substr(semicolon + 1);
  while (!attributes.empty()) {
    const std::size_t next = attributes.find(';');
    const std::string_view attribute = attributes.substr(0, next);
    attributes = next == std::string_view::npos ? std::string_view{} : attributes.substr(next + 1);
    const std::size_t aeq = attribute.find('=');
    const std::string_view key = trim_ows(attribute.substr(0, aeq));
    const std::string_view value =
        aeq == std::string_view::npos ? std::string_view{} : trim_ows(attribute.substr(aeq + 1));
    if (value.size() > kMaxAttributeValueBytes) continue;
    // The last occurrence of each attribute wins (RFC 6265 5.3 step 11 walks them in order).
    if (iequals(key, "expires")) {
      if (auto t = parse_cookie_date(value)) expires = t;
    } else if (iequals(key, "max-age")) {
      if (auto delta = parse_max_age(value)) {
        max_age_expiry = *delta <= 0 ? std::numeric_limits<std::int64_t>::min() : add_saturating(now_unix, *delta);
      }
    } else if (iequals(key, "domain")) {
      if (value.empty()) continue;
      const std::string_view d = value.front() == '.' ? value.substr(1) : value;
      if (!d.empty() && !has_control(d)) c.domain = normalise_host(d);
    } else if (iequals(key, "path")) {
      if (!value.empty() && value.front() == '/' && !has_control(value)) {
        c.path = value;
      } else {
        c.path.clear();  // the default path applies
      }
    } else if (iequals(key, "secure")) {
      c.secure = true;
    } else if (iequals(key, "httponly")) {
      c.http_only = true;
    } else if (iequals(key, "samesite")) {
      c.same_site = lowercase(value);
    }
  }
  c.expires_unix = max_age_expiry ? max_age_expiry : expires;  // Max-Age wins (RFC 6265 5.3 step 3)
  c.host_only = c.domain.empty();
  return c;
}

void CookieJar::store(std::string_view set_cookie_header, std::string_view host, std::string_view request_path,
                      std::int64_t now_unix) {
  auto parsed = parse_set_cookie(set_cookie_header, now_unix);
  if (!parsed) return;
  Cookie& c = *parsed;
  const std::string h = normalise_host(host);
  if (c.host_only) {
    c.domain = h;
  } else {
    // A single-label Domain ("com") is a public suffix in all but name: accepting it would
    // send the cookie to every site under it. Only a host that is itself that label may set it.
    if (c.domain.find('.') == std::string::npos && c.domain != h) return;
    if (!domain_matches(h, c.domain)) return;
  }
  if (c.path.empty()) c.path = default_path(request_path);

  std::erase_if(cookies_, [&](const Cookie& old) { return expired(old, now_unix); });
  const auto same = std::find_if(cookies_.begin(), cookies_.end(), [&](const Cookie& old) {
    return old.name == c.name && old.domain == c.domain && old.path == c.path;
  });
  if (expired(c, now_unix)) {
    if (same != cookies_.end()) cookies_.erase(same);  // how servers delete a cookie
  } else if (same != cookies_.end()) {
    *same = std::move(c);  // keeps its place, i.e. its creation order (RFC 6265 5.3 step 11.3)
  } else {
    cookies_.push_back(std::move(c));
  }
}

std::string CookieJar::header_for(std::string_view host, std::string_view path, bool secure,
                                  std::int64_t now_unix) const {
  const std::string h = normalise_host(host);
  const std::string_view p = request_path_of(path);
  std::vector<const Cookie*> matching;
  for (const Cookie& c : cookies_) {
    if (expired(c, now_unix) || (c.secure && !secure)) continue;
    if (c.host_only ? c.domain != h : !domain_matches(h, c.domain)) continue;
    if (!path_matches(p, c.path)) continue;
    matching.push_back(&c);
  }
  // Longer paths first; among equals, older first, which is the jar's order (RFC 6265 5.4).
  std::stable_sort(matching.begin(), matching.end(),
                   [](const Cookie* a, const Cookie* b) { return a->path.size() > b->path.size(); });
  std::string out;
  for (const Cookie* c : matching) {
    if (!out.empty()) out += "; ";
    out += c->name;
    out += '=';
    out += c->value;
  }
  return out;
}

}  // namespace stampede::proto
