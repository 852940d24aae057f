#include "clients/liveview_version.hpp"

#include <array>
#include <cstdint>
#include <fmt/format.h>

namespace stampede::clients {

namespace {

int base64url_digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-' || c == '+') return 62;
  if (c == '_' || c == '/') return 63;
  return -1;
}

}  // namespace

std::optional<proto::lv::Version> version_from_session_token(std::string_view token) {
  // "SFMyNTY.<base64url of the term>.<signature>"; the term starts
  // 131 (external format), 104 3 (3-tuple: data, signed_at, max_age), 104 2 (2-tuple), 97 N
  // (small integer N: the format), so its first nine bytes are in the first twelve characters.
  const auto dot = token.find('.');
  if (dot == std::string_view::npos || token.size() < dot + 1 + 12) return std::nullopt;
  const std::string_view term = token.substr(dot + 1, 12);
  std::array<std::uint8_t, 9> bytes{};
  for (std::size_t group = 0; group < 3; ++group) {
    std::uint32_t bits = 0;
    for (std::size_t i = 0; i < 4; ++i) {
      const int d = base64url_digit(term[group * 4 + i]);
      if (d < 0) return std::nullopt;
      bits = (bits << 6) | static_cast<std::uint32_t>(d);
    }
    bytes[group * 3] = static_cast<std::uint8_t>(bits >> 16);
    bytes[group * 3 + 1] = static_cast<std::uint8_t>(bits >> 8);
    bytes[group * 3 + 2] = static_cast<std::uint8_t>(bits);
  }
  if (bytes[0] != 131 || bytes[1] != 104 || bytes[2] != 3 || bytes[3] != 104 || bytes[4] != 2 || bytes[5] != 97)
    return std::nullopt;
  if (bytes[6] == 5) return proto::lv::Version{0, 20, 17};
  if (bytes[6] == 6) return proto::lv::Version{1, 2, 10};
  return std::nullopt;
}

bool supported_version(const proto::lv::Version& v) {
  return (v.major == 0 && v.minor == 20) || (v.major == 1 && v.minor <= 2);
}

std::string unsupported_version_message(std::string_view version_text) {
  return fmt::format("LiveView {} is not supported: Stampede speaks LiveView 0.20.x and 1.0 to 1.2", version_text);
}

}  // namespace stampede::clients
