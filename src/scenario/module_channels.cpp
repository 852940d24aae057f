// `stampede.channels`: Phoenix Channels over a WebSocket or LongPoll, as phoenix.js does them. The
// protocol lives in clients::ChannelsSocket (and clients::AbsintheClient for Absinthe); this
// file adapts them to coroutines and tables. The Lua half (src/scenario/lua/channels.lua)
// holds the user-facing methods and error objects, built on the C primitives below.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <lua.hpp>
#include <memory>
#include <optional>
#include <string>

#include "clients/absinthe_client.hpp"
#include "clients/channels_socket.hpp"
#include "clients/phoenix_connection.hpp"
#include "clients/websocket_session.hpp"
#include "proto/absinthe.hpp"
#include "proto/form.hpp"
#include "proto/phoenix_longpoll.hpp"
#include "proto/phoenix_socket_url.hpp"
#include "scenario/lua_handle.hpp"
#include "scenario/lua_json.hpp"
#include "scenario/lua_modules.hpp"
#include "scenario/module_lua.hpp"
#include "scenario/scenario_runtime.hpp"
#include "scenario/stream_client_bindings.hpp"

namespace stampede::scenario {

// Named, and not only anonymous: a unity build (docs/design/023) compiles several modules
// as one translation unit, and each has its own l_connect, l_close, kType...
namespace channels_bindings {
namespace {

constexpr const char* kType = "stampede.channels.Socket";

struct ChannelsHandle {
  std::shared_ptr<clients::PhoenixConnection> connection;
  std::shared_ptr<clients::ChannelsSocket> phx;  // the connection's
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

// channels.connect's `params` option, for the socket URL.
proto::FormFields socket_params_arg(lua_State* L, int params_index) {
  proto::FormFields params;
  if (params_index == 0 || !lua_istable(L, params_index)) return params;
  lua_pushnil(L);
  while (lua_next(L, params_index) != 0) {
    lua_pushvalue(L, -2);
    const char* k = lua_tostring(L, -1);
    if (k == nullptr || !(lua_isstring(L, -2) || lua_isboolean(L, -2)))
      luaL_error(L, "channels.connect: params must be name = string/number/boolean");
    params.emplace_back(k, lua_isboolean(L, -2) ? (lua_toboolean(L, -2) ? "true" : "false") : lua_tostring(L, -2));
    lua_pop(L, 2);
  }
  return params;
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
  auto transport = clients::PhoenixTransport::WebSocket;
  bool heartbeat_given = false;
  std::optional<bool> reconnect;
  if (has_opts) {
    lua_getfield(L, 2, "transport");
    if (!lua_isnil(L, -1)) {
      const char* name = lua_tostring(L, -1);
      const auto chosen = clients::phoenix_transport_named(name != nullptr ? name : "");
      if (!chosen) luaL_error(L, "channels.connect: transport must be \"websocket\" or \"longpoll\"");
      transport = *chosen;
    }
    lua_pop(L, 1);
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
    heartbeat_given = !lua_isnil(L, -1);
    if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
      options.heartbeat_interval = 0;
    } else {
      options.heartbeat_interval = duration_arg(L, lua_gettop(L), "channels.connect heartbeat", options.heartbeat_interval);
    }
    lua_pop(L, 1);
    options.default_timeout = duration_field(L, 2, "timeout", "channels.connect timeout", options.default_timeout);
    ws_options.timeout = options.default_timeout;
    socket_options_arg(L, 2, "channels.connect", ws_options);
    lua_getfield(L, 2, "reconnect");
    if (!lua_isnil(L, -1)) {
      if (!lua_isboolean(L, -1)) luaL_error(L, "channels.connect: reconnect must be true or false");
      reconnect = lua_toboolean(L, -1) != 0;
    }
    lua_pop(L, 1);
    options.buffer_limit = count_field(L, 2, "buffer", options.buffer_limit);
    lua_getfield(L, 2, "params");
    params_index = lua_gettop(L);
  }
  // phoenix.js sends no heartbeats over LongPoll (skipHeartbeat): its polls keep the session.
  if (transport == clients::PhoenixTransport::LongPoll && !heartbeat_given) options.heartbeat_interval = 0;
  // phoenix.js reconnects either transport; over LongPoll a session the server lost (410) is
  // routine, so it reconnects by default there. A WebSocket keeps ending the socket on a lost
  // connection unless asked (docs/design/049).
  options.reconnect = reconnect.value_or(transport == clients::PhoenixTransport::LongPoll);
  const std::string url = proto::phx::socket_url(base, socket_params_arg(L, params_index), vsn);
  Vu& vu = require_vu(L, "channels.connect");

