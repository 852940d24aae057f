// `stampede.socketio`: Socket.IO v4. The protocol lives in clients::SocketIoClient; this file
// adapts it to coroutines and tables. A Lua socket is one namespace of a connection; `of()`
// joins another on the same connection, as socket.io-client's Manager multiplexes them.
//
// Binary data: `sio.binary(bytes)` marks a string as bytes. Going out, each marked string
// becomes one attachment (proto::sio::placeholder stands for it in the JSON); coming in, each
// placeholder becomes the Lua string of its attachment.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <lua.hpp>
#include <memory>
#include <string>

#include "clients/socketio_client.hpp"
#include "proto/socket_io.hpp"
#include "scenario/lua_json.hpp"
#include "scenario/lua_modules.hpp"
#include "scenario/module_lua.hpp"
#include "scenario/scenario_runtime.hpp"
#include "scenario/stream_client_bindings.hpp"

namespace stampede::scenario {

// Named, and not only anonymous: a unity build (docs/design/023) compiles several modules
// as one translation unit, and each has its own l_connect, l_close, kType...
namespace socketio_bindings {
namespace {

constexpr const char* kBinaryType = "stampede.socketio.Binary";

// A Lua list of arguments -> JSON arguments and the attachments of their binary strings.
boost::json::array args_arg(lua_State* L, int index, std::vector<std::string>& attachments, const char* what) {
  if (lua_isnoneornil(L, index)) return {};
  luaL_checktype(L, index, LUA_TTABLE);
  const TableHook binary = [&attachments](lua_State* S, int at) -> std::optional<boost::json::value> {
    if (!lua_getmetatable(S, at)) return std::nullopt;
    luaL_getmetatable(S, kBinaryType);
    const bool is_binary = lua_rawequal(S, -1, -2) != 0;
    lua_pop(S, 2);
    if (!is_binary) return std::nullopt;
    lua_getfield(S, at, "data");
    size_t n = 0;
    const char* bytes = lua_tolstring(S, -1, &n);
    attachments.emplace_back(bytes != nullptr ? bytes : "", bytes != nullptr ? n : 0);
    lua_pop(S, 1);
    return proto::sio::placeholder(attachments.size() - 1);
  };
  std::string error;
  try {
    boost::json::array out;
    const auto n = static_cast<int>(lua_objlen(L, index));
    for (int i = 1; i <= n; ++i) {
      lua_rawgeti(L, index, i);
      out.push_back(lua_to_json(L, lua_gettop(L), binary));
      lua_pop(L, 1);
    }
    return out;
  } catch (const std::exception& e) {
    error = e.what();
  }
  luaL_error(L, "%s: the data cannot be sent as JSON: %s", what, error.c_str());
  return {};
}

// JSON arguments -> a Lua list, placeholders replaced by their attachments' bytes.
void push_args(lua_State* L, const boost::json::array& args, const std::vector<std::string>& attachments) {
  const ValueHook bytes = [&attachments](lua_State* S, const boost::json::value& v) {
    const std::string* attachment = proto::sio::attachment_of(attachments, v);
    if (attachment == nullptr) return false;
    lua_pushlstring(S, attachment->data(), attachment->size());
    return true;
  };
  lua_createtable(L, static_cast<int>(args.size()), 0);
  int i = 1;
  for (const auto& arg : args) {
    push_json(L, arg, bytes);
    lua_rawseti(L, -2, i++);
  }
}

struct SocketIo {
  using Client = clients::SocketIoClient;
  using Message = clients::SocketIoEvent;
  static constexpr const char* kType = "stampede.socketio.Connection";
  static constexpr const char* kReleased = "socketio: the connection was already released";
  static constexpr int kFields = 5;

  // The polling handshake is an HTTP request of the VU's.
  static std::shared_ptr<Client> make(ScenarioRuntime& rt, Vu& vu) {
    return std::make_shared<Client>(rt.context(), &rt.http_of(vu));
  }

