#include "scenario/scenario_runtime.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <lua.hpp>

#include "scenario/lua_json.hpp"
#include "scenario/lua_modules.hpp"
#include "scenario/lua_prelude.hpp"
#include "scenario/scenario_error.hpp"

namespace stampede::scenario {

namespace {
int done_marker;  // its address tags the yield that ends an iteration
int runtime_key;  // registry key of the ScenarioRuntime*

std::string pop_message(lua_State* L) {
  std::string msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : std::string("(error object is not a string)");
  lua_pop(L, 1);
  return msg;
}

std::string scenario_name_from_path(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

// Every C function Lua calls runs through this (LUAJIT_MODE_WRAPCFUNC). A C++ exception out
// of one (a client whose fixed row, such as ws.connect, the scenario had made another kind
// of metric with stampede.*) reached the scenario as "C++ exception", with no line; now it
// is a Lua error with its message, at the scenario's line. Lua errors are no std::exception
// and pass through; a yield is a plain return (-1) in LuaJIT and passes through too.
int lua_errors_from_exceptions(lua_State* L, lua_CFunction f) {
  try {
    return f(L);
  } catch (const std::exception& e) {
    lua_pushstring(L, e.what());
  }
  return lua_error(L);
}
}  // namespace

ScenarioRuntime::ScenarioRuntime(clients::ClientContext& ctx, RuntimeEnv env) : ctx_(ctx), env_(std::move(env)) {
  L_ = luaL_newstate();
  if (L_ == nullptr) throw ScenarioError("cannot create a Lua state (out of memory)");
  luaL_openlibs(L_);
  lua_pushlightuserdata(L_, reinterpret_cast<void*>(&lua_errors_from_exceptions));
  luaJIT_setmode(L_, -1, LUAJIT_MODE_WRAPCFUNC | LUAJIT_MODE_ON);
  lua_pop(L_, 1);
  lua_pushlightuserdata(L_, &runtime_key);
  lua_pushlightuserdata(L_, this);
  lua_rawset(L_, LUA_REGISTRYINDEX);
  try {
    load_scenario();
  } catch (...) {
    lua_close(L_);
    throw;
  }
}

ScenarioRuntime::~ScenarioRuntime() {
  // Sessions and timers first: they hold sockets on the worker's io_context. Sessions are
  // made with OnDestroy::discard, so nothing queued calls back into the freed VUs.
  vus_.clear();
  lifecycle_vu_.reset();
  lua_close(L_);
}

namespace {

// A key the engine does not read is a mistake, not a comment: `thresholds` written beside
// `options` instead of inside it would otherwise leave a CI gate that never fails.
void check_top_level_keys(lua_State* L, int table, const std::string& path) {
  static constexpr const char* kKeys[] = {"name", "options", "setup", "run", "teardown"};
  lua_pushnil(L);
  while (lua_next(L, table) != 0) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) {
      lua_pop(L, 1);
      throw ScenarioError(fmt::format("{}: the returned table has an unnamed entry: expected only name, options, "
                                      "setup, run and teardown",
                                      path));
    }
    const std::string key = lua_tostring(L, -1);
    if (std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys)) continue;
    lua_pop(L, 1);
    const auto& options = option_keys();
    if (std::find(options.begin(), options.end(), key) != options.end()) {
      throw ScenarioError(fmt::format("{}: \"{}\" is an option: put it inside options = {{ {} = ... }}", path, key,
                                      key));
    }
    throw ScenarioError(fmt::format("{}: unknown key \"{}\" in the returned table: expected name, options, setup, "
                                    "run or teardown",
                                    path, key));
  }
}

}  // namespace

