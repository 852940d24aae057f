// The Lua halves of the scenario modules (src/scenario/lua/), run in LuaJIT with a stand-in for
// their C half: what each method hands to C, and which error objects (kind, message, extras,
// the line they point at) failures become. The C halves and the clients under them are tested
// over real sockets in tests/integration (test_liveview.py, test_channels*.py).
#include "scenario/module_lua.hpp"

#include <gtest/gtest.h>

#include <lua.hpp>
#include <string>

#include "scenario/lua_modules.hpp"

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

  // Runs the module `source` with the stand-in `c` that `stand_in` (Lua code) returns, and
  // stores the module in the global `name`.
  void load(std::string_view source, const char* chunk_name, const char* stand_in, const char* name) {
    ASSERT_EQ(luaL_dostring(L, stand_in), 0) << lua_tostring(L, -1);
    lua_pushvalue(L, -1);
    lua_setglobal(L, "c");
    run_module_lua(L, source, chunk_name);
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
                                        module_lua::sse_lua, module_lua::graphql_ws_lua, module_lua::socketio_lua}) {
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

}  // namespace
}  // namespace stampede::scenario
