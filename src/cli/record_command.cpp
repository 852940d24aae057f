#include "cli/record_command.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "cli/convert_command.hpp"
#include "cli/version.hpp"
#include "proto/duration.hpp"
#include "record/exchange_log.hpp"
#include "record/har_writer.hpp"
#include "record/lua_writer.hpp"
#include "record/recording_proxy.hpp"
#include "record/recording_scope.hpp"
#include "record/scenario_builder.hpp"
#include "target/listen_address.hpp"

namespace stampede::cli {
namespace {

struct AppAddress {
  std::string origin;     // http://127.0.0.1:4000
  std::string authority;  // 127.0.0.1:4000
  std::string host;       // 127.0.0.1 (no brackets around IPv6)
  std::uint16_t port = 80;
  std::string path;       // what --to named beyond the origin ("" for /)
};

// --to: an http:// URL. https is refused with the way around it (see the design record).
std::optional<AppAddress> parse_app_url(const std::string& text, std::string& error) {
  const auto url = record::split_url(text);
  if (!url || (url->scheme != "http" && url->scheme != "https")) {
    error = "--to " + text + " is not a URL like http://127.0.0.1:4000";
    return std::nullopt;
  }
  if (url->scheme == "https") {
    error = "--to " + text +
            ": stampede record forwards to http:// apps only (run the app locally over http, or record a HAR in "
            "the browser and use `stampede convert`)";
    return std::nullopt;
  }
  AppAddress app;
  app.authority = url->authority;
  app.origin = url->origin();
  std::string_view authority = app.authority;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) {
      error = "--to " + text + ": the IPv6 address has no closing ]";
      return std::nullopt;
    }
    app.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size() && authority[close + 1] == ':') port = authority.substr(close + 2);
  } else {
    const auto colon = authority.rfind(':');
    app.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (!port.empty()) {
    unsigned value = 0;
    for (const char c : port) {
      if (c < '0' || c > '9' || (value = value * 10 + static_cast<unsigned>(c - '0')) > 65535) {
        error = "--to " + text + ": the port is not a number from 1 to 65535";
        return std::nullopt;
      }
    }
    if (value == 0) {
      error = "--to " + text + ": the port is not a number from 1 to 65535";
      return std::nullopt;
    }
    app.port = static_cast<std::uint16_t>(value);
  }
  if (app.host.empty()) {
    error = "--to " + text + " names no host";
    return std::nullopt;
  }
  const auto rest = url->path_and_query();
  if (rest != "/") app.path = rest;
  return app;
}

double epoch_ms_now() {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count()) /
         1000.0;
}

// One line per page, form post and WebSocket, so the person sees the recording follow along.
void print_progress(const record::Exchange& exchange) {
  const auto url = record::split_url(exchange.url);
  if (!url) return;
  if (exchange.websocket) {
    std::fprintf(stderr, "  WebSocket %s: %zu messages\n", url->path.c_str(), exchange.frames.size());
    return;
  }
  if (record::is_static_asset(exchange, *url)) return;
  const bool page = exchange.resource_type == "document" ||
                    (exchange.resource_type.empty() && exchange.response_mime.find("html") != std::string::npos);
  if (!page && exchange.method == "GET") return;
  if (exchange.status == 0) {
    std::fprintf(stderr, "  %s %s: no answer\n", exchange.method.c_str(), url->path_and_query().c_str());
  } else {
    std::fprintf(stderr, "  %s %s %d\n", exchange.method.c_str(), url->path_and_query().c_str(), exchange.status);
  }
}

}  // namespace

void add_record_options(CLI::App& cmd, RecordArgs& args) {
  cmd.add_option("--to", args.to, "The app to record, e.g. http://127.0.0.1:4000 (http:// only)")->required();
  cmd.add_option("--listen", args.listen,
                 "Where the proxy listens: browse this address instead of the app's (loopback only, unless "
                 "--allow-remote)")
      ->capture_default_str()
      ->check([](const std::string& text) {
        std::string error;
        return target::parse_listen_address(text, &error) ? std::string() : error;
      });
  cmd.add_flag("--allow-remote", args.allow_remote,
               "Let --listen be an address other machines can reach (everything they send through it, cookies "
               "included, is recorded)");
  cmd.add_option("-o,--out", args.output, "Write the scenario to this file when recording stops (default: stdout)");
  cmd.add_option("--har", args.har,
                 "Also write the recording as a HAR file, for `stampede convert` with other options later");
  cmd.add_option("--timeout", args.timeout,
                 "How long the app may keep a request waiting without sending anything (then the browser gets "
                 "504 Gateway Timeout)")
      ->capture_default_str()
      ->check([](const std::string& text) {
        std::string error;
        const auto d = proto::parse_duration(text, &error);
        return !d ? error : *d <= 0 ? std::string("must be positive") : std::string();
      });
  cmd.add_option("--duration", args.duration,
                 "Stop recording by itself after this long (e.g. 2m), as Ctrl-C would; for scripted recordings")
      ->check([](const std::string& text) {
        std::string error;
        const auto d = proto::parse_duration(text, &error);
        return !d ? error : *d <= 0 ? std::string("must be positive") : std::string();
      });
  add_scenario_options(cmd, nullptr, args.keep_static, args.think_time, args.name);
}

