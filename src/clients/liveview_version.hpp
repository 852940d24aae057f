#pragma once
// Which LiveView a page comes from (../shared/phoenix-protocol.md §5.12), and whether this client
// speaks it. Before the join only the page is known, and all it tells is a dialect: its session
// token's format (5 up to LiveView 1.0.5, 6 from 1.0.6). The join reply's "liveview_version"
// (from 0.20.15) then says exactly; older servers are told apart by the root flag "r":1 that
// every rendered tree carries since 0.20.
#include <string>
#include <string_view>

#include "proto/liveview_page.hpp"

namespace stampede::clients {

// What the page says before a join reply does.
struct PageDialect {
  // For view:version() until the join reply: "0.20 to 1.0.5 (session token format 5)",
  // "1.0.6 or later (session token format 6)", or "unknown (not joined)" when the token
  // does not say.
  std::string text;
  // Whose join payload to send, which is all that depends on it (the join's optional params:
  // _mount_attempts from 1.0.0, sticky from 1.0.10). Format 5 joins as 0.20 does, the part
  // of that range this client supports best; format 6, and a token that says nothing, join
  // as the newest release checked: servers ignore params they do not know. Not a version
  // the server reported, so never shown as one.
  proto::lv::Version join_as;
};
PageDialect page_dialect(std::string_view session_token);

// 0.20.x, 1.0.x, 1.1.x and 1.2.x: the releases whose wire this client was checked against.
bool supported_version(const proto::lv::Version& version);

// "LiveView 1.3.0 is not supported: Stampede speaks LiveView 0.20.x and 1.0 to 1.2".
std::string unsupported_version_message(std::string_view version_text);

}  // namespace stampede::clients
