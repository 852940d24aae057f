#pragma once
// URL-safe base64 without padding (RFC 4648 §5), the alphabet of every Phoenix token, id and
// CSRF token the LiveView pages carry.
#include <optional>
#include <string>
#include <string_view>

namespace stampede::target {

void append_base64url(std::string& out, std::string_view bytes);
std::string base64url(std::string_view bytes);
// nullopt for a character outside the alphabet or an impossible length (padding is refused:
// Phoenix never writes it).
std::optional<std::string> decode_base64url(std::string_view text);

}  // namespace stampede::target
