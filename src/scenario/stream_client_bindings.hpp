#pragma once
// What the C halves of the streaming clients' Lua modules share (stampede.sse,
// stampede.graphql_ws, stampede.socketio; stampede.channels uses open_module, duration_ms and
// remaining_arg): the Lua object that holds a client for one iteration, connect() yielding until
// the client is connected, next() over the client's MessageInbox within what remains of an
// await's deadline, consume, close, closed, is_open, and opening the module with the Lua half
// they share (src/scenario/lua/stream_client.lua). Each module_*.cpp keeps only its protocol's
// part: its options, its other calls and what its messages look like in Lua. No protocol here
// either: the clients (clients/) own it.
#include <fmt/format.h>

#include <cstdint>
#include <lua.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "clients/message_inbox.hpp"
#include "common/clock.hpp"
#include "scenario/lua_handle.hpp"
#include "scenario/lua_modules.hpp"
#include "scenario/scenario_runtime.hpp"

namespace stampede::scenario::stream_client {

// Opens a module whose C half, the table `c`, is on top of the stack: adds duration_ms to it,
// runs stream_client.lua with `c`, then the module's Lua half `source` with (c, what
// stream_client.lua returned). Replaces `c` with the module; returns 1.
int open_module(lua_State* L, std::string_view source, const char* chunk_name);

// duration_ms(value, what) -> ms | nil: every timeout option of the modules comes through here,
// so numbers and strings ("500ms", "2s") mean the same thing everywhere.
int l_duration_ms(lua_State* L);

// What is left of an await's deadline, in ms, as the Lua half computes it: 0 once it has
// passed. Anything left is at least 1 ns, so that a sliver (or a float that truncates to 0 ns)
// never reads as "no time at all" or, to ChannelsSocket, as "the default timeout".
Nanos remaining_arg(lua_State* L, int index);

// A protocol's part, as a struct:
//   using Client = clients::SseStream;   // close(), inbox(), and state() and closed_reason()
//                                        // where the Lua half asks closed/is_open
//   using Message = clients::SseEvent;   // what its MessageInbox keeps
//   static constexpr const char* kType = "stampede.sse.Stream";  // the Lua object's metatable
//   static constexpr const char* kReleased = "sse: the stream was already released";
//   static constexpr int kFields = 4;    // how many fields a message's table has, seq included
//   static void set_fields(lua_State* L, const Message& m);  // all but seq, into the table on top
// and, when a client is not made from the worker's ClientContext alone,
//   static std::shared_ptr<Client> make(ScenarioRuntime&, Vu&);
template <typename Protocol>
struct Bindings {
  using Client = typename Protocol::Client;
  using Message = typename Protocol::Message;
  using Filter = typename clients::MessageInbox<Message>::Filter;

  // What the Lua object holds: the client, until the iteration ends.
  struct Handle {
    std::shared_ptr<Client> client;
  };

  // The client behind argument 1.
  static Client& client(lua_State* L) {
    Handle& h = check_handle<Handle>(L, 1, Protocol::kType);
    if (!h.client) luaL_error(L, "%s", Protocol::kReleased);
    return *h.client;
  }

  // connect(...) -> handle, what push_connected pushes | nil, "url: error", reason, status.
  // After the module has read its options: yields until `start(client, done)` reports through
  // `done`, with a result that has ok(), error, error_reason, status and local_exhaustion.
  // push_connected(co, result) pushes what comes with the handle and returns how many values.
  // `what` ("sse.connect") names the call when it is made outside a VU. Whatever happens in
  // this iteration, the client does not outlive it.
  template <typename Start, typename PushConnected>
  static int connect(lua_State* L, const char* what, std::string url, Start start, PushConnected push_connected) {
    ScenarioRuntime* rt = runtime_of(L);
    Vu& vu = require_vu(L, what);
    auto handle = std::make_shared<Handle>();
    if constexpr (requires { Protocol::make(*rt, vu); }) {
      handle->client = Protocol::make(*rt, vu);
    } else {
      handle->client = std::make_shared<Client>(rt->context());
    }
    std::weak_ptr<Handle> weak = handle;
    vu.iteration_cleanup.push_back([weak] {
      if (auto h = weak.lock()) h->client.reset();  // a WebSocket closes ("going away")
    });
    start(*handle->client, [rt, &vu, epoch = vu.epoch, handle, url = std::move(url), push_connected](auto res) {
      if (vu.epoch == epoch) vu.note_local_exhaustion(res.local_exhaustion);
      rt->resume(vu, epoch, [&](lua_State* co) {
        if (!res.ok()) return push_connect_failure(co, fmt::format("{}: {}", url, res.error), res.error_reason, res.status);
        push_handle(co, handle, Protocol::kType);
        return 1 + push_connected(co, res);
      });
    });
    return lua_yield(L, 0);
  }

