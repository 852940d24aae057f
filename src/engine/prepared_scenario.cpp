#include "engine/prepared_scenario.hpp"

#include <boost/asio/io_context.hpp>
#include <fmt/format.h>

#include <stdexcept>

#include "clients/client_context.hpp"
#include "common/address_list.hpp"
#include "engine/stop_signals.hpp"
#include "scenario/scenario_error.hpp"
#include "scenario/scenario_runtime.hpp"

namespace stampede::engine {

namespace {

constexpr const char* kInterrupted = "interrupted (Ctrl-C, SIGTERM or SIGUSR1): the rest of it did not run";

struct LifecycleEnd {
  bool ok = false;
  bool interrupted = false;  // by a stop signal: `value` is kInterrupted
  std::string value;         // what it returned (ok), or why it failed
};

// Runs setup() or teardown() to completion on a private event loop, unless a stop signal
// comes: one noted after `stops_before` of them (engine/stop_signals.hpp) abandons it. setup()
// then has nothing to wait for (the load will not start); teardown() runs after the load and
// before the summary: one stalled request in it must not cost the user the summary of
// everything the run measured.
LifecycleEnd run_lifecycle(const std::string& path, const char* fn, const std::string& arg, metrics::Registry& registry,
                           bool insecure, int stops_before) {
  boost::asio::io_context io;
  SteadyClock clock;
  metrics::MetricSink sink(registry);
  clients::ClientContext ctx(io, sink, clock);
  scenario::ScenarioRuntime rt(ctx, scenario::RuntimeEnv{path, clock.now(), "", insecure});
  LifecycleEnd end{false, false, "did not finish"};
  bool done = false;
  const auto interrupted = [&] {
    if (done) return;
    end = {false, true, kInterrupted};
    done = true;
  };
  // In place before the function starts (its code up to its first wait runs within
  // call_lifecycle): one that came before the watch was noted, and is seen just below.
  StopSignalWatch signals(io, [&](int) { interrupted(); });
  if (stops_noted() > stops_before) {
    interrupted();
  } else {
    rt.call_lifecycle(fn, arg, [&](bool ok, std::string value) {
      if (done) return;
      end = {ok, false, std::move(value)};
      done = true;
    });
  }
  // A handler that throws is an engine fault: setup() or teardown() fails with it, as the
  // workers count one under vu.crashes, rather than the exception ending the process (after
  // the load, before its summary, for teardown).
  try {
    while (!done && io.run_one() > 0) {
    }
  } catch (const std::exception& e) {
    end = {false, false, fmt::format("engine fault: {}", e.what())};
  }
  return end;
}

}  // namespace

PreparedScenario load_scenario(const std::string& path, const ScenarioOverrides& overrides, metrics::Registry& registry) {
  PreparedScenario s;
  s.path = path;
  {
    boost::asio::io_context io;
    SteadyClock clock;
    metrics::MetricSink sink(registry);
    clients::ClientContext ctx(io, sink, clock);
    scenario::ScenarioRuntime rt(ctx, scenario::RuntimeEnv{path, clock.now(), "", false});
    s.name = rt.name();
    s.options = rt.options(path + ": options");
    s.has_teardown = rt.has_function("teardown");
    s.has_setup = rt.has_function("setup");
  }
  s.insecure = overrides.insecure || s.options.insecure;
  try {
    s.local_addresses = overrides.local_addresses.empty() ? parse_address_list(s.options.local_addresses)
                                                          : parse_address_list(overrides.local_addresses);
  } catch (const std::invalid_argument& e) {
    throw scenario::ScenarioError(fmt::format("local addresses: {}", e.what()));
  }
  for (const auto& t : s.options.thresholds) s.thresholds.push_back({t.metric, t.aggregation, t.limit, path});
  return s;
}

namespace {

// "api.lua: setup() failed: <why>", unless the message already starts with the file (a Lua
// error raised in it carries its file:line): a failure that is not the user's code's, such
// as setup data JSON cannot hold, must still name the scenario.
std::string lifecycle_failure(const std::string& path, const char* fn, const std::string& why) {
  if (why.rfind(path + ":", 0) == 0) return fmt::format("{}() failed: {}", fn, why);
  return fmt::format("{}: {}() failed: {}", path, fn, why);
}

}  // namespace

void run_setup(PreparedScenario& s, metrics::Registry& registry) {
  stop_if_noted();
  if (!s.has_setup) return;
  // Any stop signal since the command began: the load it prepares for will not start.
  const LifecycleEnd end = run_lifecycle(s.path, "setup", "", registry, s.insecure, 0);
  if (end.interrupted) throw StoppedBeforeTheLoad();
  if (!end.ok) throw scenario::ScenarioError(lifecycle_failure(s.path, "setup", end.value));
  s.setup_data = end.value;
}

std::string run_teardown(const PreparedScenario& s, metrics::Registry& registry) {
  if (!s.has_teardown) return {};
  // One that comes from here on: the first Ctrl-C of the load let teardown() run.
  const LifecycleEnd end = run_lifecycle(s.path, "teardown", s.setup_data, registry, s.insecure, stops_noted());
  if (end.interrupted) return fmt::format("{}: teardown() {}", s.path, kInterrupted);
  return end.ok ? std::string() : lifecycle_failure(s.path, "teardown", end.value);
}

}  // namespace stampede::engine
