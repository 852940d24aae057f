// `stampede`: checks, custom metrics, sleep, clock and environment.
#include <boost/asio/steady_timer.hpp>
#include <cmath>
#include <cstdlib>
#include <lua.hpp>
#include <string>

#include "proto/duration.hpp"
#include "scenario/lua_modules.hpp"
#include "scenario/module_lua.hpp"
#include "scenario/scenario_runtime.hpp"

namespace stampede::scenario {

namespace {

metrics::MetricSink& sink(lua_State* L) { return runtime_of(L)->context().sink; }

metrics::MetricId metric_id(lua_State* L, int name_index, metrics::Kind kind) {
  size_t n = 0;
  const char* name = luaL_checklstring(L, name_index, &n);
  std::string error;
  try {
    return sink(L).id(std::string_view(name, n), kind);
  } catch (const std::exception& e) {
    error = e.what();  // raised below, outside the handler
  }
  luaL_error(L, "%s", error.c_str());
  return 0;
}

int l_check(lua_State* L) {
  const metrics::MetricId id = metric_id(L, 1, metrics::Kind::Check);
  const bool ok = lua_toboolean(L, 2) != 0;
  sink(L).check(id, ok);
  lua_pushboolean(L, ok);
  return 1;
}

int l_record(lua_State* L) {
  const metrics::MetricId id = metric_id(L, 1, metrics::Kind::Timing);
  // A negative or NaN time would be recorded as 0 ns, silently.
  std::string error;
  const auto d = proto::duration_from_ms(luaL_checknumber(L, 2), &error);
  if (!d) return luaL_error(L, "stampede.record: %s", error.c_str());
  sink(L).record(id, *d);
  return 0;
}

int l_record_ns(lua_State* L) {
  const metrics::MetricId id = metric_id(L, 1, metrics::Kind::Timing);
  sink(L).record(id, static_cast<Nanos>(luaL_checknumber(L, 2)));
  return 0;
}

int l_increment(lua_State* L) {
  const metrics::MetricId id = metric_id(L, 1, metrics::Kind::Counter);
  const double n = luaL_optnumber(L, 2, 1);
  // A counter counts whole things: 1.5 used to count 1 without a word.
  if (!(n >= 0) || n != std::floor(n) || n > 9.0e15)
    return luaL_error(L, "stampede.increment: the amount is a whole number, 0 or more, not %s",
                      lua_tostring(L, 2));
  sink(L).add(id, static_cast<std::uint64_t>(n));
  return 0;
}

void wake_from_sleep(void* arg) {
  Vu& vu = *static_cast<Vu*>(arg);
  if (vu.thread == nullptr) return;
  runtime_of(vu.thread)->resume(vu, vu.epoch, [](lua_State*) { return 0; });
}

int l_sleep(lua_State* L) {
  if (lua_isnoneornil(L, 1)) return luaL_error(L, "stampede.sleep: expected a duration, such as 500 (ms) or \"2s\"");
  const Nanos d = duration_arg(L, 1, "stampede.sleep", 0);
  ScenarioRuntime* rt = runtime_of(L);
  Vu& vu = require_vu(L, "stampede.sleep");
  // The timer is the VU's own: interrupting the VU or destroying it cancels it, so when it
  // fires the VU is still sleeping in this call (its runtime is the one of its coroutine).
  // Never fires inside this call, even for 0: the coroutine yields first.
  rt->context().timers().schedule_after(vu.timer, d, &wake_from_sleep, &vu);
  return lua_yield(L, 0);
}

int l_now(lua_State* L) {
  ScenarioRuntime* rt = runtime_of(L);
  const Nanos t = rt->context().clock.now() - rt->env().run_start;
  lua_pushnumber(L, static_cast<double>(t) / kMilli);
  return 1;
}

int l_now_ns(lua_State* L) {
  lua_pushnumber(L, static_cast<double>(runtime_of(L)->context().clock.now()));
  return 1;
}

int l_env(lua_State* L) {
  const char* value = std::getenv(luaL_checkstring(L, 1));
  if (value != nullptr) {
    lua_pushstring(L, value);
  } else {
    lua_settop(L, 2);  // the default, or nil
  }
  return 1;
}

// measure() is Lua so that the measured function may yield (make requests) freely.

}  // namespace

int open_stampede_module(lua_State* L) {
  const luaL_Reg functions[] = {{"check", l_check},         {"record", l_record}, {"increment", l_increment},
                                {"sleep", l_sleep},         {"now", l_now},       {"env", l_env},
                                {"_now_ns", l_now_ns},      {"_record_ns", l_record_ns},
                                {nullptr, nullptr}};
  return open_module(L, functions, module_lua::stampede_lua, "=stampede");
}

}  // namespace stampede::scenario
