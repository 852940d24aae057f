// The Lua halves of the scenario modules (src/scenario/lua/), run in LuaJIT with a stand-in for
// their C half: what each method hands to C, and which error objects (kind, message, extras,
// the line they point at) failures become. The C halves and the clients under them are tested
// over real sockets in tests/integration (test_liveview.py, test_channels*.py, test_sse.py,
// test_graphql_ws.py, test_socketio.py).
#include "scenario/module_lua.hpp"

#include <gtest/gtest.h>

#include <lua.hpp>
#include <string>

#include "scenario/lua_modules.hpp"
#include "scenario/stream_client_bindings.hpp"

namespace stampede::scenario {
namespace {

// A Lua state with stampede.error and stampede.json as the runtime has them, and a `stampede`
// whose now() reads the global `clock` (ms), which the stand-ins advance.
class ModuleLua : public ::testing::Test {
 protected:
  void SetUp() override {
    L = luaL_newstate();
    luaL_openlibs(L);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, open_error_module);
    lua_setfield(L, -2, "stampede.error");
    lua_pushcfunction(L, open_json_module);
    lua_setfield(L, -2, "stampede.json");
    lua_pop(L, 2);
    ASSERT_EQ(luaL_dostring(L, R"lua(
      clock = 0
      package.preload["stampede"] = function() return { now = function() return clock end } end
    )lua"), 0);
  }
  void TearDown() override { lua_close(L); }

  // Runs the module `source` with the stand-in `c` that `stand_in` (Lua code) returns and with
  // the streaming clients' shared half (stream_client.lua) on that `c`, as
  // stream_client::open_module does, and stores the module in the global `name`.
  void load(std::string_view source, const char* chunk_name, const char* stand_in, const char* name) {
    ASSERT_EQ(luaL_dostring(L, stand_in), 0) << lua_tostring(L, -1);
    lua_pushvalue(L, -1);
    lua_setglobal(L, "c");
    lua_pushvalue(L, -1);
    run_module_lua(L, module_lua::stream_client_lua, "=stampede.stream_client");
    run_module_lua(L, source, chunk_name, 2);
    lua_setglobal(L, name);
  }

  // Runs `code` (a chunk named "=scenario.lua", as the user's file would be); returns what it
  // returns as a string, or "error: " and the error's text.
  std::string run(const char* code) {
    if (luaL_loadbuffer(L, code, std::char_traits<char>::length(code), "=scenario.lua") != 0 ||
        lua_pcall(L, 0, 1, 0) != 0) {
      std::string error = std::string("error: ") + lua_tostring(L, -1);
      lua_pop(L, 1);
      return error;
    }
    std::string out = lua_isnil(L, -1) ? "nil" : luaL_checkstring(L, -1);
    lua_pop(L, 1);
    return out;
  }

