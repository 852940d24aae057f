#pragma once
// Which LiveView a page comes from (../shared/phoenix-protocol.md §5.12), and whether this client
// speaks it. Before the join only the page is known: the session token's format number (5 up to
// LiveView 1.0.5, 6 from 1.0.6) is the one version mark a dead render carries. The join reply's
// "liveview_version" (from 0.20.15) then says exactly; older servers are told apart by the root
// flag "r":1 that every rendered tree carries since 0.20.
#include <optional>
#include <string>
#include <string_view>

#include "proto/liveview_page.hpp"

namespace stampede::clients {

// What to assume for the join payload given the page's data-phx-session token: 0.20.17 for
// format 5, 1.2.10 for format 6, nullopt when the token does not say (not a Phoenix.Token).
// Only the join's optional params depend on it, and servers ignore params they do not know.
std::optional<proto::lv::Version> version_from_session_token(std::string_view token);

// 0.20.x, 1.0.x, 1.1.x and 1.2.x: the releases whose wire this client was checked against.
bool supported_version(const proto::lv::Version& version);

// "LiveView 1.3.0 is not supported: Stampede speaks LiveView 0.20.x and 1.0 to 1.2".
std::string unsupported_version_message(std::string_view version_text);

}  // namespace stampede::clients
