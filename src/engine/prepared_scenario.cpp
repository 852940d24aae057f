#include "engine/prepared_scenario.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <fmt/format.h>

#include <csignal>
#include <optional>
#include <stdexcept>

#include "clients/client_context.hpp"
#include "common/address_list.hpp"
#include "engine/stop_signals.hpp"
#include "scenario/scenario_error.hpp"
#include "scenario/scenario_runtime.hpp"

namespace stampede::engine {

namespace {

constexpr const char* kInterrupted = "interrupted (Ctrl-C, SIGTERM or SIGUSR1): the rest of it did not run";

// Runs setup() or teardown() to completion on a private event loop. An `interruptible` one
// (teardown, which runs after the load and before the summary) is abandoned on Ctrl-C,
// SIGTERM or SIGUSR1: one stalled request in it must not cost the user the summary of
// everything the run measured.
std::pair<bool, std::string> run_lifecycle(const std::string& path, const char* fn, const std::string& arg,
                                           metrics::Registry& registry, bool insecure, bool interruptible = false) {
  boost::asio::io_context io;
  SteadyClock clock;
  metrics::MetricSink sink(registry);
  clients::ClientContext ctx(io, sink, clock);
  scenario::ScenarioRuntime rt(ctx, scenario::RuntimeEnv{path, clock.now(), "", insecure});
  std::pair<bool, std::string> result{false, "did not finish"};
  bool done = false;
  rt.call_lifecycle(fn, arg, [&](bool ok, std::string value) {
    result = {ok, std::move(value)};
    done = true;
  });
  std::optional<boost::asio::signal_set> signals;
  if (interruptible && !done) {
    signals.emplace(io, SIGINT, SIGTERM, SIGUSR1);
    signals->async_wait([&](const boost::system::error_code& ec, int) {
      if (ec || done) return;
      result = {false, kInterrupted};
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
    result = {false, fmt::format("engine fault: {}", e.what())};
  }
  if (signals) {
    signals.reset();            // SIGINT and SIGTERM go back to their default actions
    note_usr1_until_the_run();  // and SIGUSR1 to being noted, not the process's end
  }
  return result;
}

}  // namespace

PreparedScenario load_scenario(const std::string& path, const ScenarioOverrides& overrides, metrics::Registry& registry) {
  note_usr1_until_the_run();
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
  if (!s.has_setup) return;
  auto [ok, value] = run_lifecycle(s.path, "setup", "", registry, s.insecure);
  if (!ok) throw scenario::ScenarioError(lifecycle_failure(s.path, "setup", value));
  s.setup_data = value;
}

std::string run_teardown(const PreparedScenario& s, metrics::Registry& registry) {
  if (!s.has_teardown) return {};
  auto [ok, value] = run_lifecycle(s.path, "teardown", s.setup_data, registry, s.insecure, true);
  if (!ok && value == kInterrupted) return fmt::format("{}: teardown() {}", s.path, kInterrupted);
  return ok ? std::string() : lifecycle_failure(s.path, "teardown", value);
}

}  // namespace stampede::engine