  lua_State* L = nullptr;
};

TEST_F(ModuleLua, EveryModuleIsLuaThatLuaJitCompiles) {
  for (const std::string_view source : {module_lua::stampede_lua, module_lua::http_lua, module_lua::error_lua,
                                        module_lua::websocket_lua, module_lua::channels_lua, module_lua::liveview_lua,
                                        module_lua::sse_lua, module_lua::graphql_ws_lua, module_lua::socketio_lua,
                                        module_lua::stream_client_lua}) {
    EXPECT_EQ(luaL_loadbuffer(L, source.data(), source.size(), "=module"), 0) << lua_tostring(L, -1);
    lua_pop(L, 1);
  }
}

// ---- stampede.liveview -----------------------------------------------------------------------

// c.event/c.form record their arguments and answer with the next outcome of `outcomes`;
// c.next hands out `pushes` in order (advancing the clock by `step` per call).
constexpr const char* kLiveViewStandIn = R"lua(
  local c = { calls = {}, outcomes = {}, pushes = {}, consumed = {}, step = 0 }
  local function answer(...) c.calls[#c.calls + 1] = { ... }; return table.remove(c.outcomes, 1) end
  c.connect = function(url, opts) return "handle" end
  c.event = answer
  c.form = answer
  c.navigate = answer
  c.load = answer
  c.next = function(h, after, remaining)
    clock = clock + c.step
    for _, p in ipairs(c.pushes) do if p.seq > after then return p end end
    clock = clock + (remaining or 0)
    return nil
  end
  c.consume = function(h, seq) c.consumed[#c.consumed + 1] = seq end
  c.state = function(h) return c.state_outcome or { ok = true } end
  return c
)lua";

class LiveViewLua : public ModuleLua {
 protected:
  void SetUp() override {
    ModuleLua::SetUp();
    load(module_lua::liveview_lua, "=stampede.liveview", kLiveViewStandIn, "liveview");
    ASSERT_EQ(run("view = liveview.connect('http://h/') return 'ok'"), "ok");
  }
};

TEST_F(LiveViewLua, AnOkOutcomeIsItsReply) {
  EXPECT_EQ(run(R"lua(
    c.outcomes = { { ok = true, reply = { n = 1 } } }
    local reply = view:click("inc", { step = 2 }, { target = 3 })
    local call = c.calls[1]
    return table.concat({ call[2], call[3], call[4].step, call[5].target, reply.n }, " ")
  )lua"),
            "click inc 2 3 1");
}

TEST_F(LiveViewLua, AFailedOutcomeIsAnErrorObjectAtTheCallersLine) {
  EXPECT_EQ(run(R"lua(
    c.outcomes = { { ok = false, kind = "event_error", message = "no handler", reason = "",
                     response = { error = "x" }, status = 500 } }
    local ok, err = pcall(function()
      view:click("inc")  -- line 5 of the chunk
    end)
    assert(not ok)
    return table.concat({ err.kind, err.message, err.response.error, tostring(err.reason), err.status,
                          tostring(err):match("^[^:]*") }, "|")
  )lua"),
            "event_error|liveview: no handler|x|nil|500|liveview");
  // The error points at the scenario's line, not the module's.
  EXPECT_EQ(run(R"lua(
    c.outcomes = { { ok = false, kind = "timeout", message = "late", reason = "" } }
    local ok, err = pcall(function() view:submit("save", { a = 1 }) end)
    return tostring(ok) .. " " .. tostring(err.kind)
  )lua"),
            "false timeout");
}

TEST_F(LiveViewLua, RedirectsCarryTheirNavigationAndFollowGoesThere) {
  EXPECT_EQ(run(R"lua(
    local nav = { to = "/posts/2", kind = "push", flash = "f" }
    c.outcomes = { { ok = false, kind = "live_redirect", message = "to /posts/2", reason = "", to = "/posts/2",
                     navigation = nav },
                   { ok = true } }
    local ok, err = pcall(view.click, view, "go")
    assert(err.live_redirect == nav and err.to == "/posts/2")
    view:follow(err)
    local call = c.calls[2]
    return call[2] .. " " .. call[3]
  )lua"),
            "/posts/2 f");
  EXPECT_NE(run("view:follow('nope')").find("must be a live_redirect or redirect error"), std::string::npos);
}

TEST_F(LiveViewLua, FormValuesGoToCAsGiven) {
  // Flattening into post[title] is C++'s (proto::nested_form_fields), not this module's.
  EXPECT_EQ(run(R"lua(
    c.outcomes = { { ok = true }, { ok = true } }
    local values = { post = { title = "Hi" } }
    view:change("validate", values)
    view:submit("save", "a=1&b=2")
    return tostring(c.calls[1][2] == "change" and c.calls[1][4] == values) .. " " .. c.calls[2][2] .. " " .. c.calls[2][4]
  )lua"),
            "true submit a=1&b=2");
}

TEST_F(LiveViewLua, AwaitSkipsWhatDoesNotMatchAndConsumesWhatDoes) {
  EXPECT_EQ(run(R"lua(
    c.pushes = { { seq = 1, kind = "diff", payload = {} },
                 { seq = 2, kind = "event", event = "other", payload = {} },
                 { seq = 3, kind = "event", event = "saved", payload = { id = 7 } } }
    local payload, msg = view:await({ event = "saved", match = function(p) return p.id == 7 end })
    return payload.id .. " " .. msg.seq .. " " .. table.concat(c.consumed, ",")
  )lua"),
            "7 3 3");
}

TEST_F(LiveViewLua, AwaitTimesOutOnItsDeadlineOrSaysWhyTheViewLeft) {
  EXPECT_EQ(run(R"lua(
    c.step = 40
    c.pushes = { { seq = 1, kind = "diff", payload = {} } }
    local t0 = clock
    local ok, err = pcall(view.await, view, { event = "never", timeout = 100 })
    return err.kind .. " " .. tostring(clock - t0 >= 100) .. " " .. err.message
  )lua"),
            "timeout true liveview: view:await never: nothing matching arrived in time");
  EXPECT_EQ(run(R"lua(
    c.pushes = {}
    c.state_outcome = { ok = false, kind = "view_crashed", message = "the view crashed", reason = "" }
    local ok, err = pcall(view.await, view, {})
    return err.kind
  )lua"),
            "view_crashed");
}

// ---- stampede.channels: Absinthe -------------------------------------------------------------

// Replies are (ok, status, response, failure, message, raw[, subscription id]); c.absinthe_next
// hands out `data` in order and is empty after (waiting out what remains).
constexpr const char* kChannelsStandIn = R"lua(
  local c = { calls = {}, data = {}, consumed = {}, open = true, ABSINTHE_CONTROL = "__absinthe__:control" }
  c.connect = function() return "handle" end
  c.duration_ms = function(value, what)
    if type(value) == "number" then return value end
    if value == "5s" then return 5000 end
    error(what .. ": expected a duration, got \"" .. tostring(value) .. "\"")
  end
  c.absinthe_join = function(h, timeout) c.calls[#c.calls + 1] = { "join", timeout }; return true, "ok", {}, "", "", "{}" end
  c.absinthe_doc = function(h, query, variables, timeout)
    c.calls[#c.calls + 1] = { "doc", query, variables, timeout }
    if query == "refused" then return false, "error", { errors = {} }, "", "", '{"errors":[]}' end
    if query:find("subscription", 1, true) then return true, "ok", { subscriptionId = "sub:1" }, "", "", "", "sub:1" end
    return true, "ok", { data = { n = 1 } }, "", "", ""
  end
  c.absinthe_unsubscribe = function(h, id, timeout)
    c.calls[#c.calls + 1] = { "unsubscribe", id }
    return true, "ok", { subscriptionId = id }, "", "", ""
  end
  c.absinthe_next = function(h, id, after, remaining)
    for _, d in ipairs(c.data) do if d.seq > after then clock = clock + 10; return d end end
    clock = clock + math.max(remaining, 0)
    return nil
  end
  c.consume = function(h, seq) c.consumed[#c.consumed + 1] = seq end
  c.is_open = function() return c.open end
  return c
)lua";

class ChannelsLua : public ModuleLua {
 protected:
  void SetUp() override {
    ModuleLua::SetUp();
    load(module_lua::channels_lua, "=stampede.channels", kChannelsStandIn, "channels");
    ASSERT_EQ(run("socket = channels.connect('http://h/socket') absinthe = channels.absinthe(socket) return 'ok'"), "ok");
  }
};

TEST_F(ChannelsLua, SubscribeHandsQueryAndVariablesToCAndReturnsTheId) {
  EXPECT_EQ(run(R"lua(
    local id = absinthe:subscribe("subscription { a }", { x = 1 }, { timeout = "5s" })
    local doc = c.calls[2]
    return table.concat({ c.calls[1][1], id, doc[2], doc[3].x, doc[4] }, " ")
  )lua"),
            "join sub:1 subscription { a } 1 5000");
  EXPECT_EQ(run("return absinthe:run('{ n }').data.n"), "1");
}

TEST_F(ChannelsLua, ADocThatStartsNoSubscriptionOrIsRefusedIsAnError) {
  EXPECT_EQ(run(R"lua(
    local ok, err = pcall(absinthe.subscribe, absinthe, "{ n }")
    return err.kind .. " " .. err.message
  )lua"),
            R"(subscription_error absinthe doc did not start a subscription: {"data":{"n":1}})");
  EXPECT_EQ(run(R"lua(
    local ok, err = pcall(absinthe.subscribe, absinthe, "refused")
    return err.kind .. " " .. err.message
  )lua"),
            R"(push_error channel.push __absinthe__:control doc replied error: {"errors":[]})");
}

TEST_F(ChannelsLua, AwaitReturnsTheResultOfTheFirstDataThatMatches) {
  EXPECT_EQ(run(R"lua(
    c.data = { { seq = 4, result = { data = { n = 1 } }, payload = { subscriptionId = "sub:1" } },
               { seq = 6, result = { data = { n = 2 } }, payload = { subscriptionId = "sub:1" } } }
    local result, payload = absinthe:await("sub:1", { match = function(r, p) return r.data.n == 2 end })
    return result.data.n .. " " .. payload.subscriptionId .. " " .. table.concat(c.consumed, ",")
  )lua"),
            "2 sub:1 6");
}

TEST_F(ChannelsLua, AwaitHasOneDeadlineAndBadTimeoutsPointAtTheScenario) {
  EXPECT_EQ(run(R"lua(
    c.data = { { seq = 1, result = {}, payload = {} } }
    local t0 = clock
    local ok, err = pcall(absinthe.await, absinthe, "sub:1", { timeout = 100, match = function() return false end })
    return err.kind .. " " .. tostring(clock - t0 >= 100) .. " " .. err.message
  )lua"),
            "timeout true absinthe:await sub:1: nothing matching arrived in time");
  EXPECT_EQ(run(R"lua(
    c.data = {}
    c.open = false
    local ok, err = pcall(absinthe.await, absinthe, "sub:1", { timeout = 0 })
    return err.kind
  )lua"),
            "closed");
  const std::string bad = run("absinthe:await('sub:1', { timeout = 'soon' })");
  EXPECT_NE(bad.find("scenario.lua:1:"), std::string::npos) << bad;
  EXPECT_NE(bad.find("absinthe:await timeout"), std::string::npos) << bad;
}

TEST_F(ChannelsLua, UnsubscribeNamesTheId) {
  EXPECT_EQ(run("return absinthe:unsubscribe('sub:1').subscriptionId .. ' ' .. c.calls[#c.calls][1]"),
            "sub:1 unsubscribe");
}

// ---- stream_client.lua: what the streaming clients' Lua halves share -------------------------

// c.duration_ms reads numbers and "5s"; c.consume records "handle:seq". `messages(list)` is a
// `next` over `list` that advances the clock by `step` per message it hands out and, when none
// is left after `after`, waits out what remains (recording each remaining it was given). The
// two awaits are the ways a module reaches stream.await: by a tail call from the user's method,
// and by a call its method goes on from (level 3). Defined here, not in scenario.lua, so that an
// error pointing at scenario.lua points at the user's line.
constexpr const char* kStreamStandIn = R"lua(
  local c = { consumed = {}, remaining = {}, step = 10 }
  c.duration_ms = function(value, what)
    if type(value) == "number" then return value end
    if value == "5s" then return 5000 end
    error(what .. ": expected a duration, got \"" .. tostring(value) .. "\"")
  end
  c.consume = function(h, seq) c.consumed[#c.consumed + 1] = h .. ":" .. seq end
  function messages(list)
    return function(after, remaining)
      c.remaining[#c.remaining + 1] = remaining
      for _, m in ipairs(list) do if m.seq > after then clock = clock + c.step; return m end end
      clock = clock + math.max(remaining, 0)
      return nil
    end
  end
  local function timed_out() return "timeout", "x:await: nothing matching arrived in time" end
  function tail_await(opts)
    return stream.await("h", { what = "x:await", timeout = opts.timeout, next = messages({}), ended = timed_out })
  end
  function called_await(opts)
    local result = stream.await("h", { what = "x:query", timeout = opts.timeout, level = 3, next = messages({}),
                                       ended = timed_out })
    return result
  end
  return c
)lua";

class StreamClientLua : public ModuleLua {
 protected:
  void SetUp() override {
    ModuleLua::SetUp();
    ASSERT_EQ(luaL_dostring(L, kStreamStandIn), 0) << lua_tostring(L, -1);
    lua_pushvalue(L, -1);
    lua_setglobal(L, "c");
    run_module_lua(L, module_lua::stream_client_lua, "=stampede.stream_client");
    lua_setglobal(L, "stream");
  }
};

TEST_F(StreamClientLua, DurationsGoThroughCAndABadOneIsAnErrorAtTheCallersLine) {
  EXPECT_EQ(run(R"lua(
    return tostring(stream.duration_ms(nil, "x", 1)) .. " " .. stream.duration_ms("5s", "x", 1) .. " " ..
      stream.duration_ms(250, "x", 1)
  )lua"),
            "nil 5000 250");
  const std::string bad = run("stream.duration_ms('soon', 'socket:await timeout', 1)");
  EXPECT_EQ(bad.rfind("error: scenario.lua:1: ", 0), 0u) << bad;
  EXPECT_NE(bad.find("socket:await timeout: expected a duration"), std::string::npos) << bad;
}

TEST_F(StreamClientLua, ConnectedHandsBackWhatCameWithTheHandleOrRaisesAConnectError) {
  EXPECT_EQ(run(R"lua(
    local h, ack = stream.connected("graphql_ws.connect", "handle", { n = 1 })
    return h .. " " .. ack.n
  )lua"),
            "handle 1");
  EXPECT_EQ(run(R"lua(
    local ok, err = pcall(stream.connected, "sse.connect", nil, "http://h/: connection refused", "refused", 0)
    return table.concat({ err.kind, err.message, err.reason, err.status }, "|")
  )lua"),
            "connect_error|sse.connect http://h/: connection refused|refused|0");
}

TEST_F(StreamClientLua, AwaitTakesTheFirstMatchConsumesItAndLeavesTheRest) {
  EXPECT_EQ(run(R"lua(
    local asked = {}
    local msg = stream.await("h", {
      what = "x:await",
      next = messages({ { seq = 1, n = 1 }, { seq = 2, n = 2 }, { seq = 3, n = 3 } }),
      ended = function() error("nothing") end,
      match = function(m) asked[#asked + 1] = m.n; return m.n == 2 end,
    })
    return table.concat(asked, ",") .. " " .. msg.n .. " " .. tostring(msg.seq) .. " " .. table.concat(c.consumed, ",")
  )lua"),
            "1,2 2 nil h:2");
}

TEST_F(StreamClientLua, MatchIsAskedAboutWhatTheAwaitReturns) {
  EXPECT_EQ(run(R"lua(
    local p, m = stream.await("h", {
      what = "x:await",
      next = messages({ { seq = 4, payload = { a = 1 } }, { seq = 6, payload = { a = 2 } } }),
      ended = function() error("nothing") end,
      returns = function(msg) return msg.payload, msg end,
      match = function(payload, msg) return payload.a == 2 and msg.seq == 6 end,
    })
    return p.a .. " " .. tostring(m.seq) .. " " .. table.concat(c.consumed, ",")
  )lua"),
            "2 nil h:6");
}

TEST_F(StreamClientLua, OneDeadlineForTheWholeAwaitThenWhatEndedSays) {
  // A message that does not match spends the time like silence does: next is given what is
  // left of the one deadline (100, then 100 - 40).
  EXPECT_EQ(run(R"lua(
    c.step = 40
    local t0 = clock
    local ok, err = pcall(stream.await, "h", {
      what = "x:await",
      timeout = 100,
      next = messages({ { seq = 1 } }),
      ended = function() return "closed", "x:await: the stream closed (eof)", { reason = "eof" } end,
      match = function() return false end,
    })
    return table.concat({ err.kind, err.message, err.reason, table.concat(c.remaining, ","), clock - t0,
                          #c.consumed }, "|")
  )lua"),
            "closed|x:await: the stream closed (eof)|eof|100,60|100|0");
  EXPECT_EQ(run(R"lua(
    c.remaining = {}
    pcall(stream.await, "h", { what = "x:await", next = messages({}), ended = function() return "timeout", "late" end })
    return c.remaining[1]
  )lua"),
            "10000");
}

TEST_F(StreamClientLua, ARefusedMessageEndsTheAwaitAndStaysKept) {
  EXPECT_EQ(run(R"lua(
    local ok, err = pcall(stream.await, "h", {
      what = "client:await",
      next = messages({ { seq = 1, kind = "error", payload = { e = 1 } } }),
      ended = function() error("nothing") end,
      refuse = function(msg)
        if msg.kind == "error" then return "graphql_error", "client:await 1: an error", msg.payload end
      end,
    })
    return table.concat({ err.kind, err.message, err.response.e, #c.consumed }, "|")
  )lua"),
            "graphql_error|client:await 1: an error|1|0");
}

TEST_F(StreamClientLua, ABadTimeoutPointsAtTheScenariosLineHoweverTheAwaitIsReached) {
  const std::string tail = run("tail_await({ timeout = 'soon' })");
  EXPECT_EQ(tail.rfind("error: scenario.lua:1: ", 0), 0u) << tail;
  EXPECT_NE(tail.find("x:await timeout: expected a duration"), std::string::npos) << tail;
  const std::string called = run("local x = 1\ncalled_await({ timeout = 'soon' })");
  EXPECT_EQ(called.rfind("error: scenario.lua:2: ", 0), 0u) << called;
  EXPECT_NE(called.find("x:query timeout"), std::string::npos) << called;
}

// The C half's part of the shared module: open_module gives `c` the real duration_ms, and hands
// the module's Lua half (c, stream).
TEST_F(ModuleLua, OpenModuleHandsTheLuaHalfItsFunctionsAndTheSharedHalf) {
  const luaL_Reg functions[] = {{"answer", [](lua_State* S) -> int {
                                   lua_pushinteger(S, 42);
                                   return 1;
                                 }},
                                {nullptr, nullptr}};
  lua_newtable(L);
  luaL_register(L, nullptr, functions);
  stream_client::open_module(L, "local c, stream = ... return { c = c, stream = stream }", "=probe");
  lua_setglobal(L, "probe");
  EXPECT_EQ(run(R"lua(
    local c, stream = probe.c, probe.stream
    return table.concat({ c.answer(), stream.duration_ms("2s", "x", 1), stream.duration_ms(1.5, "x", 1) }, " ")
  )lua"),
            "42 2000 1.5");
  const std::string bad = run("probe.stream.duration_ms({}, 'stream:await timeout', 1)");
  EXPECT_EQ(bad, "error: scenario.lua:1: stream:await timeout: expected a duration (milliseconds, or a string such "
                 "as \"500ms\"), got table");
  EXPECT_NE(run("probe.stream.duration_ms('soon', 'stream:await timeout', 1)").find("scenario.lua:1: stream:await timeout: "),
            std::string::npos);
}

// ---- stampede.sse ----------------------------------------------------------------------------

// c.next hands out the kept `events` of the type asked for (recording it), then waits out what
// remains; c.closed says `closed_why` once it is set.
constexpr const char* kSseStandIn = R"lua(
  local c = { consumed = {}, events = {} }
  c.connect = function(url, opts)
    if url:find("refused", 1, true) then return nil, url .. ": connection refused", "refused", 0 end
    return "h"
  end
  c.duration_ms = function(value, what)
    if type(value) == "number" then return value end
    error(what .. ": expected a duration, got \"" .. tostring(value) .. "\"")
  end
  c.next = function(h, event, after, remaining)
    c.asked = event
    for _, e in ipairs(c.events) do
      if e.seq > after and (event == nil or e.event == event) then return e end
    end
    clock = clock + math.max(remaining, 0)
    return nil
  end
  c.consume = function(h, seq) c.consumed[#c.consumed + 1] = seq end
  c.closed = function(h) return c.closed_why ~= nil, c.closed_why or "" end
  return c
)lua";

class SseLua : public ModuleLua {
 protected:
  void SetUp() override {
    ModuleLua::SetUp();
    load(module_lua::sse_lua, "=stampede.sse", kSseStandIn, "sse");
    ASSERT_EQ(run("s = sse.connect('http://h/events') return s.url"), "http://h/events");
  }
};

TEST_F(SseLua, AFailedConnectIsAConnectError) {
  EXPECT_EQ(run(R"lua(
    local ok, err = pcall(sse.connect, "http://refused/")
    return table.concat({ err.kind, err.message, err.reason, err.status }, "|")
  )lua"),
            "connect_error|sse.connect http://refused/: connection refused|refused|0");
}

TEST_F(SseLua, AwaitReturnsTheEventOfTheTypeAskedFor) {
  EXPECT_EQ(run(R"lua(
    c.events = { { seq = 1, event = "tick", data = "a" }, { seq = 2, event = "price", data = "9" },
                 { seq = 3, event = "price", data = "10" } }
    local ev = s:await({ event = "price", match = function(e) return e.data == "10" end })
    return table.concat({ c.asked, ev.data, tostring(ev.seq), table.concat(c.consumed, ",") }, " ")
  )lua"),
            "price 10 nil 3");
}

TEST_F(SseLua, AnAwaitThatGetsNothingTimesOutOrSaysWhyTheStreamClosed) {
  EXPECT_EQ(run(R"lua(
    local ok, err = pcall(s.await, s, { event = "price", timeout = 100 })
    return err.kind .. " " .. err.message
  )lua"),
            "timeout stream:await price: nothing matching arrived in time");
  EXPECT_EQ(run(R"lua(
    c.closed_why = "the server refused: 404"
    local ok, err = pcall(s.await, s, { timeout = 100 })
    return err.kind .. " " .. err.message
  )lua"),
            "closed stream:await: the stream closed (the server refused: 404)");
}

TEST_F(SseLua, BadAwaitOptionsPointAtTheScenario) {
  EXPECT_EQ(run("s:await({ event = 1 })"), "error: scenario.lua:1: stream:await: event must be a string");
  const std::string bad = run("s:await({ timeout = 'soon' })");
  EXPECT_EQ(bad.rfind("error: scenario.lua:1: ", 0), 0u) << bad;
  EXPECT_NE(bad.find("stream:await timeout"), std::string::npos) << bad;
}

// ---- stampede.graphql_ws ---------------------------------------------------------------------

// c.next hands out the kept `messages` of the operation asked for, then waits out what remains;
// c.subscribe numbers operations and fails once the connection is not `open`.
constexpr const char* kGraphqlStandIn = R"lua(
  local c = { consumed = {}, messages = {}, completed = {}, open = true, ids = 0 }
  c.connect = function(url, opts) return "h", { ok = true } end
  c.duration_ms = function(value, what)
    if type(value) == "number" then return value end
    error(what .. ": expected a duration, got \"" .. tostring(value) .. "\"")
  end
  c.subscribe = function(h, query)
    if not c.open then error("the connection is not open", 0) end
    c.ids = c.ids + 1
    return tostring(c.ids)
  end
  c.next = function(h, id, after, remaining)
    for _, m in ipairs(c.messages) do if m.seq > after and m.id == id then return m end end
    clock = clock + math.max(remaining, 0)
    return nil
  end
  c.consume = function(h, seq) c.consumed[#c.consumed + 1] = seq end
  c.complete = function(h, id) c.completed[#c.completed + 1] = id end
  c.closed = function(h) return not c.open, "closed by the server (1000)" end
  c.is_open = function(h) return c.open end
  return c
)lua";

class GraphqlWsLua : public ModuleLua {
 protected:
  void SetUp() override {
    ModuleLua::SetUp();
    load(module_lua::graphql_ws_lua, "=stampede.graphql_ws", kGraphqlStandIn, "gql");
    ASSERT_EQ(run("client = gql.connect('ws://h/graphql') return tostring(client.ack.ok)"), "true");
  }
};

TEST_F(GraphqlWsLua, AQueryAwaitsItsResultAndCompletesTheOperation) {
  EXPECT_EQ(run(R"lua(
    c.messages = { { seq = 1, id = "1", kind = "next", payload = { data = { n = 7 } } } }
    local result = client:query("{ n }")
    return result.data.n .. " " .. table.concat(c.completed, ",") .. " " .. table.concat(c.consumed, ",")
  )lua"),
            "7 1 1");
}

TEST_F(GraphqlWsLua, AnOperationsErrorOrCompleteEndsEveryAwaitOnIt) {
  EXPECT_EQ(run(R"lua(
    c.messages = { { seq = 1, id = "1", kind = "error", payload = { { message = "bad" } } },
                   { seq = 2, id = "2", kind = "complete" } }
    local _, e1 = pcall(client.await, client, "1")
    local _, e2 = pcall(client.await, client, "1")
    local _, e3 = pcall(client.await, client, "2")
    return table.concat({ e1.kind, e1.message, e1.response[1].message, e2.kind, e3.kind, e3.message,
                          #c.consumed }, "|")
  )lua"),
            "graphql_error|client:await 1: the server answered with an error: [{\"message\":\"bad\"}]|bad|"
            "graphql_error|complete|client:await 2: the operation completed|0");
}

TEST_F(GraphqlWsLua, AnAwaitThatGetsNothingTimesOutOrSaysWhyTheConnectionClosed) {
  EXPECT_EQ(run(R"lua(
    local _, err = pcall(client.await, client, "1", { timeout = 100 })
    return err.kind .. " " .. err.message
  )lua"),
            "timeout client:await 1: no result arrived in time");
  EXPECT_EQ(run(R"lua(
    c.open = false
    local _, err = pcall(client.await, client, "1", { timeout = 100 })
    local _, sub = pcall(client.subscribe, client, "{ n }")
    return err.kind .. " " .. err.message .. " | " .. sub.kind .. " " .. sub.message
  )lua"),
            "closed client:await 1: the connection closed (closed by the server (1000)) | "
            "closed client:subscribe: the connection is not open");
}

TEST_F(GraphqlWsLua, ABadTimeoutPointsAtTheScenarioFromAwaitAndFromQuery) {
  const std::string await = run("client:await('1', { timeout = 'soon' })");
  EXPECT_EQ(await.rfind("error: scenario.lua:1: ", 0), 0u) << await;
  EXPECT_NE(await.find("client:await timeout"), std::string::npos) << await;
  const std::string query = run("local x = 1\nclient:query('{ n }', { timeout = 'soon' })");
  EXPECT_EQ(query.rfind("error: scenario.lua:2: ", 0), 0u) << query;
  EXPECT_NE(query.find("client:query timeout"), std::string::npos) << query;
}

// ---- stampede.socketio -----------------------------------------------------------------------

// c.next hands out the kept `events` of the namespace and event asked for, then waits out what
// remains; c.disconnect_reason says `reasons[namespace]`.
constexpr const char* kSocketIoStandIn = R"lua(
  local c = { consumed = {}, events = {}, reasons = {}, Binary = {} }
  c.connect = function(url, opts, nsp) c.opened = url .. " " .. nsp; return "h", "sid1" end
  c.duration_ms = function(value, what)
    if type(value) == "number" then return value end
    error(what .. ": expected a duration, got \"" .. tostring(value) .. "\"")
  end
  c.next = function(h, nsp, event, after, remaining)
    for _, e in ipairs(c.events) do
      if e.seq > after and e.namespace == nsp and (event == nil or e.event == event) then return e end
    end
    clock = clock + math.max(remaining, 0)
    return nil
  end
  c.consume = function(h, seq) c.consumed[#c.consumed + 1] = seq end
  c.disconnect_reason = function(h, nsp) return c.reasons[nsp] end
  return c
)lua";

class SocketIoLua : public ModuleLua {
 protected:
  void SetUp() override {
    ModuleLua::SetUp();
    load(module_lua::socketio_lua, "=stampede.socketio", kSocketIoStandIn, "sio");
    ASSERT_EQ(run("io = sio.connect('http://h:4000/chat?x=1') return io.namespace .. ' ' .. io.id .. ' ' .. c.opened"),
              "/chat sid1 http://h:4000 /chat");
  }
};

TEST_F(SocketIoLua, AwaitReturnsTheFirstArgumentAndTheMessage) {
  EXPECT_EQ(run(R"lua(
    c.events = { { seq = 1, namespace = "/", event = "msg", args = { "elsewhere" } },
                 { seq = 2, namespace = "/chat", event = "msg", args = { "a" } },
                 { seq = 3, namespace = "/chat", event = "msg", args = { "b", 2 } } }
    local first, msg = io:await("msg", { match = function(a, m) return a == "b" and m.args[2] == 2 end })
    return table.concat({ first, msg.event, tostring(msg.seq), table.concat(c.consumed, ",") }, " ")
  )lua"),
            "b msg nil 3");
}

TEST_F(SocketIoLua, AnAwaitThatGetsNothingTimesOutOrSaysWhyTheNamespaceDisconnected) {
  EXPECT_EQ(run(R"lua(
    local _, err = pcall(io.await, io, nil, { timeout = 100 })
    return err.kind .. " " .. err.message
  )lua"),
            "timeout socket:await *: nothing matching arrived in time");
  EXPECT_EQ(run(R"lua(
    c.reasons["/chat"] = "io server disconnect"
    local _, err = pcall(io.await, io, "msg", { timeout = 100 })
    return table.concat({ err.kind, err.message, err.reason }, "|")
  )lua"),
            "closed|socket:await msg: disconnected (io server disconnect)|io server disconnect");
}

}  // namespace
}  // namespace stampede::scenario