int record_command(const RecordArgs& args) {
  std::string error;
  const auto app = parse_app_url(args.to, error);
  if (!app) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  const auto listen = target::parse_listen_address(args.listen, &error);
  if (!listen) {
    std::fprintf(stderr, "error: --listen %s: %s\n", args.listen.c_str(), error.c_str());
    return 2;
  }
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(listen->host, ec);
  if (!ec && !address.is_loopback() && !args.allow_remote) {
    std::fprintf(stderr,
                 "error: --listen %s is reachable from other machines, and whatever they send through the proxy "
                 "(cookies included) would be recorded: listen on 127.0.0.1, or add --allow-remote if you mean it\n",
                 args.listen.c_str());
    return 2;
  }

  record::ProxyConfig config;
  config.listen_host = listen->host;
  config.listen_port = listen->port;
  config.app_host = app->host;
  config.app_port = app->port;
  config.endpoints.app_origin = app->origin;
  config.endpoints.app_authority = app->authority;
  config.answer_timeout = *proto::parse_duration(args.timeout);

  boost::asio::io_context io;
  SteadyClock clock;
  record::ExchangeLog log;
  log.on_exchange = print_progress;
  log.on_warning = [](const std::string& text) { std::fprintf(stderr, "  warning: %s\n", text.c_str()); };
  record::RecordingProxy proxy(io, config, log, clock);
  try {
    proxy.start();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  const auto proxy_url = target::listen_url(listen->host, proxy.port());
  std::fprintf(stderr, "Recording %s: browse %s%s instead, then press Ctrl-C to %s.\n", app->origin.c_str(),
               proxy_url.c_str(), app->path.c_str(),
               args.output.empty() ? "print the scenario" : ("write " + args.output).c_str());

  // Whichever comes first stops the proxy: every connection ends, the acceptor closes, and
  // run() returns once the other one is cancelled.
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  boost::asio::steady_timer deadline(io);
  signals.async_wait([&](const boost::system::error_code& wait_error, int) {
    if (wait_error) return;
    deadline.cancel();
    proxy.stop();
  });
  if (!args.duration.empty()) {
    deadline.expires_after(std::chrono::nanoseconds(*proto::parse_duration(args.duration)));
    deadline.async_wait([&](const boost::system::error_code& wait_error) {
      if (wait_error) return;
      boost::system::error_code ignored;
      signals.cancel(ignored);
      proxy.stop();
    });
  }
  io.run();
  const double epoch_at_zero = epoch_ms_now() - static_cast<double>(clock.now() - proxy.started_at()) / 1e6;
  auto recording = log.take(std::string(record::kProxySource), epoch_at_zero);

  std::size_t sockets = 0;
  std::size_t unanswered = 0;
  for (const auto& exchange : recording.exchanges) {
    sockets += exchange.websocket ? 1 : 0;
    unanswered += exchange.status == 0 ? 1 : 0;
  }
  std::fprintf(stderr, "Stopped: recorded %zu requests and %zu WebSockets.\n", recording.exchanges.size() - sockets,
               sockets);
  // Each failure was told as it happened (a warning); the count says how much is missing from
  // the scenario (those requests are left out of it).
  if (unanswered > 0 || !log.warnings().empty()) {
    std::fprintf(stderr, "%zu %s got no answer from the app; %zu warning%s above.\n", unanswered,
                 unanswered == 1 ? "request" : "requests", log.warnings().size(),
                 log.warnings().size() == 1 ? "" : "s");
  }
  if (!args.har.empty() && !recording.exchanges.empty()) {
    if (write_scenario_file(record::write_har(recording, version_number()), args.har) != 0) return 2;
  }
  if (recording.exchanges.empty()) {
    std::fprintf(stderr, "error: nothing was recorded: browse %s (not the app's own address) before pressing Ctrl-C\n",
                 proxy_url.c_str());
    return 2;
  }
  record::ConvertOptions options;
  options.origin = app->origin;
  options.keep_static = args.keep_static;
  options.think_time_cap_ms = static_cast<double>(*proto::parse_duration(args.think_time)) / 1e6;
  options.name = scenario_name_for(args.name, args.output);
  const auto built = record::build_scenario(recording, options);
  if (!built.error.empty()) {
    std::fprintf(stderr, "error: %s\n", built.error.c_str());
    return 2;
  }
  record::WriteOptions write;
  write.command = "stampede record --to " + app->origin;
  write.output_path = args.output;
  return write_scenario_file(record::write_lua(built.scenario, write), args.output);
}

}  // namespace stampede::cli
