#pragma once
// The two LiveView wire dialects the target speaks, each copied from a recorded app
// (tests/vectors/liveview-captures/): the same demo app on Phoenix 1.7.24 / LiveView 0.20.17
// and on Phoenix 1.8.12 / LiveView 1.2.10. What differs on the wire (../shared/phoenix-protocol.md
// §5.12): comprehensions ("d" lists against keyed "k"), where the statics table "p" lives,
// the session token format (5 against 6), chunk_timeout in upload configs, the phx_error
// payload, and a few bytes of the templates.
//
// Where each dialect is served: the pages under "/" (and the socket at /live/websocket) speak
// the dialect chosen with `stampede target --liveview` (1.x by default); "/lv020/..." always
// speaks 0.20 and "/lv1x/..." always 1.x, so one target serves both at once.
#include <cstdint>
#include <optional>
#include <string_view>

namespace stampede::target {

enum class LiveViewDialect : std::uint8_t { V0_20, V1 };

inline constexpr std::string_view kLv020Prefix = "/lv020";
inline constexpr std::string_view kLv1Prefix = "/lv1x";

// The URL space a page lives in: its dialect, and the prefix its links are written under.
struct LiveViewScope {
  LiveViewDialect dialect = LiveViewDialect::V1;
  std::string_view prefix;  // "" for the pages under "/"
};

// "0.20" or "1.x" (also "0.20.17", "1", "1.2", "1.2.10"); nullopt otherwise.
std::optional<LiveViewDialect> parse_liveview_dialect(std::string_view text);
std::string_view dialect_name(LiveViewDialect dialect);  // "0.20", "1.x"

// What the server reports in join replies ("liveview_version").
std::string_view liveview_version(LiveViewDialect dialect);
// Phoenix.LiveView.Static's @token_vsn: a token of the other format is "stale".
int session_token_vsn(LiveViewDialect dialect);

// Splits a request path into its scope and the path inside it ("/lv020/posts" -> 0.20,
// "/posts"); any other path is in the root scope, unchanged.
LiveViewScope scope_of_path(std::string_view path, LiveViewDialect root_dialect, std::string_view& rest);

}  // namespace stampede::target
