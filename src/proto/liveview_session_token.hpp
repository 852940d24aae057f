#pragma once
// What a page's data-phx-session token says about the LiveView that signed it, read without
// the secret (../shared/phoenix-protocol.md §5.4, §5.12). The token is a Phoenix.Token,
// "SFMyNTY.<base64url of an Erlang term>.<signature>", whose term is {{format, session}, signed_at,
// max_age}; `format` is LiveView's @token_vsn: 5 up to LiveView 1.0.5, 6 from 1.0.6. It is the
// one version mark a dead render carries. Pure.
#include <optional>
#include <string_view>

namespace stampede::proto::lv {

// The token's format number, or nullopt when `token` is not a Phoenix.Token with that shape.
std::optional<int> session_token_format(std::string_view token);

}  // namespace stampede::proto::lv
