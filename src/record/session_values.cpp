#include "record/session_values.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace stampede::record {

bool is_session_name(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static constexpr std::array<std::string_view, 8> kWords{"token", "csrf", "secret", "signature",
                                                          "password", "auth", "session", "jwt"};
  return std::any_of(kWords.begin(), kWords.end(), [&](std::string_view w) { return lower.find(w) != std::string::npos; });
}

bool is_session_value(std::string_view value) {
  // Phoenix.Token / signed cookies: "SFMyNTY." is base64 of "HS256"'s Plug.Crypto prefix.
  if (value.rfind("SFMyNTY.", 0) == 0 || value.rfind("QTEyOEdDTQ.", 0) == 0) return true;
  // A JWT: three base64url parts, the first a JSON header.
  if (value.rfind("eyJ", 0) == 0 && std::count(value.begin(), value.end(), '.') == 2) return true;
  return false;
}

}  // namespace stampede::record
