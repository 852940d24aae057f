#pragma once
// The scenario a recording becomes (scenario_builder.hpp makes it, lua_writer.hpp writes it):
// user actions in the order they happened, each one call of Stampede's Lua API, with the think
// time between them. Values that change per session are not in it: they are references to
// what the live client reads at run time (see Ref).
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace stampede::record {

// A value the scenario computes at run time instead of a recorded literal: a JSON string
// "\x01ref:NAME" anywhere in a Step's JSON (payloads, bodies) or in a URL (between "\x01ref:"
// and "\x02") stands for the Lua expression NAME (a local the scenario set earlier).
inline constexpr std::string_view kRefPrefix = "\x01ref:";
inline constexpr char kRefEnd = '\x02';
std::string runtime_ref(std::string_view lua_expression);  // "\x01ref:" + expression (JSON values)
std::string url_runtime_ref(std::string_view lua_expression);  // the same, ended by \x02 (inside URLs)

using Fields = std::vector<std::pair<std::string, std::string>>;

struct Step {
  enum class Kind {
    Comment,          // `lines` as Lua comments
    Sleep,            // think time: `ms`
    Http,             // method, url, headers, body (json | form | raw), expect_status, extracts
    LiveConnect,      // url; socket_path, params
    LiveEvent,        // type (click, keyup, keydown, blur, focus, hook), event, value, cid, view_id
    LiveChange,       // event, fields, field, cid, view_id
    LiveTyping,       // a run of phx-change, one per keystroke: event, fields (final), field, typed_from
    LiveSubmit,       // event, fields, cid, view_id
    LivePatch,        // url
    LiveNavigate,     // url
    LiveUpload,       // upload_name, files, view_id
    ChannelsConnect,  // var, url, params, serializer, dropped (token params left out)
    ChannelsJoin,     // var, topic, value (payload)
    ChannelsPush,     // var, topic, event, value or binary
    ChannelsCast,     // the same, no reply awaited
    ChannelsAwait,    // var, topic, event
    ChannelsLeave,    // var, topic
    WebSocketFallback,  // url, lines: a plain-WebSocket replay, commented out
  };
  Kind kind = Kind::Comment;
  double at_ms = 0;   // when the user acted (recorded)
  double end_ms = 0;  // when its answer was complete
  std::string var;    // the Lua variable acted on: "view", "socket", "socket2"
  std::string url;    // path + query relative to the origin (may hold url_runtime_ref()s), or absolute when foreign
  std::string method;
  std::string type;
  std::string event;
  std::string topic;
  boost::json::value value;     // null: none
  std::string binary;           // a binary Channels payload (bytes)
  bool is_binary = false;
  Fields fields;
  std::string field;
  std::size_t typed_from = 0;   // LiveTyping: the first keystroke's length
  int cid = -1;                 // -1: none
  std::string view_id;
  bool navigates = false;       // the reply navigated away: follow it
  std::string follow_to;        // a full-page "redirect" it followed (absolute): that page's load is the follow's
  std::string socket_path;      // LiveConnect: "" = "/live"
  boost::json::object params;   // LiveConnect / ChannelsConnect
  std::string serializer;       // ChannelsConnect: "" = "2.0.0"
  std::vector<std::string> dropped;  // ChannelsConnect: params left out; Http: headers left out
  // Http
  Fields headers;
  enum class Body { None, Json, Form, Raw } body = Body::None;
  std::string raw_body;
  std::string content_type;     // Raw bodies
  int expect_status = 0;
  std::vector<std::pair<std::string, std::string>> extracts;  // local NAME = <lua expression of res>
  std::string response_body;   // recorded (text bodies only): what correlation reads
  std::string response_mime;
  // LiveUpload
  std::string upload_name;
  struct File {
    std::string name;
    std::uint64_t size = 0;
    std::string type;
  };
  std::vector<File> files;
  std::vector<std::string> lines;  // Comment, WebSocketFallback
};

// What was recorded and what was left out, for the comment at the top and `convert --check`.
struct Summary {
  std::string source;           // "HAR 1.2 from Chromium 156" / "stampede record"
  std::string origin;           // http://127.0.0.1:4000
  std::string started_at;       // ISO 8601 ("" when unknown)
  std::size_t pages = 0;        // LiveView page loads + plain page GETs kept
  std::size_t requests = 0;     // HTTP requests kept
  std::size_t liveviews = 0;    // LiveView joins (main views)
  std::size_t live_events = 0;  // user events sent to LiveViews (clicks, forms, keys, hooks)
  std::size_t live_navigations = 0;
  std::size_t uploads = 0;
  std::size_t channel_sockets = 0;
  std::vector<std::string> topics;       // channel topics joined
  std::vector<std::string> live_urls;    // LiveView pages, in order
  std::vector<std::string> events;       // "click inc", "submit save", "push room:lobby new_msg"...
  std::size_t dropped_static = 0;
  std::size_t dropped_other_origins = 0;
  std::size_t dropped_longpoll = 0;
  std::size_t dropped_failed = 0;        // requests without a response
  std::size_t dropped_heartbeats = 0;
  std::size_t internal_frames = 0;       // progress, cids_*, upload chunks, leaves: the client sends its own
  std::size_t not_understood = 0;        // frames kept as comments
  std::size_t correlated = 0;            // values replaced by variables
  std::size_t hidden_tokens = 0;         // per-session values not hard-coded
};

struct Scenario {
  std::string name;
  Summary summary;
  std::vector<Step> steps;
  bool needs_csrf_helper = false;
  bool needs_follow_helper = false;
};

}  // namespace stampede::record
