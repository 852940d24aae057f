// Arbitrary Set-Cookie headers into a jar: line 1 is the host, line 2 the request path, each
// further line a Set-Cookie value. Whatever is stored must be sane and the Cookie header the
// jar produces must never carry a byte that could split or end a header.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "proto/cookie.hpp"

using stampede::proto::CookieJar;
using stampede::proto::parse_set_cookie;

namespace {

constexpr std::int64_t kNow = 1'704'067'200;

std::vector<std::string_view> lines(std::string_view s) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    const std::size_t nl = s.find('\n');
    out.push_back(s.substr(0, nl));
    if (nl == std::string_view::npos) break;
    s.remove_prefix(nl + 1);
  }
  return out;
}

bool safe_in_a_header(std::string_view s) {
  for (const char c : s) {
    if (c == '\r' || c == '\n' || c == '\0') return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (auto c = parse_set_cookie(input, kNow)) {
    if (c->name.empty() || !safe_in_a_header(c->name) || !safe_in_a_header(c->value)) std::abort();
  }

  const auto parts = lines(input);
  if (parts.size() < 3) return 0;
  const std::string_view host = parts[0];
  const std::string_view path = parts[1];
  CookieJar jar;
  for (std::size_t i = 2; i < parts.size(); ++i) jar.store(parts[i], host, path, kNow + static_cast<std::int64_t>(i));
  for (const auto& c : jar.cookies()) {
    if (c.name.empty() || c.path.empty() || c.path.front() != '/') std::abort();
    for (const char ch : c.domain) {
      if (ch >= 'A' && ch <= 'Z') std::abort();
    }
  }
  for (const bool secure : {false, true}) {
    const std::string header = jar.header_for(host, path, secure, kNow + 100);
    if (!safe_in_a_header(header)) std::abort();
  }
  return 0;
}
