#include "proto/liveview_session_token.hpp"

#include "proto/base64.hpp"

namespace stampede::proto::lv {

std::optional<int> session_token_format(std::string_view token) {
  // The term starts 131 (external format), 104 3 (a 3-tuple: data, signed_at, max_age), 104 2
  // (data, a 2-tuple), 97 N (a small integer: the format), so its first nine bytes are the
  // first twelve characters.
  const auto dot = token.find('.');
  if (dot == std::string_view::npos || token.size() < dot + 1 + 12) return std::nullopt;
  const auto bytes = decode_base64url(token.substr(dot + 1, 12));
  if (!bytes) return std::nullopt;
  const auto at = [&](std::size_t i) { return static_cast<unsigned char>((*bytes)[i]); };
  if (at(0) != 131 || at(1) != 104 || at(2) != 3 || at(3) != 104 || at(4) != 2 || at(5) != 97) return std::nullopt;
  return at(6);
}

}  // namespace stampede::proto::lv
