// `stampede.sse`: Server-Sent Events. The source (connection, parsing, reconnections) lives in
// clients::SseStream; this file adapts it to coroutines and tables. connect() yields until the
// first response head is accepted; events are kept until await() reads them.
#include <lua.hpp>
#include <memory>
#include <string>

#include "clients/sse_stream.hpp"
#include "scenario/lua_modules.hpp"
#include "scenario/module_lua.hpp"
#include "scenario/scenario_runtime.hpp"
#include "scenario/stream_client_bindings.hpp"

namespace stampede::scenario {

// Named, and not only anonymous: a unity build (docs/design/023) compiles several modules
// as one translation unit, and each has its own l_connect, l_close, kType...
namespace sse_bindings {
namespace {

struct Sse {
  using Client = clients::SseStream;
  using Message = clients::SseEvent;
  static constexpr const char* kType = "stampede.sse.Stream";
  static constexpr const char* kReleased = "sse: the stream was already released";
  static constexpr int kFields = 4;

  static void set_fields(lua_State* L, const Message& e) {
    set_string(L, "event", e.type);
    set_string(L, "data", e.data);
    set_string(L, "id", e.id);
  }
};
using Bindings = stream_client::Bindings<Sse>;

// connect(url, opts) -> handle | nil, message, reason, status
int l_connect(lua_State* L) {
  ScenarioRuntime* rt = runtime_of(L);
  const std::string url = luaL_checkstring(L, 1);
  clients::SseStream::Options options;
  options.insecure = rt->env().insecure;
  if (lua_istable(L, 2)) {
    lua_getfield(L, 2, "headers");
    options.headers = pairs_arg(L, -1, "sse.connect", "headers");
    lua_pop(L, 1);
    lua_getfield(L, 2, "method");
    if (!lua_isnil(L, -1)) options.method = luaL_checkstring(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, 2, "body");
    if (!lua_isnil(L, -1)) {
      size_t n = 0;
      const char* body = luaL_checklstring(L, -1, &n);
      options.body.assign(body, n);
    }
    lua_pop(L, 1);
    options.timeout = duration_field(L, 2, "timeout", "sse.connect timeout", options.timeout);
    options.retry = duration_field(L, 2, "retry", "sse.connect retry", options.retry);
    lua_getfield(L, 2, "reconnect");
    if (!lua_isnil(L, -1)) options.reconnect = lua_toboolean(L, -1) != 0;
    lua_pop(L, 1);
    lua_getfield(L, 2, "last_event_id");
    if (!lua_isnil(L, -1)) options.last_event_id = luaL_checkstring(L, -1);
    lua_pop(L, 1);
    options.buffer_limit = count_field(L, 2, "buffer", options.buffer_limit);
    options.max_event_bytes = count_field(L, 2, "max_event_size", options.max_event_bytes);
    lua_getfield(L, 2, "insecure");
    if (!lua_isnil(L, -1)) options.insecure = lua_toboolean(L, -1) != 0;
    lua_pop(L, 1);
    lua_getfield(L, 2, "local_addresses");
    options.local_addresses = local_addresses_arg(L, -1, "sse.connect");
    lua_pop(L, 1);
  }
  return Bindings::connect(
      L, "sse.connect", url, [&](clients::SseStream& stream, auto done) { stream.open(url, std::move(options), done); },
      [](lua_State*, const clients::SseStream::OpenResult&) { return 0; });
}

// next(h, event_type | nil, after_seq, remaining_ms) -> event | nil (timeout or closed)
int l_next(lua_State* L) {
  clients::SseStream& stream = Bindings::client(L);
  Bindings::Filter filter;
  if (!lua_isnil(L, 2)) {
    filter = [type = std::string(luaL_checkstring(L, 2))](const clients::SseEvent& e) { return e.type == type; };
  }
  return Bindings::next(L, stream, std::move(filter), 3, "stream:await");
}

int l_last_event_id(lua_State* L) {
  const std::string& id = Bindings::client(L).last_event_id();
  lua_pushlstring(L, id.data(), id.size());
  return 1;
}

int l_reconnects(lua_State* L) {
  lua_pushnumber(L, static_cast<double>(Bindings::client(L).reconnects()));
  return 1;
}

}  // namespace
}  // namespace sse_bindings

int open_sse_module(lua_State* L) {
  using namespace sse_bindings;
  const luaL_Reg functions[] = {{"connect", l_connect},
                                {"next", l_next},
                                {"last_event_id", l_last_event_id},
                                {"reconnects", l_reconnects},
                                {nullptr, nullptr}};
  return Bindings::open_module(L, functions, module_lua::sse_lua, "=stampede.sse");
}

}  // namespace stampede::scenario
