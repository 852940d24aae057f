#pragma once
// A virtual user as the Lua runtime sees it: a coroutine that runs the scenario's `run`
// again each time it is started, and the per-VU clients (HTTP keep-alive connections and
// cookies live as long as the VU, so reused VUs keep their connections like k6 and browsers).
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "clients/http_session.hpp"
#include "clients/worker_timers.hpp"

struct lua_State;

namespace stampede::scenario {

class ScenarioRuntime;

struct IterationOutcome {
  bool ok = true;
  bool crashed = false;  // the engine, not the scenario, failed (counted as vu.crashes)
  std::string error;     // "loadtest/api.lua:12: boom", or the error object's __tostring
  // A client call in the iteration failed because this machine ran out of file descriptors,
  // source ports or socket memory (transport::is_local_exhaustion), whether or not the
  // scenario caught it: the executor waits before this VU's next iteration.
  bool local_resource_exhausted = false;
};

struct Vu {
  explicit Vu(ScenarioRuntime& made_by) : runtime(&made_by) {}
  Vu() = default;  // without a runtime: the executors' tests run iterations without Lua

  // A client call's result says this machine ran out of a local resource.
  void note_local_exhaustion(bool exhausted) { local_resource_exhausted = local_resource_exhausted || exhausted; }

  ScenarioRuntime* runtime = nullptr;  // the worker's, which made this VU (setup's and teardown's too)
  int id = 0;
  long long iteration = 0;           // 0-based index of the current (or last) iteration
  lua_State* thread = nullptr;       // the coroutine; re-made after an interrupt or crash
  int thread_ref = -2;               // LUA_NOREF
  int table_ref = -2;                // the `vu` table handed to run
  std::uint64_t epoch = 0;           // bumped by interrupt(): completions from before are ignored
  bool waiting = false;              // yielded inside a client call
  bool running = false;              // inside an iteration
  bool local_resource_exhausted = false;  // see IterationOutcome; set by the client bindings
  std::function<void(Vu&, const IterationOutcome&)> on_done;
  std::size_t slot = static_cast<std::size_t>(-1);  // the executor's bookkeeping: where it keeps this VU
  std::unique_ptr<clients::HttpSession> http;
  // Closed when the iteration ends, however it ends: sockets a scenario opened in it
  // (WebSockets, Phoenix sockets). Nothing leaks into the next iteration.
  std::vector<std::function<void()>> iteration_cleanup;
  // stampede.sleep, on the worker's shared timer: a VU that sleeps for an hour holds 40
  // bytes here, not an Asio timer and its pending wait.
  clients::WorkerTimer timer;
};

}  // namespace stampede::scenario