void ScenarioRuntime::load_scenario() {
  const std::string& path = env_.scenario_path;
  // User modules next to the scenario file come first on the search path.
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const std::string base = dir.empty() ? std::string(".") : dir;
  lua_getglobal(L_, "package");
  lua_getfield(L_, -1, "path");
  const std::string old_path = lua_tostring(L_, -1);
  lua_pop(L_, 1);
  lua_pushstring(L_, fmt::format("{0}/?.lua;{0}/?/init.lua;{1}", base, old_path).c_str());
  lua_setfield(L_, -2, "path");
  lua_pop(L_, 1);

  register_modules(L_, this);

  // The VU loop, the lifecycle runner and the error handler.
  if (luaL_loadbuffer(L_, kVuLoopLua, std::char_traits<char>::length(kVuLoopLua), "=stampede.vu") != 0)
    throw ScenarioError("internal: " + pop_message(L_));
  lua_pushlightuserdata(L_, &done_marker);
  if (lua_pcall(L_, 1, 3, 0) != 0) throw ScenarioError("internal: " + pop_message(L_));
  lua_pop(L_, 1);  // handler (kept inside the closures)
  lifecycle_main_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  vu_main_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);

  if (luaL_loadfile(L_, path.c_str()) != 0) {
    std::string msg = pop_message(L_);
    if (msg.find("cannot open") != std::string::npos) msg = fmt::format("{}: cannot open the scenario file", path);
    throw ScenarioError(msg);
  }
  // Run the chunk with the same handler as iterations, for file:line in top-level errors.
  if (lua_pcall(L_, 0, 1, 0) != 0) throw ScenarioError(pop_message(L_));
  if (!lua_istable(L_, -1)) {
    throw ScenarioError(fmt::format(
        "{}: the scenario must return a table with a run function, as in: return {{ run = function(vu) ... end }}",
        path));
  }
  lua_getfield(L_, -1, "run");
  if (!lua_isfunction(L_, -1)) {
    throw ScenarioError(fmt::format("{}: the returned table has no run function (run = function(vu) ... end)", path));
  }
  lua_pop(L_, 1);
  for (const char* optional_fn : {"setup", "teardown"}) {
    lua_getfield(L_, -1, optional_fn);
    if (!lua_isnil(L_, -1) && !lua_isfunction(L_, -1))
      throw ScenarioError(fmt::format("{}: {} must be a function", path, optional_fn));
    lua_pop(L_, 1);
  }
  check_top_level_keys(L_, lua_gettop(L_), path);
  lua_getfield(L_, -1, "name");
  name_ = lua_type(L_, -1) == LUA_TSTRING ? lua_tostring(L_, -1) : scenario_name_from_path(path);
  lua_pop(L_, 1);
  // options.http2, every request's default: read where each worker loads the scenario
  // (read_options checked it before the run).
  lua_getfield(L_, -1, "options");
  if (lua_istable(L_, -1)) {
    lua_getfield(L_, -1, "http2");
    http2_default_ = lua_toboolean(L_, -1) != 0;
    lua_pop(L_, 1);
  }
  lua_pop(L_, 1);
  scenario_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);

  // vu.data: setup()'s result, decoded once per worker and shared by its VUs.
  if (!env_.setup_data_json.empty()) {
    boost::system::error_code ec;
    auto value = boost::json::parse(env_.setup_data_json, ec);
    if (ec) throw ScenarioError("internal: setup data is not JSON: " + ec.message());
    push_json(L_, value);
    data_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  }
}

ScenarioOptions ScenarioRuntime::options(const std::string& where) const {
  lua_rawgeti(L_, LUA_REGISTRYINDEX, scenario_ref_);
  lua_getfield(L_, -1, "options");
  ScenarioOptions o;
  try {
    o = read_options(L_, lua_gettop(L_), where);
  } catch (...) {
    lua_pop(L_, 2);
    throw;
  }
  lua_pop(L_, 2);
  return o;
}

bool ScenarioRuntime::has_function(const char* field) const {
  lua_rawgeti(L_, LUA_REGISTRYINDEX, scenario_ref_);
  lua_getfield(L_, -1, field);
  const bool yes = lua_isfunction(L_, -1);
  lua_pop(L_, 2);
  return yes;
}

Vu& ScenarioRuntime::create_vu(int id) {
  auto vu = std::make_unique<Vu>(*this);
  vu->id = id;
  lua_createtable(L_, 0, 4);
  lua_pushinteger(L_, id);
  lua_setfield(L_, -2, "id");
  lua_pushinteger(L_, 0);
  lua_setfield(L_, -2, "iteration");
  if (data_ref_ != LUA_NOREF) {
    lua_rawgeti(L_, LUA_REGISTRYINDEX, data_ref_);
    lua_setfield(L_, -2, "data");
  }
  vu->table_ref = luaL_ref(L_, LUA_REGISTRYINDEX);
  vus_.push_back(std::move(vu));
  return *vus_.back();
}

void ScenarioRuntime::make_thread(Vu& vu) {
  vu.thread = lua_newthread(L_);
  vu.thread_ref = luaL_ref(L_, LUA_REGISTRYINDEX);
  by_thread_[vu.thread] = &vu;
}

void ScenarioRuntime::start_iteration(Vu& vu, std::function<void(Vu&, const IterationOutcome&)> on_done) {
  vu.on_done = std::move(on_done);
  vu.running = true;
  vu.local_resource_exhausted = false;
  if (vu.thread == nullptr) make_thread(vu);
  lua_State* co = vu.thread;
  lua_rawgeti(L_, LUA_REGISTRYINDEX, vu.table_ref);
  lua_pushinteger(L_, static_cast<lua_Integer>(vu.iteration));
  lua_setfield(L_, -2, "iteration");
  int nargs = 0;
  if (lua_status(co) == 0 && lua_gettop(co) == 0) {
    // A fresh coroutine: start the loop with (run, vu).
    lua_rawgeti(co, LUA_REGISTRYINDEX, vu_main_ref_);
    lua_rawgeti(co, LUA_REGISTRYINDEX, scenario_ref_);
    lua_getfield(co, -1, "run");
    lua_remove(co, -2);
    lua_xmove(L_, co, 1);
    nargs = 2;
  } else {
    lua_pop(L_, 1);
  }
  after_resume(vu, lua_resume(co, nargs));
}

