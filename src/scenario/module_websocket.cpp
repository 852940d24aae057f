// `stampede.websocket`: plain WebSockets. connect() yields until the handshake is done;
// received messages are kept (even after the server closed) until await() reads them.
#include <deque>
#include <lua.hpp>
#include <memory>
#include <string>

#include "clients/websocket_session.hpp"
#include "scenario/lua_handle.hpp"
#include "scenario/lua_modules.hpp"
#include "scenario/module_lua.hpp"
#include "scenario/scenario_runtime.hpp"

namespace stampede::scenario {

// Named, and not only anonymous: a unity build (docs/design/023) compiles several modules
// as one translation unit, and each has its own l_connect, l_close, kType...
namespace websocket_bindings {
namespace {

constexpr const char* kType = "stampede.websocket.Socket";

// What the Lua object holds: the session, and what arrived that Lua has not taken yet. A
// message is held once: here (handed over by the session, not copied) until await() takes
// it, then as the Lua string alone (await keeps the ones its match skipped, in Lua).
struct WsHandle {
  struct Received {
    bool binary;
    std::string data;
  };
  std::unique_ptr<clients::WebSocketSession> session;
  std::deque<Received> received;
  bool closed = false;
  std::string close_text;  // "closed by the server (1000 bye)"
  // One waiter at a time: the VU that awaits (or closes) is suspended in this call.
  std::function<void()> wake;

