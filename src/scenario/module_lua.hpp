#pragma once
// The Lua halves of the scenario modules: the files in src/scenario/lua/, embedded by
// cmake/ScenarioLua.cmake. Each is a chunk that module_*.cpp runs with run_module_lua().
#include <string_view>

namespace stampede::scenario::module_lua {

extern const std::string_view stampede_lua;
extern const std::string_view http_lua;
extern const std::string_view error_lua;
extern const std::string_view websocket_lua;
extern const std::string_view channels_lua;
extern const std::string_view liveview_lua;
extern const std::string_view sse_lua;
extern const std::string_view graphql_ws_lua;
extern const std::string_view socketio_lua;
extern const std::string_view stream_client_lua;  // shared by channels, sse, graphql_ws, socketio

}  // namespace stampede::scenario::module_lua