void ScenarioRuntime::call_lifecycle(const char* field, const std::string& arg_json,
                                     std::function<void(bool, std::string)> done) {
  lifecycle_vu_ = std::make_unique<Vu>(*this);
  Vu& vu = *lifecycle_vu_;
  make_thread(vu);
  lifecycle_done_ = std::move(done);
  lua_State* co = vu.thread;
  lua_rawgeti(co, LUA_REGISTRYINDEX, lifecycle_main_ref_);
  lua_rawgeti(co, LUA_REGISTRYINDEX, scenario_ref_);
  lua_getfield(co, -1, field);
  lua_remove(co, -2);
  if (arg_json.empty()) {
    lua_pushnil(co);
  } else {
    boost::system::error_code ec;
    push_json(co, boost::json::parse(arg_json, ec));
  }
  vu.running = true;
  after_resume(vu, lua_resume(co, 2));
}

Vu* ScenarioRuntime::vu_of(lua_State* L) {
  auto it = by_thread_.find(L);
  return it == by_thread_.end() ? nullptr : it->second;
}

clients::HttpSession& ScenarioRuntime::http_of(Vu& vu) {
  // discard: completions capture the VU; none may run once the session (and VU) is gone.
  if (!vu.http) vu.http = std::make_unique<clients::HttpSession>(ctx_, clients::HttpSession::OnDestroy::discard);
  return *vu.http;
}

void ScenarioRuntime::resume(Vu& vu, std::uint64_t epoch, const std::function<int(lua_State*)>& push) {
  if (vu.epoch != epoch || !vu.waiting || vu.thread == nullptr) return;  // interrupted meanwhile
  vu.waiting = false;
  const int n = push(vu.thread);
  after_resume(vu, lua_resume(vu.thread, n));
}

void ScenarioRuntime::after_resume(Vu& vu, int status) {
  lua_State* co = vu.thread;
  if (status == LUA_YIELD) {
    if (lua_gettop(co) >= 1 && lua_touserdata(co, 1) == &done_marker) {
      IterationOutcome outcome;
      outcome.ok = lua_toboolean(co, 2) != 0;
      if (&vu == lifecycle_vu_.get()) {
        std::string result;
        bool ok = outcome.ok;
        if (ok) {
          if (!lua_isnil(co, 3)) {
            try {
              result = boost::json::serialize(lua_to_json(co, 3));
            } catch (const JsonConversionError& e) {
              ok = false;
              result = fmt::format("setup() must return data that JSON can hold (it is copied to every worker): {}",
                                   e.what());
            }
          }
        } else {
          result = lua_isstring(co, 3) ? lua_tostring(co, 3) : "(error)";
        }
        lua_settop(co, 0);
        run_iteration_cleanup(vu);
        vu.running = false;
        auto done = std::move(lifecycle_done_);
        if (done) done(ok, result);
        return;
      }
      if (!outcome.ok) outcome.error = lua_isstring(co, 3) ? lua_tostring(co, 3) : "(error)";
      lua_settop(co, 0);
      finish_iteration(vu, std::move(outcome));
      return;
    }
    // Yielded inside a client call; a completion will resume it.
    vu.waiting = true;
    return;
  }
  // The coroutine died: an error outside the user's pcall (or a coroutine.yield from the
  // scenario itself). The VU gets a fresh coroutine next time.
  IterationOutcome outcome;
  outcome.ok = false;
  outcome.crashed = true;
  if (status == 0) {
    outcome.error = "the VU's coroutine returned (a scenario must not call coroutine.yield outside its own coroutines)";
  } else {
    outcome.error = lua_isstring(co, -1) ? lua_tostring(co, -1) : "(error)";
  }
  by_thread_.erase(co);
  luaL_unref(L_, LUA_REGISTRYINDEX, vu.thread_ref);
  vu.thread = nullptr;
  vu.thread_ref = LUA_NOREF;
  if (&vu == lifecycle_vu_.get()) {
    vu.running = false;
    auto done = std::move(lifecycle_done_);
    if (done) done(false, outcome.error);
    return;
  }
  finish_iteration(vu, std::move(outcome));
}

void ScenarioRuntime::run_iteration_cleanup(Vu& vu) {
  auto cleanup = std::move(vu.iteration_cleanup);
  vu.iteration_cleanup.clear();
  for (auto& fn : cleanup) fn();
}

void ScenarioRuntime::finish_iteration(Vu& vu, IterationOutcome outcome) {
  run_iteration_cleanup(vu);
  vu.running = false;
  ++vu.iteration;
  outcome.local_resource_exhausted = vu.local_resource_exhausted;
  if (vu.on_done) vu.on_done(vu, outcome);
}

void ScenarioRuntime::interrupt(Vu& vu) {
  ++vu.epoch;
  vu.waiting = false;
  vu.running = false;
  run_iteration_cleanup(vu);
  if (vu.http) vu.http->close_all();
  vu.timer.cancel();
  if (vu.thread != nullptr) {
    by_thread_.erase(vu.thread);
    luaL_unref(L_, LUA_REGISTRYINDEX, vu.thread_ref);
    vu.thread = nullptr;
    vu.thread_ref = LUA_NOREF;
  }
}

ScenarioRuntime* runtime_of(lua_State* L) {
  lua_pushlightuserdata(L, &runtime_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  auto* rt = static_cast<ScenarioRuntime*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  return rt;
}

}  // namespace stampede::scenario
