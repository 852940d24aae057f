#include "cli/demo_command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "cli/run_args.hpp"
#include "target/target_server.hpp"

namespace stampede::cli {

namespace {

// The demo scenario: what a user of a JSON API would write first.
constexpr const char* kDemoScenario = R"lua(-- Stampede demo: a JSON API under a ramping load.
local http = require "stampede.http"
local stampede = require "stampede"

local base = "{base}"

return {{
  name = "Demo.Api",
  options = {{
    stages = {{ {{"{ramp}", 20}}, {{"{hold}", 20}}, {{"{down}", 0}} }},
    thresholds = {{
      {{"http.request", p95 = 250, max = 2000}},
      {{"status is 200", failed_rate = 0.01}},
      {{"iteration.errors", count = 0}},
    }},
  }},
  run = function(vu)
    local res = http.get(base .. "/api/posts", {{ name = "list" }})
    stampede.check("status is 200", res.status == 200)
    local created = http.post(base .. "/api/posts", {{ json = {{ title = "hi from " .. vu.id }}, name = "create" }})
    stampede.check("created", created.status == 201)
    stampede.sleep(math.random(50, 150))
  end,
}}
)lua";

}  // namespace

int demo_command(Nanos duration) {
  target::TargetOptions options;
  options.listen = *target::parse_listen_address("127.0.0.1:0");
  options.delay = *target::parse_delay_spec("lognormal:8:0.5");
  options.seed = 1;
  target::TargetServer server(options);
  server.start();
  const std::string base = fmt::format("http://127.0.0.1:{}", server.port());

  const auto dir = std::filesystem::temp_directory_path() / fmt::format("stampede-demo-{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto path = dir / "demo.lua";
  const double secs = static_cast<double>(duration) / kSecond;
  {
    std::ofstream out(path);
    out << fmt::format(kDemoScenario, fmt::arg("base", base), fmt::arg("ramp", fmt::format("{:.3f}s", secs * 0.2)),
                       fmt::arg("hold", fmt::format("{:.3f}s", secs * 0.6)),
                       fmt::arg("down", fmt::format("{:.3f}s", secs * 0.2)));
  }
  std::fprintf(stderr, "stampede demo: built-in target on %s (lognormal delay, median 8 ms)\n", base.c_str());
  std::fprintf(stderr, "scenario: %s\n\n", path.c_str());

  RunArgs args;
  args.files = {path.string()};
  const int status = run_command(args);
  server.stop();
  std::filesystem::remove_all(dir);
  return status;
}

}  // namespace stampede::cli
