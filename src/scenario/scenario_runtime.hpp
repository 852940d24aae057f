#pragma once
// One worker's Lua runtime: a LuaJIT state with the scenario loaded and Stampede's modules
// registered, and the VU coroutines that run it. Single-threaded: everything here runs on
// the worker's event loop thread.
//
// How a client call works: the binding starts non-blocking I/O with a completion that
// captures (vu, epoch), then yields the coroutine (lua_yield from C). The completion pushes
// the result onto the coroutine's stack and resumes it. An interrupted VU gets a new epoch,
// so completions that arrive later are dropped instead of resuming a coroutine that no
// longer exists.
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "clients/client_context.hpp"
#include "scenario/scenario_options.hpp"
#include "scenario/vu.hpp"

struct lua_State;

namespace stampede::scenario {

struct RuntimeEnv {
  std::string scenario_path;
  Nanos run_start = 0;          // origin of stampede.now()
  std::string setup_data_json;  // setup()'s result as JSON; empty when there is none
  bool insecure = false;        // scenario-wide default for TLS verification
};

class ScenarioRuntime {
 public:
  // Loads the scenario. Throws ScenarioError (syntax error, no table returned, no `run`).
  ScenarioRuntime(clients::ClientContext& ctx, RuntimeEnv env);
  ~ScenarioRuntime();
  ScenarioRuntime(const ScenarioRuntime&) = delete;
  ScenarioRuntime& operator=(const ScenarioRuntime&) = delete;

  lua_State* state() { return L_; }
  clients::ClientContext& context() { return ctx_; }
  const RuntimeEnv& env() const { return env_; }
  // The origin of stampede.now(): the run's start, known only once every worker has loaded.
  void set_run_start(Nanos start) { env_.run_start = start; }

  // The scenario table's fields, read at load time.
  std::string name() const { return name_; }
  ScenarioOptions options(const std::string& where) const;
  bool has_function(const char* field) const;

  Vu& create_vu(int id);
  // Starts the next iteration of `vu`; on_done is called when run() returns or raises.
  void start_iteration(Vu& vu, std::function<void(Vu&, const IterationOutcome&)> on_done);
  // Cuts the current iteration off: closes the VU's connections and forgets its coroutine.
  void interrupt(Vu& vu);
  // Runs setup() or teardown(data) in a coroutine of its own on the event loop.
  // done(ok, json_or_error): for setup the JSON text of its result ("" for nil).
  void call_lifecycle(const char* field, const std::string& arg_json,
                      std::function<void(bool ok, std::string result)> done);

  // For bindings: the VU whose coroutine is `L`, or nullptr outside a VU.
  Vu* vu_of(lua_State* L);
  // For bindings: resume `vu` with the values `push` leaves on its stack, unless the VU was
  // interrupted since `epoch`.
  void resume(Vu& vu, std::uint64_t epoch, const std::function<int(lua_State*)>& push);
  clients::HttpSession& http_of(Vu& vu);
  // options.http2: whether stampede.http requests use HTTP/2 unless they say otherwise.
  bool http2_default() const { return http2_default_; }

 private:
  void load_scenario();
  void make_thread(Vu& vu);
  void after_resume(Vu& vu, int status);
  void finish_iteration(Vu& vu, IterationOutcome outcome);
  void run_iteration_cleanup(Vu& vu);

  clients::ClientContext& ctx_;
  RuntimeEnv env_;
  lua_State* L_ = nullptr;
  int scenario_ref_ = -2;
  int vu_main_ref_ = -2;
  int lifecycle_main_ref_ = -2;
  int data_ref_ = -2;
  std::string name_;
  bool http2_default_ = false;
  std::vector<std::unique_ptr<Vu>> vus_;
  std::unordered_map<lua_State*, Vu*> by_thread_;
  std::unique_ptr<Vu> lifecycle_vu_;
  std::function<void(bool, std::string)> lifecycle_done_;
};

}  // namespace stampede::scenario
