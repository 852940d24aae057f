// `stampede.graphql_ws`: GraphQL over WebSocket (graphql-transport-ws, or the legacy
// graphql-ws of subscriptions-transport-ws). The protocol lives in clients::GraphqlWsClient;
// this file adapts it to coroutines and tables.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <lua.hpp>
#include <memory>
#include <string>

#include "clients/graphql_ws_client.hpp"
#include "scenario/lua_handle.hpp"
#include "scenario/lua_json.hpp"
#include "scenario/lua_modules.hpp"
#include "scenario/module_lua.hpp"
#include "scenario/scenario_runtime.hpp"

namespace stampede::scenario {

// Named, and not only anonymous: a unity build (docs/design/023) compiles several modules
// as one translation unit, and each has its own l_connect, l_close, kType...
namespace graphql_ws_bindings {
namespace {

constexpr const char* kType = "stampede.graphql_ws.Client";

struct GraphqlHandle {
  std::shared_ptr<clients::GraphqlWsClient> client;
};

clients::GraphqlWsClient& client_arg(lua_State* L) {
  GraphqlHandle& h = check_handle<GraphqlHandle>(L, 1, kType);
  if (!h.client) luaL_error(L, "graphql_ws: the client was already released");
  return *h.client;
}

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
    lua_getfield(L, 2, "timeout");
    options.ws.timeout = duration_arg(L, lua_gettop(L), "graphql_ws.connect timeout", options.ws.timeout);
    options.ack_timeout = options.ws.timeout;
    lua_pop(L, 1);
    lua_getfield(L, 2, "ack_timeout");
    options.ack_timeout = duration_arg(L, lua_gettop(L), "graphql_ws.connect ack_timeout", options.ack_timeout);
    lua_pop(L, 1);
    lua_getfield(L, 2, "buffer");
    if (lua_type(L, -1) == LUA_TNUMBER) options.buffer_limit = static_cast<std::size_t>(lua_tonumber(L, -1));
    lua_pop(L, 1);
  }
  Vu& vu = require_vu(L, "graphql_ws.connect");
  auto handle = std::make_shared<GraphqlHandle>();
  handle->client = std::make_shared<clients::GraphqlWsClient>(rt->context());
  std::weak_ptr<GraphqlHandle> weak = handle;
  vu.iteration_cleanup.push_back([weak] {
    if (auto h = weak.lock()) h->client.reset();  // closes the WebSocket ("going away")
  });
  handle->client->connect(url, std::move(options),
                          [rt, &vu, epoch = vu.epoch, handle, url](clients::GraphqlWsClient::ConnectResult res) {
                            if (vu.epoch == epoch) vu.note_local_exhaustion(res.local_exhaustion);
                            rt->resume(vu, epoch, [&](lua_State* co) {
                              if (res.ok()) {
                                push_handle(co, handle, kType);
                                push_payload(co, res.ack_payload);
                                return 2;
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

// subscribe(h, query, variables, operation_name, extensions) -> id
int l_subscribe(lua_State* L) {
  clients::GraphqlWsClient& client = client_arg(L);
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

int push_message(lua_State* co, const clients::GraphqlMessage* m) {
  if (m == nullptr) {
    lua_pushnil(co);
    return 1;
  }
  lua_createtable(co, 0, 4);
  lua_pushnumber(co, static_cast<double>(m->seq));
  lua_setfield(co, -2, "seq");
  using Kind = clients::GraphqlMessage::Kind;
  lua_pushstring(co, m->kind == Kind::Next ? "next" : m->kind == Kind::Error ? "error" : "complete");
  lua_setfield(co, -2, "kind");
  lua_pushlstring(co, m->id.data(), m->id.size());
  lua_setfield(co, -2, "id");
  push_payload(co, m->payload);
  lua_setfield(co, -2, "payload");
  return 1;
}

// next(h, id, after_seq, remaining_ms) -> message | nil (timeout or closed)
int l_next(lua_State* L) {
  clients::GraphqlWsClient& client = client_arg(L);
  std::string id = luaL_checkstring(L, 2);
  const auto after = static_cast<std::uint64_t>(luaL_checknumber(L, 3));
  const double ms = luaL_checknumber(L, 4);
  clients::MessageInbox<clients::GraphqlMessage>::Filter filter = [id](const clients::GraphqlMessage& m) {
    return m.id == id;
  };
  auto& inbox = client.inbox();
  if (const auto* m = inbox.find(after, filter)) return push_message(L, m);
  if (inbox.closed() || ms <= 0) return push_message(L, nullptr);
  ScenarioRuntime* rt = runtime_of(L);
  Vu& vu = require_vu(L, "client:await");
  inbox.wait(after, std::move(filter), std::max<Nanos>(1, static_cast<Nanos>(ms * kMilli)),
             [rt, &vu, epoch = vu.epoch](const clients::GraphqlMessage* m) {
               rt->resume(vu, epoch, [m](lua_State* co) { return push_message(co, m); });
             });
  return lua_yield(L, 0);
}

int l_consume(lua_State* L) {
  client_arg(L).inbox().consume(static_cast<std::uint64_t>(luaL_checknumber(L, 2)));
  return 0;
}

int l_complete(lua_State* L) {
  client_arg(L).complete(luaL_checkstring(L, 2));
  return 0;
}

int l_finished(lua_State* L) {
  lua_pushboolean(L, client_arg(L).finished(luaL_checkstring(L, 2)));
  return 1;
}

int l_close(lua_State* L) {
  client_arg(L).close();
  return 0;
}

// closed(h) -> closed, why
int l_closed(lua_State* L) {
  clients::GraphqlWsClient& client = client_arg(L);
  lua_pushboolean(L, client.state() == clients::GraphqlWsClient::State::Closed);
  lua_pushstring(L, client.closed_reason().c_str());
  return 2;
}

int l_is_open(lua_State* L) {
  lua_pushboolean(L, client_arg(L).state() == clients::GraphqlWsClient::State::Open);
  return 1;
}

int l_duration_ms(lua_State* L) {
  const char* what = luaL_checkstring(L, 2);
  if (lua_isnoneornil(L, 1)) return 0;
  lua_pushnumber(L, static_cast<double>(duration_arg(L, 1, what, 0)) / kMilli);
  return 1;
}

}  // namespace
}  // namespace graphql_ws_bindings

int open_graphql_ws_module(lua_State* L) {
  using namespace graphql_ws_bindings;
  const luaL_Reg functions[] = {{"connect", l_connect},   {"subscribe", l_subscribe}, {"next", l_next},
                                {"consume", l_consume},   {"complete", l_complete},   {"finished", l_finished},
                                {"close", l_close},       {"closed", l_closed},       {"is_open", l_is_open},
                                {"duration_ms", l_duration_ms}, {nullptr, nullptr}};
  lua_newtable(L);
  luaL_register(L, nullptr, functions);
  run_module_lua(L, module_lua::graphql_ws_lua, "=stampede.graphql_ws");
  return 1;
}

}  // namespace stampede::scenario
