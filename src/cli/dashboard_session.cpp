#include "cli/dashboard_session.hpp"

#include <fmt/format.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <stdexcept>

#include "target/listen_address.hpp"

namespace stampede::cli {

std::unique_ptr<dashboard::LiveDashboard> open_dashboard(const DashboardArgs& args) {
  std::string error;
  const auto address = target::parse_listen_address(args.listen, &error);
  if (!address) throw std::runtime_error("--dashboard-listen: " + error);
  std::unique_ptr<dashboard::LiveDashboard> dashboard;
  try {
    dashboard = std::make_unique<dashboard::LiveDashboard>(address->host, address->port);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(
        fmt::format("{}; pick another address with --dashboard-listen (port 0: any free port)", e.what()));
  }
  std::fprintf(stderr, "dashboard: %s\n", dashboard->url().c_str());
  if (!boost::asio::ip::make_address(address->host).is_loopback())
    std::fprintf(stderr,
                 "warning: the dashboard listens on %s, beyond this machine; anyone who can reach it sees the "
                 "run's results (it has no authentication)\n",
                 address->host.c_str());
  return dashboard;
}

void serve_final_results(const DashboardArgs& args, const dashboard::LiveDashboard& dashboard) {
  if (args.linger && *args.linger <= 0) return;
  if (args.linger)
    std::fprintf(stderr, "dashboard: serving the final results at %s for %.0fs (Ctrl-C to exit now)\n",
                 dashboard.url().c_str(), static_cast<double>(*args.linger) / kSecond);
  else
    std::fprintf(stderr, "dashboard: serving the final results at %s until Ctrl-C\n", dashboard.url().c_str());

  boost::asio::io_context io;
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  boost::asio::steady_timer timer(io);
  signals.async_wait([&](const boost::system::error_code& ec, int) {
    if (!ec) io.stop();
  });
  if (args.linger) {
    timer.expires_after(std::chrono::nanoseconds(*args.linger));
    timer.async_wait([&](const boost::system::error_code& ec) {
      if (!ec) io.stop();
    });
  }
  io.run();
}

}  // namespace stampede::cli
