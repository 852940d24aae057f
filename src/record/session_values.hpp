#pragma once
// Values that change per session (tokens, signatures, CSRF) and must never be replayed from a
// recording: by the name they are sent under, or by their look (Phoenix.Token, JWT).
#include <string_view>

namespace stampede::record {

bool is_session_name(std::string_view name);    // token, _csrf_token, user_token, secret, auth...
bool is_session_value(std::string_view value);  // "SFMyNTY.…", "eyJ….….…"

}  // namespace stampede::record
