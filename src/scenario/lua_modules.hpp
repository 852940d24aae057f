#pragma once
// The Lua modules Stampede gives scenarios. Each lives in its own module_*.cpp file and
// only adapts a C++ call to a coroutine and a table: no protocol logic here.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/ip/address.hpp>

#include "clients/websocket_session.hpp"
#include "common/clock.hpp"

struct lua_State;
struct luaL_Reg;

namespace stampede::scenario {

class ScenarioRuntime;

// Registers the modules (`stampede`, `stampede.http`, ...) in package.preload.
void register_modules(lua_State* L, ScenarioRuntime* runtime);
ScenarioRuntime* runtime_of(lua_State* L);

// One module each (called by register_modules).
int open_stampede_module(lua_State* L);
int open_http_module(lua_State* L);
int open_json_module(lua_State* L);
int open_error_module(lua_State* L);
int open_websocket_module(lua_State* L);
int open_channels_module(lua_State* L);
int open_liveview_module(lua_State* L);
int open_sse_module(lua_State* L);
int open_graphql_ws_module(lua_State* L);
int open_socketio_module(lua_State* L);

// Loads `source` (a chunk named `chunk_name`: one of module_lua.hpp's files) and calls it with
// the `nargs` values on top of the stack, leaving what it returns: how a module adds its Lua half.
void run_module_lua(lua_State* L, std::string_view source, const char* chunk_name, int nargs = 1);

// A module whose C half is `functions` (a table, the Lua half's `c`) and whose Lua half is
// `source`, which returns the module: leaves the module on the stack and returns 1.
// (The streaming clients' modules open with stream_client::open_module.)
int open_module(lua_State* L, const luaL_Reg* functions, std::string_view source, const char* chunk_name);

// A duration argument: a number of milliseconds or a string such as "30s"; `fallback` when
// the argument is nil or absent. Raises a Lua error naming `fn` when it is not a duration.
Nanos duration_arg(lua_State* L, int index, const char* fn, Nanos fallback);

// Field `field` of the options table at `index` (an absolute index), read as duration_arg reads
// an argument; `fallback` when the field is nil or there is no table. Errors name `what`
// ("sse.connect timeout").
Nanos duration_field(lua_State* L, int index, const char* field, const char* what, Nanos fallback);

// A number field of the options table at `index` (an absolute index) as a count (messages,
// bytes); `fallback` when it is not a number or there is no table.
std::size_t count_field(lua_State* L, int index, const char* field, std::size_t fallback);

// table[field] = value, for the table on top of the stack.
void set_string(lua_State* L, const char* field, const std::string& value);

// A `local_addresses` option: "127.0.0.2", "127.0.0.2-127.0.0.9", "a,b" or a list of those;
// empty when nil. Raises a Lua error naming `fn` and the bad address.
std::vector<boost::asio::ip::address> local_addresses_arg(lua_State* L, int index, const char* fn);

// {a = 1, b = "x"} or {{"a", 1}, {"b", "x"}} (the second keeps order and allows repeats), as
// name/value strings; empty when nil. Raises a Lua error naming `fn` and `what` ("headers")
// when it is anything else.
std::vector<std::pair<std::string, std::string>> pairs_arg(lua_State* L, int index, const char* fn, const char* what);

// The options every WebSocket-based connect takes from its options table at `index`:
// headers, compression, insecure, local_addresses. Errors name `fn` ("channels.connect").
void socket_options_arg(lua_State* L, int index, const char* fn, clients::WebSocketSession::ConnectOptions& options);

// What a connect returns to its Lua half when it failed: nil, `message`, the one-word reason,
// the HTTP status (0 when none). Returns 4, the number of values pushed.
int push_connect_failure(lua_State* co, const std::string& message, const std::string& reason, int status);
int push_connect_failure(lua_State* co, const std::string& message, const clients::WebSocketSession::ConnectResult& result);

// Raises a Lua error from a binding when it is called outside a VU (at load time).
struct Vu;
Vu& require_vu(lua_State* L, const char* function_name);

}  // namespace stampede::scenario
