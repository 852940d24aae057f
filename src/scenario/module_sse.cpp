// `stampede.sse`: Server-Sent Events. The source (connection, parsing, reconnections) lives in
// clients::SseStream; this file adapts it to coroutines and tables. connect() yields until the
// first response head is accepted; events are kept until await() reads them.
#include <fmt/format.h>

#include <lua.hpp>
#include <memory>
#include <string>

#include "clients/sse_stream.hpp"
#include "scenario/lua_handle.hpp"
#include "scenario/lua_modules.hpp"
#include "scenario/module_lua.hpp"
#include "scenario/scenario_runtime.hpp"

namespace stampede::scenario {

// Named, and not only anonymous: a unity build (docs/design/023) compiles several modules
// as one translation unit, and each has its own l_connect, l_close, kType...
namespace sse_bindings {
namespace {

constexpr const char* kType = "stampede.sse.Stream";

struct SseHandle {
  std::unique_ptr<clients::SseStream> stream;
};

clients::SseStream& stream_arg(lua_State* L) {
  SseHandle& h = check_handle<SseHandle>(L, 1, kType);
  if (!h.stream) luaL_error(L, "sse: the stream was already released");
  return *h.stream;
}

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
    lua_getfield(L, 2, "timeout");
    options.timeout = duration_arg(L, lua_gettop(L), "sse.connect timeout", options.timeout);
    lua_pop(L, 1);
    lua_getfield(L, 2, "retry");
    options.retry = duration_arg(L, lua_gettop(L), "sse.connect retry", options.retry);
    lua_pop(L, 1);
    lua_getfield(L, 2, "reconnect");
    if (!lua_isnil(L, -1)) options.reconnect = lua_toboolean(L, -1) != 0;
    lua_pop(L, 1);
    lua_getfield(L, 2, "last_event_id");
    if (!lua_isnil(L, -1)) options.last_event_id = luaL_checkstring(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, 2, "buffer");
    if (lua_type(L, -1) == LUA_TNUMBER) options.buffer_limit = static_cast<std::size_t>(lua_tonumber(L, -1));
    lua_pop(L, 1);
    lua_getfield(L, 2, "max_event_size");
    if (lua_type(L, -1) == LUA_TNUMBER) options.max_event_bytes = static_cast<std::size_t>(lua_tonumber(L, -1));
    lua_pop(L, 1);
    lua_getfield(L, 2, "insecure");
    if (!lua_isnil(L, -1)) options.insecure = lua_toboolean(L, -1) != 0;
    lua_pop(L, 1);
    lua_getfield(L, 2, "local_addresses");
    options.local_addresses = local_addresses_arg(L, -1, "sse.connect");
    lua_pop(L, 1);
  }
  Vu& vu = require_vu(L, "sse.connect");
  auto handle = std::make_shared<SseHandle>();
  handle->stream = std::make_unique<clients::SseStream>(rt->context());
  std::weak_ptr<SseHandle> weak = handle;
  // Whatever happens in this iteration, the stream does not outlive it.
  vu.iteration_cleanup.push_back([weak] {
    if (auto h = weak.lock()) h->stream.reset();
  });
  handle->stream->open(url, std::move(options),
                       [rt, &vu, epoch = vu.epoch, handle, url](clients::SseStream::OpenResult res) {
                         if (vu.epoch == epoch) vu.note_local_exhaustion(res.local_exhaustion);
                         rt->resume(vu, epoch, [&](lua_State* co) {
                           if (res.ok()) {
                             push_handle(co, handle, kType);
                             return 1;
                           }
                           lua_pushnil(co);
                           lua_pushstring(co, fmt::format("{}: {}", url, res.error).c_str());
                           lua_pushstring(co, res.error_reason.c_str());
                           lua_pushinteger(co, res.status);
                           return 4;
                         });
                       });
  return lua_yield(L, 0);
}

int push_event(lua_State* co, const clients::SseEvent* e) {
  if (e == nullptr) {
    lua_pushnil(co);
    return 1;
  }
  lua_createtable(co, 0, 4);
  lua_pushnumber(co, static_cast<double>(e->seq));
  lua_setfield(co, -2, "seq");
  lua_pushlstring(co, e->type.data(), e->type.size());
  lua_setfield(co, -2, "event");
  lua_pushlstring(co, e->data.data(), e->data.size());
  lua_setfield(co, -2, "data");
  lua_pushlstring(co, e->id.data(), e->id.size());
  lua_setfield(co, -2, "id");
  return 1;
}

// next(h, event_type | nil, after_seq, remaining_ms) -> event | nil (timeout or closed). With
// nothing remaining it only looks at what is already kept.
int l_next(lua_State* L) {
  clients::SseStream& stream = stream_arg(L);
  clients::MessageInbox<clients::SseEvent>::Filter filter;
  if (!lua_isnil(L, 2)) {
    filter = [type = std::string(luaL_checkstring(L, 2))](const clients::SseEvent& e) { return e.type == type; };
  }
  const auto after = static_cast<std::uint64_t>(luaL_checknumber(L, 3));
  const double ms = luaL_checknumber(L, 4);
  auto& inbox = stream.inbox();
  if (const auto* e = inbox.find(after, filter)) return push_event(L, e);
  if (inbox.closed() || ms <= 0) return push_event(L, nullptr);
  ScenarioRuntime* rt = runtime_of(L);
  Vu& vu = require_vu(L, "stream:await");
  inbox.wait(after, std::move(filter), std::max<Nanos>(1, static_cast<Nanos>(ms * kMilli)),
             [rt, &vu, epoch = vu.epoch](const clients::SseEvent* e) {
               rt->resume(vu, epoch, [e](lua_State* co) { return push_event(co, e); });
             });
  return lua_yield(L, 0);
}

int l_consume(lua_State* L) {
  stream_arg(L).inbox().consume(static_cast<std::uint64_t>(luaL_checknumber(L, 2)));
  return 0;
}

int l_close(lua_State* L) {
  stream_arg(L).close();
  return 0;
}

// closed(h) -> closed, why
int l_closed(lua_State* L) {
  clients::SseStream& stream = stream_arg(L);
  lua_pushboolean(L, stream.state() == clients::SseStream::State::Closed);
  lua_pushstring(L, stream.closed_reason().c_str());
  return 2;
}

int l_is_open(lua_State* L) {
  lua_pushboolean(L, stream_arg(L).state() == clients::SseStream::State::Open);
  return 1;
}

int l_last_event_id(lua_State* L) {
  const std::string& id = stream_arg(L).last_event_id();
  lua_pushlstring(L, id.data(), id.size());
  return 1;
}

int l_reconnects(lua_State* L) {
  lua_pushnumber(L, static_cast<double>(stream_arg(L).reconnects()));
  return 1;
}

// duration_ms(value, what) -> ms | nil
int l_duration_ms(lua_State* L) {
  const char* what = luaL_checkstring(L, 2);
  if (lua_isnoneornil(L, 1)) return 0;
  lua_pushnumber(L, static_cast<double>(duration_arg(L, 1, what, 0)) / kMilli);
  return 1;
}

}  // namespace
}  // namespace sse_bindings

int open_sse_module(lua_State* L) {
  using namespace sse_bindings;
  const luaL_Reg functions[] = {{"connect", l_connect},
                                {"next", l_next},
                                {"consume", l_consume},
                                {"close", l_close},
                                {"closed", l_closed},
                                {"is_open", l_is_open},
                                {"last_event_id", l_last_event_id},
                                {"reconnects", l_reconnects},
                                {"duration_ms", l_duration_ms},
                                {nullptr, nullptr}};
  lua_newtable(L);
  luaL_register(L, nullptr, functions);
  run_module_lua(L, module_lua::sse_lua, "=stampede.sse");
  return 1;
}

}  // namespace stampede::scenario
