#include "cli/demo_command.hpp"

#include <fmt/format.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "cli/run_args.hpp"
#include "cli/templates.hpp"
#include "target/target_server.hpp"

namespace stampede::cli {

namespace {

std::string seconds(double s) { return fmt::format("{:.3f}s", s); }

// The README promises http://127.0.0.1:4040/; when something else holds that port (a
// second demo, another run's dashboard), any free port will do: the URL is printed.
std::string dashboard_address(const std::string& wanted) {
  if (wanted != "127.0.0.1:4040") return wanted;
  try {
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor probe(io, {boost::asio::ip::make_address("127.0.0.1"), 4040});
    return wanted;
  } catch (const boost::system::system_error&) {
    std::fprintf(stderr, "stampede demo: 127.0.0.1:4040 is taken; the dashboard gets another port\n");
    return "127.0.0.1:0";
  }
}

}  // namespace

int demo_command(const DemoArgs& demo) {
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
  const double secs = static_cast<double>(demo.duration) / kSecond;
  {
    std::string text(templates::demo_lua);
    text = templates::fill_template(text, "{{url}}", base);
    text = templates::fill_template(text, "{{ramp}}", seconds(secs * 0.2));
    text = templates::fill_template(text, "{{hold}}", seconds(secs * 0.6));
    text = templates::fill_template(text, "{{down}}", seconds(secs * 0.2));
    std::ofstream out(path);
    out << text;
  }
  std::fprintf(stderr, "stampede demo: built-in target on %s (a Phoenix-speaking app: channels, LiveView)\n",
               base.c_str());
  std::fprintf(stderr, "scenario: %s (a chat room over channels and a LiveView counter, %.0fs)\n", path.c_str(),
               secs);
  std::fprintf(stderr, "server metrics: %s/metrics (the target's own, as --server-metrics would scrape a Phoenix app's)\n",
               base.c_str());

  RunArgs args;
  args.files = {path.string()};
  // The target's own /metrics, scraped as --server-metrics would: the dashboard's and the
  // summary's Server section, with no Phoenix app to point at.
  args.server_metrics.urls = {base + "/metrics"};
  args.dashboard.enabled = true;
  args.dashboard.listen = dashboard_address(demo.dashboard_listen);
  // In a terminal the dashboard stays up for a look at the results (until Ctrl-C); in a
  // script or CI the demo ends with the run.
  if (demo.linger) args.dashboard.linger = *demo.linger;
  else if (::isatty(STDERR_FILENO) == 0) args.dashboard.linger = 0;
  int status = 2;
  try {
    status = run_command(args);
  } catch (...) {
    server.stop();
    std::filesystem::remove_all(dir);
    throw;
  }
  server.stop();
  std::filesystem::remove_all(dir);
  return status;
}

}  // namespace stampede::cli
