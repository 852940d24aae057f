#include "target/run_target_command.hpp"

#include <fmt/format.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>

#include "target/descriptor_limit.hpp"
#include "target/target_server.hpp"

namespace stampede::target {
namespace {

bool write_truth_file(const std::string& path, const Truth& truth) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) return false;
  const auto json = truth_to_json(truth) + "\n";
  const bool written = std::fwrite(json.data(), 1, json.size(), file) == json.size();
  return std::fclose(file) == 0 && written;
}

}  // namespace

int run_target_command(const TargetOptions& options) {
  raise_descriptor_limit();
  // Installed before the server's threads exist, so no signal finds the default handler.
  boost::asio::io_context signal_io(1);
  boost::asio::signal_set signals(signal_io, SIGINT, SIGTERM);

  TargetServer server(options);
  try {
    server.start();
  } catch (const std::exception& e) {
    fmt::print(stderr, "stampede target: {}\n", e.what());
    return 2;
  }
  fmt::print(stderr,
             "stampede target listening on {} (delay {}; LiveView {} under /, 0.20 under /lv020, 1.x under /lv1x)\n",
             listen_url(options.listen.host, server.port()), format_delay_spec(options.delay),
             dialect_name(options.liveview));
  if (options.tls_listen) {
    fmt::print(stderr, "stampede target: HTTP/2 over TLS on https://{}:{} (self-signed certificate: use --insecure)\n",
               options.tls_listen->host.find(':') != std::string::npos ? "[" + options.tls_listen->host + "]"
                                                                       : options.tls_listen->host,
               server.tls_port());
  }

  int stop_signal = 0;
  signals.async_wait([&stop_signal](const boost::system::error_code& ec, int number) {
    if (!ec) stop_signal = number;
  });
  signal_io.run();
  server.stop();

  const auto truth = server.truth();
  fmt::print(stderr, "stampede target: stopped on {} after holding {} requests\n",
             stop_signal == SIGTERM ? "SIGTERM" : "SIGINT", truth.count);
  if (!options.truth_out.empty()) {
    if (!write_truth_file(options.truth_out, truth)) {
      fmt::print(stderr, "stampede target: cannot write the truth to {}: {}\n", options.truth_out,
                 std::strerror(errno));
      return 1;
    }
    fmt::print(stderr, "stampede target: truth written to {}\n", options.truth_out);
  }
  return 0;
}

}  // namespace stampede::target
