// `stampede.channels`: Phoenix Channels over a WebSocket, as phoenix.js does them. The
// protocol lives in clients::ChannelsSocket; this file adapts it to coroutines and tables.
// The Lua half (at the bottom) holds the user-facing methods, error objects, Presence and
// Absinthe, built on a few C primitives.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <lua.hpp>
#include <memory>
#include <string>

#include "clients/channels_socket.hpp"
#include "clients/websocket_session.hpp"
#include "proto/form.hpp"
#include "scenario/lua_handle.hpp"
#include "scenario/lua_json.hpp"
#include "scenario/lua_modules.hpp"
#include "scenario/scenario_runtime.hpp"

namespace stampede::scenario {

namespace {

constexpr const char* kType = "stampede.channels.Socket";

struct ChannelsHandle {
  std::unique_ptr<clients::WebSocketSession> ws;
  std::shared_ptr<clients::ChannelsSocket> phx;
  int encode_ref = LUA_NOREF;  // custom serializer functions, in the main state's registry
  int decode_ref = LUA_NOREF;
  lua_State* main = nullptr;
  ~ChannelsHandle() {
    if (main != nullptr) {
      luaL_unref(main, LUA_REGISTRYINDEX, encode_ref);
      luaL_unref(main, LUA_REGISTRYINDEX, decode_ref);
    }
  }
};

std::shared_ptr<ChannelsHandle> handle_arg(lua_State* L) {
  auto* p = static_cast<std::shared_ptr<ChannelsHandle>*>(luaL_checkudata(L, 1, kType));
  if (!*p || !(*p)->phx) luaL_error(L, "channels: the socket was already released");
  return *p;
}

// A payload argument: a table (encoded as JSON), a JSON string, or raw bytes for binary.
std::string payload_arg(lua_State* L, int index, bool binary) {
  if (lua_isnoneornil(L, index)) return binary ? std::string() : std::string("{}");
  if (binary) {
    size_t n = 0;
    const char* s = luaL_checklstring(L, index, &n);
    return std::string(s, n);
  }
  std::string error;
  try {
    return boost::json::serialize(lua_to_json(L, index));
  } catch (const std::exception& e) {
    error = e.what();
  }
  luaL_error(L, "channels: the payload cannot be sent as JSON: %s", error.c_str());
  return {};
}

// JSON text -> Lua value (a string when it is not JSON, so nothing is lost).
void push_payload(lua_State* L, const std::string& payload, bool binary) {
  if (!binary) {
    boost::system::error_code ec;
    auto v = boost::json::parse(payload, ec);
    if (!ec) {
      push_json(L, v);
      return;
    }
  }
  lua_pushlstring(L, payload.data(), payload.size());
}

// Pushes (ok, status, response, failure, message) for the Lua half to turn into a value or
// an error object.
int push_reply(lua_State* co, const clients::ChannelReply& r) {
  lua_pushboolean(co, r.ok());
  lua_pushstring(co, r.status.c_str());
  if (r.failure.empty()) {
    push_payload(co, r.response, r.binary);
  } else {
    lua_pushnil(co);
  }
  lua_pushstring(co, r.failure.c_str());
  lua_pushstring(co, r.message.c_str());
  lua_pushlstring(co, r.response.data(), r.response.size());
  return 6;
}

// phoenix.js: endPoint + "/websocket", the params, then vsn last.
std::string socket_url(lua_State* L, std::string url, int params_index, const std::string& vsn) {
  if (url.rfind("http://", 0) == 0) url = "ws://" + url.substr(7);
  if (url.rfind("https://", 0) == 0) url = "wss://" + url.substr(8);
  const auto query_at = url.find('?');
  std::string path = url.substr(0, query_at);
  const std::string query = query_at == std::string::npos ? "" : url.substr(query_at);
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.size() < 10 || path.compare(path.size() - 10, 10, "/websocket") != 0) path += "/websocket";
  url = path + query;
  proto::FormFields params;
  if (lua_istable(L, params_index)) {
    lua_pushnil(L);
    while (lua_next(L, params_index) != 0) {
      lua_pushvalue(L, -2);
      const char* k = lua_tostring(L, -1);
      if (k == nullptr || !(lua_isstring(L, -2) || lua_isboolean(L, -2)))
        luaL_error(L, "channels.connect: params must be name = string/number/boolean");
      params.emplace_back(k, lua_isboolean(L, -2) ? (lua_toboolean(L, -2) ? "true" : "false") : lua_tostring(L, -2));
      lua_pop(L, 2);
    }
  }
  params.emplace_back("vsn", vsn);
  return proto::append_query(url, params);
}

// The custom serializer's halves, called on the main Lua state (never on a VU's coroutine).
void install_custom_serializer(ChannelsHandle& h, clients::ChannelsOptions& options) {
  lua_State* M = h.main;
  const int enc = h.encode_ref, dec = h.decode_ref;
  options.custom_encode = [M, enc](const proto::phx::Message& m) {
    lua_rawgeti(M, LUA_REGISTRYINDEX, enc);
    lua_createtable(M, 0, 5);
    if (m.join_ref) lua_pushstring(M, m.join_ref->c_str()), lua_setfield(M, -2, "join_ref");
    if (m.ref) lua_pushstring(M, m.ref->c_str()), lua_setfield(M, -2, "ref");
    lua_pushstring(M, m.topic.c_str()), lua_setfield(M, -2, "topic");
    lua_pushstring(M, m.event.c_str()), lua_setfield(M, -2, "event");
    push_payload(M, m.payload, m.binary), lua_setfield(M, -2, "payload");
    lua_pushboolean(M, m.binary), lua_setfield(M, -2, "binary");
    if (lua_pcall(M, 1, 2, 0) != 0) {
      std::string err = lua_tostring(M, -1) ? lua_tostring(M, -1) : "error";
      lua_pop(M, 1);
      throw std::invalid_argument("the serializer's encode failed: " + err);
    }
    proto::phx::Frame f;
    size_t n = 0;
    const char* s = lua_tolstring(M, -2, &n);
    if (s == nullptr) {
      lua_pop(M, 2);
      throw std::invalid_argument("the serializer's encode must return a string");
    }
    f.data.assign(s, n);
    f.binary_frame = lua_toboolean(M, -1) != 0;
    lua_pop(M, 2);
    return f;
  };
  options.custom_decode = [M, dec](std::string_view data, bool binary) -> proto::phx::Decoded {
    lua_rawgeti(M, LUA_REGISTRYINDEX, dec);
    lua_pushlstring(M, data.data(), data.size());
    lua_pushboolean(M, binary);
    if (lua_pcall(M, 2, 1, 0) != 0) {
      std::string err = lua_tostring(M, -1) ? lua_tostring(M, -1) : "error";
      lua_pop(M, 1);
      return "the serializer's decode failed: " + err;
    }
    if (!lua_istable(M, -1)) {
      lua_pop(M, 1);
      return std::string("the serializer's decode must return a table {join_ref, ref, topic, event, payload}");
    }
    proto::phx::Message m;
    const int t = lua_gettop(M);
    auto str = [&](const char* field) -> std::optional<std::string> {
      lua_getfield(M, t, field);
      std::optional<std::string> v;
      if (lua_isstring(M, -1)) v = lua_tostring(M, -1);
      lua_pop(M, 1);
      return v;
    };
    m.join_ref = str("join_ref");
    m.ref = str("ref");
    m.topic = str("topic").value_or("");
    m.event = str("event").value_or("");
    lua_getfield(M, t, "binary");
    m.binary = lua_toboolean(M, -1) != 0;
    lua_pop(M, 1);
    lua_getfield(M, t, "payload");
    try {
      if (m.binary) {
        size_t n = 0;
        const char* s = lua_tolstring(M, -1, &n);
        m.payload.assign(s ? s : "", n);
      } else {
        m.payload = lua_isnil(M, -1) ? "{}" : boost::json::serialize(lua_to_json(M, lua_gettop(M)));
      }
    } catch (const std::exception& e) {
      lua_settop(M, t - 1);
      return std::string("the serializer's decode returned a payload that is not JSON: ") + e.what();
    }
    lua_getfield(M, t, "status");
    if (lua_isstring(M, -1)) m.status = lua_tostring(M, -1);
    lua_settop(M, t - 1);
    if (m.event == "phx_reply" && !m.binary) {
      // Where the response sits in the payload, as the built-in decoders record it.
      std::string status, response;
      if (proto::phx::split_reply(m.payload, status, response)) {
        m.status = status;
        m.payload = proto::phx::reply_payload(status, response);
        const auto at = m.payload.rfind(response);
        m.response_offset = at == std::string::npos ? 0 : at;
        m.response_length = response.size();
      }
    }
    return m;
  };
}

// connect(url, opts) -> handle | nil, message, reason, status
int l_connect(lua_State* L) {
  ScenarioRuntime* rt = runtime_of(L);
  const std::string base = luaL_checkstring(L, 1);
  const bool has_opts = lua_istable(L, 2);
  clients::ChannelsOptions options;
  clients::WebSocketSession::ConnectOptions ws_options;
  ws_options.insecure = rt->env().insecure;
  std::string vsn = "2.0.0";
  auto handle = std::make_shared<ChannelsHandle>();
  handle->main = rt->state();
  int params_index = 0;
  if (has_opts) {
    lua_getfield(L, 2, "serializer");
    if (lua_type(L, -1) == LUA_TSTRING) {
      vsn = lua_tostring(L, -1);
      if (vsn == "1.0.0") {
        options.serializer = proto::phx::Serializer::V1;
      } else if (vsn != "2.0.0") {
        luaL_error(L, "channels.connect: serializer must be \"2.0.0\", \"1.0.0\" or a table {encode = fn, decode = fn}");
      }
    } else if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "encode");
      lua_getfield(L, -2, "decode");
      if (!lua_isfunction(L, -1) || !lua_isfunction(L, -2))
        luaL_error(L, "channels.connect: a serializer table needs encode and decode functions");
      lua_xmove(L, rt->state(), 2);
      handle->decode_ref = luaL_ref(rt->state(), LUA_REGISTRYINDEX);
      handle->encode_ref = luaL_ref(rt->state(), LUA_REGISTRYINDEX);
      lua_getfield(L, -1, "vsn");
      if (lua_isstring(L, -1)) vsn = lua_tostring(L, -1);
      lua_pop(L, 1);
      install_custom_serializer(*handle, options);
    }
    lua_pop(L, 1);
    lua_getfield(L, 2, "heartbeat");
    if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
      options.heartbeat_interval = 0;
    } else {
      options.heartbeat_interval = duration_arg(L, lua_gettop(L), "channels.connect heartbeat", options.heartbeat_interval);
    }
    lua_pop(L, 1);
    lua_getfield(L, 2, "timeout");
    options.default_timeout = duration_arg(L, lua_gettop(L), "channels.connect timeout", options.default_timeout);
    ws_options.timeout = options.default_timeout;
    lua_pop(L, 1);
    socket_options_arg(L, 2, "channels.connect", ws_options);
    lua_getfield(L, 2, "buffer");
    if (lua_type(L, -1) == LUA_TNUMBER) options.buffer_limit = static_cast<std::size_t>(lua_tonumber(L, -1));
    lua_pop(L, 1);
    lua_getfield(L, 2, "params");
    params_index = lua_gettop(L);
  }
  const std::string url = socket_url(L, base, params_index, vsn);
  Vu& vu = require_vu(L, "channels.connect");

  std::weak_ptr<ChannelsHandle> weak = handle;
  clients::WebSocketSession::Callbacks cb;
  cb.on_message = [weak](proto::ws::Opcode op, std::string_view payload) {
    if (auto h = weak.lock()) {
      auto phx = h->phx;  // keeps it alive while it may close itself
      phx->on_frame(payload, op == proto::ws::Opcode::Binary);
    }
  };
  cb.on_close = [weak](const clients::WebSocketSession::CloseInfo& info) {
    if (auto h = weak.lock()) {
      auto phx = h->phx;
      phx->on_closed(info.clean || !info.reason.empty()
                         ? fmt::format("{} {}", info.code, info.reason)
                         : info.error);
    }
  };
  handle->ws = std::make_unique<clients::WebSocketSession>(rt->context(), std::move(cb));
  handle->phx = std::make_shared<clients::ChannelsSocket>(
      rt->context(), std::move(options),
      [weak](std::string data, bool binary) {
        if (auto h = weak.lock(); h && h->ws) binary ? h->ws->send_binary(data) : h->ws->send_text(data);
      },
      [weak](std::uint16_t code, std::string reason) {
        if (auto h = weak.lock(); h && h->ws)
          h->ws->close(code, reason, reason == "heartbeat timeout" ? reason : std::string_view{});
      });
  vu.iteration_cleanup.push_back([weak] {
    if (auto h = weak.lock()) {
      auto phx = h->phx;
      phx->close("the iteration ended");
      h->ws.reset();
    }
  });
  handle->ws->connect(url, std::move(ws_options),
                      [rt, &vu, epoch = vu.epoch, handle, url](clients::WebSocketSession::ConnectResult res) {
                        if (res.ok()) handle->phx->on_open();
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

// Runs a request on the socket and yields until its reply; `start` throws for a message
// that cannot be encoded.
template <typename Start>
int request(lua_State* L, const char* what, Start start) {
  ScenarioRuntime* rt = runtime_of(L);
  Vu& vu = require_vu(L, what);
  std::string error;
  try {
    start([rt, &vu, epoch = vu.epoch](const clients::ChannelReply& reply) {
      rt->resume(vu, epoch, [&reply](lua_State* co) { return push_reply(co, reply); });
    });
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!error.empty()) luaL_error(L, "%s: %s", what, error.c_str());
  return lua_yield(L, 0);
}

// join(h, topic, payload, timeout)
int l_join(lua_State* L) {
  auto h = handle_arg(L);
  const std::string topic = luaL_checkstring(L, 2);
  std::string payload = payload_arg(L, 3, false);
  const Nanos timeout = duration_arg(L, 4, "socket:join timeout", 0);
  return request(L, "socket:join", [&](auto done) { h->phx->join(topic, std::move(payload), timeout, done); });
}

// push(h, topic, event, payload, binary, timeout)
int l_push(lua_State* L) {
  auto h = handle_arg(L);
  const std::string topic = luaL_checkstring(L, 2);
  const std::string event = luaL_checkstring(L, 3);
  const bool binary = lua_toboolean(L, 5) != 0;
  std::string payload = payload_arg(L, 4, binary);
  const Nanos timeout = duration_arg(L, 6, "socket:push timeout", 0);
  return request(L, "socket:push",
                 [&](auto done) { h->phx->push(topic, event, std::move(payload), binary, timeout, done); });
}

// leave(h, topic, timeout)
int l_leave(lua_State* L) {
  auto h = handle_arg(L);
  const std::string topic = luaL_checkstring(L, 2);
  const Nanos timeout = duration_arg(L, 3, "socket:leave timeout", 0);
  return request(L, "socket:leave", [&](auto done) { h->phx->leave(topic, timeout, done); });
}

// cast(h, topic, event, payload, binary)
int l_cast(lua_State* L) {
  auto h = handle_arg(L);
  const std::string topic = luaL_checkstring(L, 2);
  const std::string event = luaL_checkstring(L, 3);
  const bool binary = lua_toboolean(L, 5) != 0;
  std::string payload = payload_arg(L, 4, binary);
  std::string error;
  try {
    h->phx->cast(topic, event, std::move(payload), binary);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!error.empty()) luaL_error(L, "socket:cast: %s", error.c_str());
  return 0;
}

int push_message(lua_State* co, const clients::ChannelMessage* m) {
  if (m == nullptr) {
    lua_pushnil(co);
    return 1;
  }
  lua_createtable(co, 0, 5);
  lua_pushnumber(co, static_cast<double>(m->seq));
  lua_setfield(co, -2, "seq");
  lua_pushstring(co, m->topic.c_str());
  lua_setfield(co, -2, "topic");
  lua_pushstring(co, m->event.c_str());
  lua_setfield(co, -2, "event");
  push_payload(co, m->payload, m->binary);
  lua_setfield(co, -2, "payload");
  lua_pushboolean(co, m->binary);
  lua_setfield(co, -2, "binary");
  return 1;
}

// What is left of a wait's deadline, in ms, as the Lua half computes it. ChannelsSocket reads
// 0 as "the socket's default timeout", so a sliver (or a float that truncates to 0 ns) must
// not reach it as 0: that would turn an expired deadline into another 10 s.
Nanos remaining_arg(lua_State* L, int index) {
  const double ms = luaL_checknumber(L, index);
  return ms <= 0 ? 0 : std::max<Nanos>(1, static_cast<Nanos>(ms * kMilli));
}

// duration_ms(value, what) -> ms | nil: every timeout option of the module comes through here,
// so numbers and strings ("500ms", "2s") mean the same thing everywhere.
int l_duration_ms(lua_State* L) {
  const char* what = luaL_checkstring(L, 2);
  if (lua_isnoneornil(L, 1)) return 0;
  if (lua_type(L, 1) != LUA_TNUMBER && lua_type(L, 1) != LUA_TSTRING)
    luaL_error(L, "%s: expected a duration (milliseconds, or a string such as \"500ms\"), got %s", what,
               luaL_typename(L, 1));
  lua_pushnumber(L, static_cast<double>(duration_arg(L, 1, what, 0)) / kMilli);
  return 1;
}

// default_timeout(h) -> the socket's `timeout` option, in ms
int l_default_timeout(lua_State* L) {
  lua_pushnumber(L, static_cast<double>(handle_arg(L)->phx->options().default_timeout) / kMilli);
  return 1;
}

// next(h, topic, event, after_seq, remaining_ms) -> message | nil (timeout or closed). With
// nothing remaining it only looks at what is already buffered.
int l_next(lua_State* L) {
  auto h = handle_arg(L);
  const std::string topic = luaL_checkstring(L, 2);
  const std::string event = luaL_optstring(L, 3, "");
  const auto after = static_cast<std::uint64_t>(luaL_checknumber(L, 4));
  const Nanos timeout = remaining_arg(L, 5);
  if (const auto* m = h->phx->find(topic, event, after)) return push_message(L, m);
  if (!h->phx->is_open() || timeout == 0) return push_message(L, nullptr);
  ScenarioRuntime* rt = runtime_of(L);
  Vu& vu = require_vu(L, "socket:await");
  h->phx->wait_message(topic, event, after, timeout, [rt, &vu, epoch = vu.epoch](const clients::ChannelMessage* m) {
    rt->resume(vu, epoch, [m](lua_State* co) { return push_message(co, m); });
  });
  return lua_yield(L, 0);
}

int l_consume(lua_State* L) {
  handle_arg(L)->phx->consume(static_cast<std::uint64_t>(luaL_checknumber(L, 2)));
  return 0;
}

int l_is_open(lua_State* L) {
  lua_pushboolean(L, handle_arg(L)->phx->is_open());
  return 1;
}

int l_close(lua_State* L) {
  auto h = handle_arg(L);
  h->phx->close();
  return 0;
}

// presence_list(h, topic) -> {key = {metas = {...}}}, version
int l_presence_list(lua_State* L) {
  auto h = handle_arg(L);
  const std::string topic = luaL_checkstring(L, 2);
  push_json(L, h->phx->presence(topic).list());
  lua_pushnumber(L, static_cast<double>(h->phx->presence_version(topic)));
  return 2;
}

// presence_wait(h, topic, after_version, remaining_ms) -> changed
int l_presence_wait(lua_State* L) {
  auto h = handle_arg(L);
  const std::string topic = luaL_checkstring(L, 2);
  const auto after = static_cast<std::uint64_t>(luaL_checknumber(L, 3));
  const Nanos timeout = remaining_arg(L, 4);
  if (timeout == 0) {
    lua_pushboolean(L, h->phx->presence_version(topic) > after);
    return 1;
  }
  ScenarioRuntime* rt = runtime_of(L);
  Vu& vu = require_vu(L, "presence:await");
  h->phx->wait_presence(topic, after, timeout, [rt, &vu, epoch = vu.epoch](bool changed) {
    rt->resume(vu, epoch, [changed](lua_State* co) {
      lua_pushboolean(co, changed);
      return 1;
    });
  });
  return lua_yield(L, 0);
}

constexpr const char* kChannelsLua = R"lua(
local c = ...
local errors = require "stampede.error"
local json = require "stampede.json"
local now = require("stampede").now

local M = {}
local Socket = {}
Socket.__index = Socket

local Binary = {}
Binary.__index = Binary
-- channels.binary(data): send `data` as a V2 binary frame instead of JSON.
function M.binary(data)
  assert(type(data) == "string", "channels.binary(data): data must be a string")
  return setmetatable({ data = data }, Binary)
end
local function split_payload(payload)
  if getmetatable(payload) == Binary then return payload.data, true end
  return payload, false
end

-- A timeout option in ms (nil when not given). A bad one is an error at `level`, as error()
-- counts from the function calling this: the user's line, not this module's.
local function duration_ms(value, what, level)
  if value == nil then return nil end
  local ok, result = pcall(c.duration_ms, value, what)
  if not ok then error(result, level + 1) end
  return result
end

function M.connect(url, opts)
  local handle, message, reason, status = c.connect(url, opts)
  if not handle then
    errors.raise("connect_error", "channels.connect " .. message, nil, 2, { reason = reason, status = status })
  end
  return setmetatable({ _h = handle, url = url }, Socket)
end

-- (ok, status, response, failure, message, raw) from C -> the response, or an error object.
local function outcome(what, ok, status, response, failure, message, raw, level)
  if ok then return response end
  level = (level or 2) + 1
  if failure == "" then
    local text = raw ~= "" and raw or status
    local kind = what:find("join", 1, true) and "join_error" or (what:find("leave", 1, true) and "leave_error" or "push_error")
    local verb = kind == "join_error" and "refused" or ("replied " .. status)
    errors.raise(kind, what .. " " .. verb .. ": " .. text, response, level, { status = status })
  end
  errors.raise(failure, what .. ": " .. message, nil, level)
end

function Socket:join(topic, payload, opts)
  opts = opts or {}
  local timeout = duration_ms(opts.timeout, "socket:join timeout", 2)
  return outcome("channel.join " .. topic, c.join(self._h, topic, payload, timeout))
end

function Socket:push(topic, event, payload, opts)
  opts = opts or {}
  local data, binary = split_payload(payload)
  local timeout = duration_ms(opts.timeout, "socket:push timeout", 2)
  return outcome("channel.push " .. topic .. " " .. event, c.push(self._h, topic, event, data, binary, timeout))
end

function Socket:leave(topic, opts)
  opts = opts or {}
  local timeout = duration_ms(opts.timeout, "socket:leave timeout", 2)
  return outcome("channel.leave " .. topic, c.leave(self._h, topic, timeout))
end

function Socket:cast(topic, event, payload)
  local data, binary = split_payload(payload)
  c.cast(self._h, topic, event, data, binary)
end

-- await(topic, event, {match = fn, timeout = ...}) -> payload (and the message)
-- One deadline for the whole call: messages that do not match spend the time like silence
-- does, so a busy topic cannot keep an await alive past its timeout.
function Socket:await(topic, event, opts)
  opts = opts or {}
  local deadline = now() + (duration_ms(opts.timeout, "socket:await timeout", 2) or 10000)
  local after = 0
  while true do
    -- Past the deadline this still reads what is already buffered (it arrived in time), but
    -- waits for nothing more.
    local msg = c.next(self._h, topic, event or "", after, deadline - now())
    if not msg then
      local why = c.is_open(self._h) and "timeout" or "closed"
      errors.raise(why, "socket:await " .. topic .. " " .. (event or "*") .. ": " ..
        (why == "timeout" and "nothing matching arrived in time" or "the socket closed"), nil, 2)
    end
    if not opts.match or opts.match(msg.payload, msg) then
      c.consume(self._h, msg.seq)
      return msg.payload, msg
    end
    after = msg.seq
  end
end

function Socket:close() c.close(self._h) end
function Socket:is_open() return c.is_open(self._h) end

-- Presence -------------------------------------------------------------------------------
local Presence = {}
Presence.__index = Presence

function M.presence(socket, topic)
  local p = setmetatable({ socket = socket, topic = topic }, Presence)
  c.presence_list(socket._h, topic)  -- starts tracking now: nothing received since the join is lost
  return p
end

function Presence:list()
  local list = c.presence_list(self.socket._h, self.topic)
  return list
end

-- Reached by tail calls only, so that level 2 of its errors is the user's line.
local function await_presence(self, fn, opts, what)
  opts = opts or {}
  local budget = duration_ms(opts.timeout, what .. " timeout", 2) or c.default_timeout(self.socket._h)
  local deadline = now() + budget
  while true do
    local list, version = c.presence_list(self.socket._h, self.topic)
    if fn(list) then return list end
    local remaining = deadline - now()
    if remaining <= 0 or not c.presence_wait(self.socket._h, self.topic, version, remaining) then
      errors.raise("timeout", what .. " " .. self.topic .. ": the condition did not become true in time", nil, 2)
    end
  end
end

function Presence:await(fn, opts)
  return await_presence(self, fn, opts, "presence:await")
end

function Presence:await_user(id, opts)
  id = tostring(id)
  return await_presence(self, function(list) return list[id] ~= nil end, opts, "presence:await_user")
end

-- Absinthe ---------------------------------------------------------------------------------
local Absinthe = {}
Absinthe.__index = Absinthe
local CONTROL = "__absinthe__:control"

function M.absinthe(socket, opts)
  local a = setmetatable({ socket = socket }, Absinthe)
  socket:join(CONTROL, {}, opts)
  return a
end

-- subscribe(query, variables) -> subscriptionId
function Absinthe:subscribe(query, variables, opts)
  local response = self.socket:push(CONTROL, "doc", { query = query, variables = variables or {} }, opts)
  if type(response) ~= "table" or not response.subscriptionId then
    errors.raise("subscription_error", "absinthe doc did not start a subscription: " .. json.encode(response), response, 2)
  end
  return response.subscriptionId
end

-- await(subscription_id, {match, timeout}) -> the GraphQL result of the next data push
function Absinthe:await(subscription_id, opts)
  opts = opts or {}
  local match = opts.match
  local payload = self.socket:await(subscription_id, "subscription:data", {
    timeout = duration_ms(opts.timeout, "absinthe:await timeout", 2),
    match = function(p) return not match or match(p.result, p) end,
  })
  return payload.result, payload
end

function Absinthe:unsubscribe(subscription_id, opts)
  return self.socket:push(CONTROL, "unsubscribe", { subscriptionId = subscription_id }, opts)
end

-- Absinthe queries and mutations over the socket: the reply carries the data.
function Absinthe:run(query, variables, opts)
  return self.socket:push(CONTROL, "doc", { query = query, variables = variables or {} }, opts)
end

return M
)lua";

}  // namespace

int open_channels_module(lua_State* L) {
  const luaL_Reg functions[] = {{"connect", l_connect},
                                {"join", l_join},
                                {"push", l_push},
                                {"leave", l_leave},
                                {"cast", l_cast},
                                {"next", l_next},
                                {"consume", l_consume},
                                {"is_open", l_is_open},
                                {"close", l_close},
                                {"presence_list", l_presence_list},
                                {"presence_wait", l_presence_wait},
                                {"duration_ms", l_duration_ms},
                                {"default_timeout", l_default_timeout},
                                {nullptr, nullptr}};
  lua_newtable(L);
  luaL_register(L, nullptr, functions);
  run_module_lua(L, kChannelsLua, "=stampede.channels");
  return 1;
}

}  // namespace stampede::scenario