  void notify() {
    if (auto w = std::move(wake)) {
      wake = nullptr;
      w();
    }
  }
};

void read_string_list(lua_State* L, int index, std::vector<std::string>& out, const char* what) {
  if (lua_isnil(L, index)) return;
  if (lua_type(L, index) == LUA_TSTRING) {
    out.emplace_back(lua_tostring(L, index));
    return;
  }
  if (!lua_istable(L, index)) luaL_error(L, "websocket.connect: %s must be a list of strings", what);
  for (size_t i = 1; i <= lua_objlen(L, index); ++i) {
    lua_rawgeti(L, index, static_cast<int>(i));
    out.emplace_back(luaL_checkstring(L, -1));
    lua_pop(L, 1);
  }
}

// connect(url, opts) -> socket | nil, message, reason, status
int l_connect(lua_State* L) {
  ScenarioRuntime* rt = runtime_of(L);
  std::string url = luaL_checkstring(L, 1);
  clients::WebSocketSession::ConnectOptions opts;
  opts.insecure = rt->env().insecure;
  if (lua_istable(L, 2)) {
    socket_options_arg(L, 2, "websocket.connect", opts);
    lua_getfield(L, 2, "subprotocols");
    read_string_list(L, lua_gettop(L), opts.subprotocols, "subprotocols");
    lua_pop(L, 1);
    opts.timeout = duration_field(L, 2, "timeout", "websocket.connect timeout", opts.timeout);
    opts.max_message_bytes = count_field(L, 2, "max_message_size", opts.max_message_bytes);
  }
  Vu& vu = require_vu(L, "websocket.connect");
  auto handle = std::make_shared<WsHandle>();
  std::weak_ptr<WsHandle> weak = handle;
  clients::WebSocketSession::Callbacks cb;
  cb.on_message_kept = [weak](proto::ws::Opcode op, std::string&& payload) {
    auto h = weak.lock();
    if (!h) return;
    h->received.push_back({op == proto::ws::Opcode::Binary, std::move(payload)});
    h->notify();
  };
  cb.on_close = [weak](const clients::WebSocketSession::CloseInfo& info) {
    auto h = weak.lock();
    if (!h) return;
    h->closed = true;
    h->close_text = info.clean || !info.reason.empty()
                        ? "the connection closed (" + std::to_string(info.code) + (info.reason.empty() ? "" : " ") +
                              info.reason + ")"
                        : "the connection closed: " + info.error;
    h->notify();
  };
  handle->session = std::make_unique<clients::WebSocketSession>(rt->context(), std::move(cb));
  // Whatever happens in this iteration, the socket does not outlive it.
  vu.iteration_cleanup.push_back([weak] {
    if (auto h = weak.lock()) {
      h->wake = nullptr;
      h->session.reset();  // sends "going away" and closes
      h->closed = true;
    }
  });
  handle->session->connect(url, std::move(opts), [rt, &vu, epoch = vu.epoch, handle](
                                                     clients::WebSocketSession::ConnectResult res) {
    if (vu.epoch == epoch) vu.note_local_exhaustion(res.local_exhaustion);
    rt->resume(vu, epoch, [&](lua_State* co) {
      if (res.ok()) {
        push_handle(co, handle, kType);
        return 1;
      }
      return push_connect_failure(co, res.error, res);
    });
  });
  return lua_yield(L, 0);
}

int send_impl(lua_State* L, bool binary) {
  WsHandle& h = check_handle<WsHandle>(L, 1, kType);
  size_t n = 0;
  const char* data = luaL_checklstring(L, 2, &n);
  const bool sent = h.session && (binary ? h.session->send_binary({data, n}) : h.session->send_text({data, n}));
  if (!sent) return luaL_error(L, "websocket: cannot send, %s", h.closed ? h.close_text.c_str() : "not open");
  return 0;
}
int l_send(lua_State* L) { return send_impl(L, false); }
int l_send_binary(lua_State* L) { return send_impl(L, true); }

// take(socket, timeout) -> {type, data} | nil, "timeout"|"closed", message: the oldest
// message Lua has not taken, waiting for one up to `timeout`.
int l_take(lua_State* L) {
  ScenarioRuntime* rt = runtime_of(L);
  auto& holder = *static_cast<std::shared_ptr<WsHandle>*>(luaL_checkudata(L, 1, kType));
  std::shared_ptr<WsHandle> h = holder;
  const Nanos timeout = duration_arg(L, 2, "websocket:await timeout", 10 * kSecond);
  Vu& vu = require_vu(L, "websocket:await");
  auto push_result = [h](lua_State* co) -> int {
    if (!h->received.empty()) {
      WsHandle::Received& r = h->received.front();
      lua_createtable(co, 0, 2);
      lua_pushstring(co, r.binary ? "binary" : "text");
      lua_setfield(co, -2, "type");
      lua_pushlstring(co, r.data.data(), r.data.size());
      lua_setfield(co, -2, "data");
      h->received.pop_front();  // the Lua string is the message now
      return 1;
    }
    lua_pushnil(co);
    lua_pushstring(co, h->closed ? "closed" : "timeout");
    lua_pushstring(co, h->closed ? h->close_text.c_str() : "no message arrived in time");
    return 3;
  };
  if (!h->received.empty() || h->closed) return push_result(L);
  auto timer = std::make_shared<boost::asio::steady_timer>(rt->context().io);
  timer->expires_after(std::chrono::nanoseconds(timeout));
  auto wake = [rt, &vu, epoch = vu.epoch, h, timer, push_result] {
    timer->cancel();
    h->wake = nullptr;
    rt->resume(vu, epoch, push_result);
  };
  h->wake = wake;
  timer->async_wait([wake](const boost::system::error_code& ec) {
    if (!ec) wake();
  });
  return lua_yield(L, 0);
}

// close(socket, code, reason): waits for the close handshake (bounded by close_timeout).
int l_close(lua_State* L) {
  ScenarioRuntime* rt = runtime_of(L);
  std::shared_ptr<WsHandle> h = *static_cast<std::shared_ptr<WsHandle>*>(luaL_checkudata(L, 1, kType));
  const auto code = static_cast<std::uint16_t>(luaL_optinteger(L, 2, proto::ws::close_code::kNormal));
  const std::string reason = luaL_optstring(L, 3, "");
  if (h->closed || !h->session) return 0;
  Vu& vu = require_vu(L, "websocket:close");
  h->wake = [rt, &vu, epoch = vu.epoch, h] { rt->resume(vu, epoch, [](lua_State*) { return 0; }); };
  h->session->close_by_scenario(code, reason);
  return lua_yield(L, 0);
}

int l_is_open(lua_State* L) {
  WsHandle& h = check_handle<WsHandle>(L, 1, kType);
  lua_pushboolean(L, h.session && h.session->is_open());
  return 1;
}


}  // namespace
}  // namespace websocket_bindings

int open_websocket_module(lua_State* L) {
  using namespace websocket_bindings;
  const luaL_Reg functions[] = {{"connect", l_connect}, {"send", l_send},   {"send_binary", l_send_binary},
                                {"take", l_take},       {"close", l_close}, {"is_open", l_is_open},
                                {nullptr, nullptr}};
  return open_module(L, functions, module_lua::websocket_lua, "=stampede.websocket");
}

}  // namespace stampede::scenario
