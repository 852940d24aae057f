// `stampede.graphql_ws`: GraphQL over WebSocket (graphql-transport-ws, or the legacy
// graphql-ws of subscriptions-transport-ws). The protocol lives in clients::GraphqlWsClient;
// this file adapts it to coroutines and tables.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <lua.hpp>
#include <memory>
#include <string>

#include "clients/graphql_ws_client.hpp"
#include "scenario/lua_json.hpp"
#include "scenario/lua_modules.hpp"
#include "scenario/module_lua.hpp"
#include "scenario/scenario_runtime.hpp"
#include "scenario/stream_client_bindings.hpp"

namespace stampede::scenario {

// Named, and not only anonymous: a unity build (docs/design/023) compiles several modules
// as one translation unit, and each has its own l_connect, l_close, kType...
namespace graphql_ws_bindings {
namespace {

// A JSON object argument (a table, or JSON text) as JSON text; empty for nil.
std::string object_arg(lua_State* L, int index, const char* what) {
  if (lua_isnoneornil(L, index)) return {};
  if (lua_type(L, index) == LUA_TSTRING) return lua_tostring(L, index);
  std::string error;
  try {
    boost::json::value v = lua_to_json(L, index);
    if (v.is_object()) return boost::json::serialize(v);
    error = "it is not an object";
  } catch (const std::exception& e) {
    error = e.what();
  }
  luaL_error(L, "%s must be a table that JSON can hold: %s", what, error.c_str());
  return {};
}

// JSON text -> Lua value (the text itself when it is not JSON, so nothing is lost).
void push_payload(lua_State* L, const std::string& payload) {
  if (payload.empty()) {
    lua_pushnil(L);
    return;
  }
  boost::system::error_code ec;
  auto v = boost::json::parse(payload, ec);
  if (ec) {
    lua_pushlstring(L, payload.data(), payload.size());
    return;
  }
  push_json(L, v);
}

struct Graphql {
  using Client = clients::GraphqlWsClient;
  using Message = clients::GraphqlMessage;
  static constexpr const char* kType = "stampede.graphql_ws.Client";
  static constexpr const char* kReleased = "graphql_ws: the client was already released";
  static constexpr int kFields = 4;

  static void set_fields(lua_State* L, const Message& m) {
    using Kind = Message::Kind;
    lua_pushstring(L, m.kind == Kind::Next ? "next" : m.kind == Kind::Error ? "error" : "complete");
    lua_setfield(L, -2, "kind");
    set_string(L, "id", m.id);
    push_payload(L, m.payload);
    lua_setfield(L, -2, "payload");
  }
};
using Bindings = stream_client::Bindings<Graphql>;

// connect(url, opts) -> handle, ack payload | nil, message, reason, status
int l_connect(lua_State* L) {
  ScenarioRuntime* rt = runtime_of(L);
  const std::string url = luaL_checkstring(L, 1);
  clients::GraphqlWsClient::Options options;
  options.ws.insecure = rt->env().insecure;
  if (lua_istable(L, 2)) {
    socket_options_arg(L, 2, "graphql_ws.connect", options.ws);
    lua_getfield(L, 2, "subprotocol");
    if (!lua_isnil(L, -1)) {
      const std::string name = luaL_checkstring(L, -1);
      if (name == "graphql-transport-ws") {
        options.subprotocol = proto::gql::Subprotocol::GraphqlTransportWs;
      } else if (name == "graphql-ws") {
        options.subprotocol = proto::gql::Subprotocol::GraphqlWs;
      } else {
        luaL_error(L, "graphql_ws.connect: subprotocol must be \"graphql-transport-ws\" or \"graphql-ws\" (legacy), not \"%s\"",
                   name.c_str());
      }
    }
    lua_pop(L, 1);
    lua_getfield(L, 2, "payload");
    options.init_payload_json = object_arg(L, lua_gettop(L), "graphql_ws.connect payload");
    lua_pop(L, 1);
    options.ws.timeout = duration_field(L, 2, "timeout", "graphql_ws.connect timeout", options.ws.timeout);
    options.ack_timeout = duration_field(L, 2, "ack_timeout", "graphql_ws.connect ack_timeout", options.ws.timeout);
    options.buffer_limit = count_field(L, 2, "buffer", options.buffer_limit);
  }
  return Bindings::connect(
      L, "graphql_ws.connect", url,
      [&](clients::GraphqlWsClient& client, auto done) { client.connect(url, std::move(options), done); },
      [](lua_State* co, const clients::GraphqlWsClient::ConnectResult& res) {
        push_payload(co, res.ack_payload);
        return 1;
      });
}

// subscribe(h, query, variables, operation_name, extensions) -> id
int l_subscribe(lua_State* L) {
  clients::GraphqlWsClient& client = Bindings::client(L);
  const std::string query = luaL_checkstring(L, 2);
  const std::string variables = object_arg(L, 3, "subscribe: variables");
  const std::string operation_name = luaL_optstring(L, 4, "");
  const std::string extensions = object_arg(L, 5, "subscribe: extensions");
  std::string error;
  try {
    const std::string id = client.subscribe(proto::gql::Operation{query, variables, operation_name, extensions});
    lua_pushlstring(L, id.data(), id.size());
    return 1;
  } catch (const std::exception& e) {
    error = e.what();
  }
  luaL_error(L, "%s", error.c_str());
  return 0;
}

// next(h, id, after_seq, remaining_ms) -> message | nil (timeout or closed)
int l_next(lua_State* L) {
  clients::GraphqlWsClient& client = Bindings::client(L);
  std::string id = luaL_checkstring(L, 2);
  return Bindings::next(L, client, [id](const clients::GraphqlMessage& m) { return m.id == id; }, 3, "client:await");
}

int l_complete(lua_State* L) {
  Bindings::client(L).complete(luaL_checkstring(L, 2));
  return 0;
}

int l_finished(lua_State* L) {
  lua_pushboolean(L, Bindings::client(L).finished(luaL_checkstring(L, 2)));
  return 1;
}

}  // namespace
}  // namespace graphql_ws_bindings

int open_graphql_ws_module(lua_State* L) {
  using namespace graphql_ws_bindings;
  const luaL_Reg functions[] = {{"connect", l_connect},   {"subscribe", l_subscribe}, {"next", l_next},
                                {"complete", l_complete}, {"finished", l_finished},   {nullptr, nullptr}};
  return Bindings::open_module(L, functions, module_lua::graphql_ws_lua, "=stampede.graphql_ws");
}

}  // namespace stampede::scenario