  handle->connection = clients::PhoenixConnection::make(rt->context(), std::move(options), transport);
  handle->phx = handle->connection->phx;
  std::weak_ptr<ChannelsHandle> weak = handle;
  vu.iteration_cleanup.push_back([weak] {
    if (auto h = weak.lock()) h->connection->release("the iteration ended");
  });
  // An error names the URL the transport used.
  const std::string shown_url = transport == clients::PhoenixTransport::LongPoll
                                    ? proto::phx::longpoll::endpoint_from_websocket_url(url)
                                    : url;
  handle->connection->connect(url, std::move(ws_options),
                      [rt, &vu, epoch = vu.epoch, handle, shown_url](const clients::WebSocketSession::ConnectResult& res) {
                        if (vu.epoch == epoch) vu.note_local_exhaustion(res.local_exhaustion);
                        rt->resume(vu, epoch, [&](lua_State* co) {
                          if (res.ok()) {
                            push_handle(co, handle, kType);
                            return 1;
                          }
                          return push_connect_failure(co, fmt::format("{}: {}", shown_url, res.error), res);
                        });
                      });
  return lua_yield(L, 0);
}

// Starts an asynchronous call and yields until it completes: `start(resume)` starts it and may
// throw for a message that cannot be encoded (nothing is sent then); its completion calls
// resume(push), which resumes the VU with what push(co) leaves on the coroutine's stack.
template <typename Start>
int yield_for(lua_State* L, const char* what, Start start) {
  ScenarioRuntime* rt = runtime_of(L);
  Vu& vu = require_vu(L, what);
  std::string error;
  try {
    start([rt, &vu, epoch = vu.epoch](const std::function<int(lua_State*)>& push) { rt->resume(vu, epoch, push); });
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!error.empty()) luaL_error(L, "%s: %s", what, error.c_str());
  return lua_yield(L, 0);
}

// A join, push or leave: yields until its reply, which the VU gets as push_reply() pushes it.
template <typename Start>
int request(lua_State* L, const char* what, Start start) {
  return yield_for(L, what, [&](auto resume) {
    start([resume](const clients::ChannelReply& reply) {
      resume([&reply](lua_State* co) { return push_reply(co, reply); });
    });
  });
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
  const Nanos timeout = stream_client::remaining_arg(L, 5);
  if (const auto* m = h->phx->find(topic, event, after)) return push_message(L, m);
  // A socket that reconnects gets its messages again once it rejoined: await waits for them.
  if ((!h->phx->is_open() && !h->phx->reconnecting()) || timeout == 0) return push_message(L, nullptr);
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
  const Nanos timeout = stream_client::remaining_arg(L, 4);
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


// Absinthe (clients::AbsintheClient) ---------------------------------------------------------

// absinthe_join(h, timeout) -> as join
int l_absinthe_join(lua_State* L) {
  auto h = handle_arg(L);
  const Nanos timeout = duration_arg(L, 2, "socket:join timeout", 0);
  return request(L, "channels.absinthe", [&](auto done) { clients::AbsintheClient(*h->phx).join(timeout, done); });
}

// absinthe_doc(h, query, variables, timeout) -> as push, then the subscriptionId (nil when
// the reply started none)
int l_absinthe_doc(lua_State* L) {
  auto h = handle_arg(L);
  const std::string query = luaL_checkstring(L, 2);
  const std::string variables = payload_arg(L, 3, false);
  const Nanos timeout = duration_arg(L, 4, "socket:push timeout", 0);
  return yield_for(L, "absinthe", [&](auto resume) {
    clients::AbsintheClient(*h->phx).doc(query, variables, timeout, [resume](const clients::AbsintheDoc& doc) {
      resume([&doc](lua_State* co) {
        const int n = push_reply(co, doc.reply);
        if (doc.subscription_id.empty()) {
          lua_pushnil(co);
        } else {
          lua_pushlstring(co, doc.subscription_id.data(), doc.subscription_id.size());
        }
        return n + 1;
      });
    });
  });
}

// absinthe_unsubscribe(h, subscription_id, timeout) -> as push
int l_absinthe_unsubscribe(lua_State* L) {
  auto h = handle_arg(L);
  const std::string id = luaL_checkstring(L, 2);
  const Nanos timeout = duration_arg(L, 3, "socket:push timeout", 0);
  return request(L, "absinthe:unsubscribe",
                 [&](auto done) { clients::AbsintheClient(*h->phx).unsubscribe(id, timeout, done); });
}

int push_absinthe_data(lua_State* co, const std::optional<clients::AbsintheData>& data) {
  if (!data) {
    lua_pushnil(co);
    return 1;
  }
  lua_createtable(co, 0, 3);
  lua_pushnumber(co, static_cast<double>(data->message->seq));
  lua_setfield(co, -2, "seq");
  push_payload(co, data->message->payload, data->message->binary);
  lua_setfield(co, -2, "payload");
  if (!data->result_json.empty()) {
    push_payload(co, data->result_json, false);
    lua_setfield(co, -2, "result");
  }
  return 1;
}

// absinthe_next(h, subscription_id, after_seq, remaining_ms) -> {seq, result, payload} | nil, as next
int l_absinthe_next(lua_State* L) {
  auto h = handle_arg(L);
  const std::string id = luaL_checkstring(L, 2);
  const auto after = static_cast<std::uint64_t>(luaL_checknumber(L, 3));
  const Nanos timeout = stream_client::remaining_arg(L, 4);
  clients::AbsintheClient absinthe(*h->phx);
  if (auto data = absinthe.find_data(id, after)) return push_absinthe_data(L, data);
  if (!h->phx->is_open() || timeout == 0) return push_absinthe_data(L, std::nullopt);
  ScenarioRuntime* rt = runtime_of(L);
  Vu& vu = require_vu(L, "absinthe:await");
  absinthe.wait_data(id, after, timeout, [rt, &vu, epoch = vu.epoch](std::optional<clients::AbsintheData> data) {
    rt->resume(vu, epoch, [&data](lua_State* co) { return push_absinthe_data(co, data); });
  });
  return lua_yield(L, 0);
}

}  // namespace
}  // namespace channels_bindings

int open_channels_module(lua_State* L) {
  using namespace channels_bindings;
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
                                {"default_timeout", l_default_timeout},
                                {"absinthe_join", l_absinthe_join},
                                {"absinthe_doc", l_absinthe_doc},
                                {"absinthe_unsubscribe", l_absinthe_unsubscribe},
                                {"absinthe_next", l_absinthe_next},
                                {nullptr, nullptr}};
  lua_newtable(L);
  luaL_register(L, nullptr, functions);
  const std::string_view control = proto::phx::absinthe::kControlTopic;
  lua_pushlstring(L, control.data(), control.size());
  lua_setfield(L, -2, "ABSINTHE_CONTROL");
  return stream_client::open_module(L, module_lua::channels_lua, "=stampede.channels");
}

}  // namespace stampede::scenario
