#pragma once
// What the target makes of an HTTP request to a LongPoll path, in the order
// Phoenix.Transports.LongPoll decides (the session's part is LongPollSessions'):
//   /socket/longpoll                  Phoenix channels (the same vsn rules as /socket/websocket)
//   /live/longpoll                    LiveView (and /lv020/live/longpoll, /lv1x/live/longpoll): the
//                                     session cookie and _csrf_token of the opening GET decide
//                                     whether joins can succeed, as for the WebSocket
//   OPTIONS                           CORS preflight: 200 with Allow-Origin *
//   GET without a token               open a session (403 {"status":403} for a bad vsn)
//   GET with a token                  poll; when no session has it, open one as without
//   POST with a token                 publish
//   POST without a token              {"status":410}
//   any other method                  400
// Pure: no sockets.
#include <optional>
#include <string>
#include <string_view>

#include "proto/http_request_parser.hpp"
#include "target/liveview_dialect.hpp"
#include "target/longpoll_sessions.hpp"

namespace stampede::target {

struct LongPollPlan {
  enum class Kind { Answer, Open, Poll, Publish };
  Kind kind = Kind::Answer;
  // Answer: the whole response.
  int status = 200;
  std::string_view content_type;  // a string literal
  std::string body;
  std::string headers;  // extra header lines ("Name: value\r\n")
  // Open; Poll: the session to open when no session has the token (nullopt: the vsn refuses it).
  std::optional<LongPollSessions::Open> open;
  std::string token;  // Poll, Publish
};

// Whether `path` is a LongPoll transport path of the target.
bool is_longpoll_path(std::string_view path, LiveViewDialect root_liveview);

LongPollPlan plan_longpoll(const proto::HttpRequest& request, std::string_view path, std::string_view query,
                           LiveViewDialect root_liveview);

}  // namespace stampede::target