  // next(h, ..., after_seq, remaining_ms) -> message | nil (out of time, or nothing more will
  // come): the first kept message after after_seq (argument `after_index`, remaining_ms the
  // next one) that passes `filter`, waiting for one within remaining_ms unless the inbox is
  // closed or `may_wait` is false. With nothing remaining it only looks at what is kept.
  // `what` ("stream:await") names the call when it is made outside a VU.
  static int next(lua_State* L, Client& client, Filter filter, int after_index, const char* what,
                  bool may_wait = true) {
    const auto after = static_cast<std::uint64_t>(luaL_checknumber(L, after_index));
    const Nanos remaining = remaining_arg(L, after_index + 1);
    auto& inbox = client.inbox();
    if (const Message* m = inbox.find(after, filter)) return push(L, m);
    if (inbox.closed() || remaining == 0 || !may_wait) return push(L, nullptr);
    ScenarioRuntime* rt = runtime_of(L);
    Vu& vu = require_vu(L, what);
    inbox.wait(after, std::move(filter), remaining, [rt, &vu, epoch = vu.epoch](const Message* m) {
      rt->resume(vu, epoch, [m](lua_State* co) { return push(co, m); });
    });
    return lua_yield(L, 0);
  }

  // consume(h, seq): an await took the message.
  static int l_consume(lua_State* L) {
    client(L).inbox().consume(static_cast<std::uint64_t>(luaL_checknumber(L, 2)));
    return 0;
  }

  static int l_close(lua_State* L) {
    client(L).close();
    return 0;
  }

  // closed(h) -> closed, why
  static int l_closed(lua_State* L) {
    Client& c = client(L);
    lua_pushboolean(L, c.state() == Client::State::Closed);
    lua_pushstring(L, c.closed_reason().c_str());
    return 2;
  }

  static int l_is_open(lua_State* L) {
    lua_pushboolean(L, client(L).state() == Client::State::Open);
    return 1;
  }

  // Opens the module: its C half is `functions`, with consume and close (and closed and
  // is_open, for a client that says why it closed) added; `add`, when given, puts more into it.
  static int open_module(lua_State* L, const luaL_Reg* functions, std::string_view source, const char* chunk_name,
                         void (*add)(lua_State*) = nullptr) {
    lua_newtable(L);
    luaL_register(L, nullptr, functions);
    set_function(L, "consume", l_consume);
    set_function(L, "close", l_close);
    if constexpr (requires(const Client& c) { c.closed_reason(); }) {
      set_function(L, "closed", l_closed);
      set_function(L, "is_open", l_is_open);
    }
    if (add != nullptr) add(L);
    return stream_client::open_module(L, source, chunk_name);
  }

 private:
  static void set_function(lua_State* L, const char* name, lua_CFunction f) {
    lua_pushcfunction(L, f);
    lua_setfield(L, -2, name);
  }

  static int push(lua_State* L, const Message* m) {
    if (m == nullptr) {
      lua_pushnil(L);
      return 1;
    }
    lua_createtable(L, 0, Protocol::kFields);
    lua_pushnumber(L, static_cast<double>(m->seq));  // the Lua half's cursor
    lua_setfield(L, -2, "seq");
    Protocol::set_fields(L, *m);
    return 1;
  }
};

}  // namespace stampede::scenario::stream_client