  static void set_fields(lua_State* L, const Message& e) {
    set_string(L, "event", e.event);
    set_string(L, "namespace", e.nsp);
    push_args(L, e.args, e.attachments);
    lua_setfield(L, -2, "args");
    if (e.ack_id) {
      lua_pushnumber(L, static_cast<double>(*e.ack_id));
      lua_setfield(L, -2, "ack_id");
    }
  }
};
using Bindings = stream_client::Bindings<SocketIo>;

std::string auth_arg(lua_State* L, int index) {
  if (lua_isnoneornil(L, index)) return {};
  std::string error;
  try {
    boost::json::value v = lua_to_json(L, index);
    if (v.is_object()) return boost::json::serialize(v);
    error = "it is not a table of fields";
  } catch (const std::exception& e) {
    error = e.what();
  }
  luaL_error(L, "socketio: auth must be a table that JSON can hold: %s", error.c_str());
  return {};
}

// connect(url, opts, namespace) -> handle, sid | nil, message, reason, status
int l_connect(lua_State* L) {
  ScenarioRuntime* rt = runtime_of(L);
  const std::string url = luaL_checkstring(L, 1);
  const std::string nsp = luaL_checkstring(L, 3);
  clients::SocketIoClient::Options options;
  options.ws.insecure = rt->env().insecure;
  std::string auth;
  if (lua_istable(L, 2)) {
    socket_options_arg(L, 2, "socketio.connect", options.ws);
    lua_getfield(L, 2, "auth");
    auth = auth_arg(L, lua_gettop(L));
    lua_pop(L, 1);
    lua_getfield(L, 2, "path");
    if (!lua_isnil(L, -1)) {
      options.path = luaL_checkstring(L, -1);
      if (options.path.empty() || options.path.front() != '/') luaL_error(L, "socketio.connect: path must start with /");
      if (options.path.back() != '/') options.path += '/';
    }
    lua_pop(L, 1);
    lua_getfield(L, 2, "query");
    options.query = pairs_arg(L, -1, "socketio.connect", "query");
    lua_pop(L, 1);
    lua_getfield(L, 2, "transport");
    if (!lua_isnil(L, -1)) {
      const std::string transport = luaL_checkstring(L, -1);
      if (transport == "polling") {
        options.polling_handshake = true;
      } else if (transport != "websocket") {
        luaL_error(L, "socketio.connect: transport must be \"websocket\" or \"polling\" (open by polling, then upgrade)");
      }
    }
    lua_pop(L, 1);
    options.timeout = duration_field(L, 2, "timeout", "socketio.connect timeout", options.timeout);
    options.buffer_limit = count_field(L, 2, "buffer", options.buffer_limit);
  }
  return Bindings::connect(
      L, "socketio.connect", url,
      [&](clients::SocketIoClient& client, auto done) {
        client.connect(url, std::move(options), nsp, std::move(auth), done);
      },
      [](lua_State* co, const clients::SocketIoClient::Result& res) {
        lua_pushstring(co, res.sid.c_str());
        return 1;
      });
}

// join(h, namespace, auth) -> sid | nil, message, reason
int l_join(lua_State* L) {
  clients::SocketIoClient& client = Bindings::client(L);
  std::string nsp = luaL_checkstring(L, 2);
  std::string auth = auth_arg(L, 3);
  ScenarioRuntime* rt = runtime_of(L);
  Vu& vu = require_vu(L, "socket:of");
  client.join(std::move(nsp), std::move(auth), [rt, &vu, epoch = vu.epoch](clients::SocketIoClient::Result res) {
    rt->resume(vu, epoch, [&](lua_State* co) {
      if (res.ok()) {
        lua_pushstring(co, res.sid.c_str());
        return 1;
      }
      lua_pushnil(co);
      lua_pushstring(co, res.error.c_str());
      lua_pushstring(co, res.error_reason.c_str());
      return 3;
    });
  });
  return lua_yield(L, 0);
}

// emit(h, namespace, event, args, ack, timeout_ms) -> (nothing) | ack args | nil, message, reason
int l_emit(lua_State* L) {
  clients::SocketIoClient& client = Bindings::client(L);
  const std::string nsp = luaL_checkstring(L, 2);
  const std::string event = luaL_checkstring(L, 3);
  std::vector<std::string> attachments;
  boost::json::array args = args_arg(L, 4, attachments, "socket:emit");
  const bool ack = lua_toboolean(L, 5) != 0;
  const Nanos timeout = duration_arg(L, 6, "socket:emit timeout", 10 * kSecond);
  std::string error;
  if (!ack) {
    try {
      client.emit(nsp, event, std::move(args), std::move(attachments), 0, nullptr);
      return 0;
    } catch (const std::exception& e) {
      error = e.what();
    }
    luaL_error(L, "socket:emit: %s", error.c_str());
  }
  ScenarioRuntime* rt = runtime_of(L);
  Vu& vu = require_vu(L, "socket:emit");
  try {
    client.emit(nsp, event, std::move(args), std::move(attachments), timeout,
                [rt, &vu, epoch = vu.epoch](clients::SocketIoClient::Result res) {
                  rt->resume(vu, epoch, [&](lua_State* co) {
                    if (res.ok()) {
                      static const boost::json::array kNone;
                      push_args(co, res.data.is_array() ? res.data.get_array() : kNone, res.attachments);
                      return 1;
                    }
                    lua_pushnil(co);
                    lua_pushstring(co, res.error.c_str());
                    lua_pushstring(co, res.error_reason.c_str());
                    return 3;
                  });
                });
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!error.empty()) luaL_error(L, "socket:emit: %s", error.c_str());
  return lua_yield(L, 0);
}

// ack(h, namespace, id, args)
int l_ack(lua_State* L) {
  clients::SocketIoClient& client = Bindings::client(L);
  const std::string nsp = luaL_checkstring(L, 2);
  const auto id = static_cast<std::uint64_t>(luaL_checknumber(L, 3));
  std::vector<std::string> attachments;
  boost::json::array args = args_arg(L, 4, attachments, "socket:ack");
  std::string error;
  try {
    client.send_ack(nsp, id, std::move(args), std::move(attachments));
    return 0;
  } catch (const std::exception& e) {
    error = e.what();
  }
  luaL_error(L, "socket:ack: %s", error.c_str());
  return 0;
}

// next(h, namespace, event | nil, after_seq, remaining_ms) -> event | nil
int l_next(lua_State* L) {
  clients::SocketIoClient& client = Bindings::client(L);
  std::string nsp = luaL_checkstring(L, 2);
  std::optional<std::string> event;
  if (!lua_isnil(L, 3)) event = luaL_checkstring(L, 3);
  const bool connected = client.connected(nsp);
  return Bindings::next(
      L, client,
      [nsp = std::move(nsp), event = std::move(event)](const clients::SocketIoEvent& e) {
        return e.nsp == nsp && (!event || e.event == *event);
      },
      4, "socket:await", connected);
}

int l_leave(lua_State* L) {
  Bindings::client(L).leave(luaL_checkstring(L, 2));
  return 0;
}

int l_connected(lua_State* L) {
  lua_pushboolean(L, Bindings::client(L).connected(luaL_checkstring(L, 2)));
  return 1;
}

int l_disconnect_reason(lua_State* L) {
  const std::string reason = Bindings::client(L).disconnect_reason(luaL_checkstring(L, 2));
  if (reason.empty()) return 0;
  lua_pushstring(L, reason.c_str());
  return 1;
}

}  // namespace
}  // namespace socketio_bindings

int open_socketio_module(lua_State* L) {
  using namespace socketio_bindings;
  const luaL_Reg functions[] = {{"connect", l_connect},
                                {"join", l_join},
                                {"emit", l_emit},
                                {"ack", l_ack},
                                {"next", l_next},
                                {"leave", l_leave},
                                {"connected", l_connected},
                                {"disconnect_reason", l_disconnect_reason},
                                {nullptr, nullptr}};
  return Bindings::open_module(L, functions, module_lua::socketio_lua, "=stampede.socketio", [](lua_State* S) {
    luaL_newmetatable(S, kBinaryType);  // sio.binary's
    lua_setfield(S, -2, "Binary");
  });
}

}  // namespace stampede::scenario
