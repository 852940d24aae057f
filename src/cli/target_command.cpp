#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/target_args.hpp"
#include "proto/duration.hpp"
#include "target/run_target_command.hpp"
#include "target/target_processes.hpp"
#include "target/listen_address.hpp"
#include "target/capacity_limit.hpp"
#include "target/delay_spec.hpp"
#include "target/liveview_dialect.hpp"

namespace stampede::cli {

void add_target_options(CLI::App& cmd, TargetArgs& args) {
  cmd.add_option("--listen", args.listen, "Address and port to listen on (port 0: any free port)")
      ->capture_default_str()
      ->check([](const std::string& text) {
        std::string error;
        return target::parse_listen_address(text, &error) ? std::string() : error;
      });
  cmd.add_option("--tls-listen", args.tls_listen,
                 "Also serve HTTP/2 over TLS (h2, by ALPN) on this address and port, with a self-signed certificate "
                 "made at start (clients need --insecure); the --listen port serves HTTP/2 with prior knowledge (h2c) "
                 "besides HTTP/1.1")
      ->check([](const std::string& text) {
        std::string error;
        return target::parse_listen_address(text, &error) ? std::string() : error;
      });
  cmd.add_option("--delay", args.delay,
                 "How long to hold each request, in ms: fixed:10, uniform:5:15, lognormal:20:0.6 (median, sigma), "
                 "bimodal:5:300:0.015 (fast, slow, share of slow)")
      ->capture_default_str()
      ->check([](const std::string& text) {
        std::string error;
        return target::parse_delay_spec(text, &error) ? std::string() : error;
      });
  cmd.add_option("--capacity", args.capacity,
                 "Slow down past a known load: with more than N requests in flight (per event loop), hold each "
                 "further one MS longer, e.g. 10:200")
      ->check([](const std::string& text) {
        std::string error;
        return target::parse_capacity_spec(text, &error) ? std::string() : error;
      });
  cmd.add_option("--seed", args.seed, "Seed for the delay distribution (runs with the same seed draw the same delays)");
  cmd.add_option("--threads", args.threads, "Event loops (one acceptor each)")->capture_default_str()->check(CLI::Range(1u, 256u));
  cmd.add_option("--procs", args.procs,
                 "Target processes sharing the port (SO_REUSEPORT), to hold more connections than one process's "
                 "file limit; /__truth, /__channels, /__reset and /metrics then answer per process, --truth-out gets the merge")
      ->capture_default_str()
      ->check(CLI::Range(1u, 64u));
  cmd.add_option("--truth-out", args.truth_out, "Write the exact latency percentiles served to this file at exit (JSON)");
  cmd.add_option("--ws-idle-timeout", args.ws_idle_timeout,
                 "Close a WebSocket after this long without a frame from the client (Phoenix/Cowboy: 60s)")
      ->capture_default_str()
      ->check([](const std::string& t) {
        std::string e;
        auto d = proto::parse_duration(t, &e);
        return !d ? e : *d <= 0 ? std::string("must be positive") : std::string();
      });
  cmd.add_flag("--ws-compress", args.ws_compress,
               "Accept permessage-deflate when offered (Phoenix's compress: true; ~300 KiB zlib state per active socket)");
  cmd.add_option("--longpoll-session-lifetime", args.longpoll_session_lifetime,
                 "End every LongPoll session this long after it opened, as a restarted server loses them: its held "
                 "poll gets 410 and its next request finds no session (phoenix.js reconnects and rejoins), e.g. 2s")
      ->check([](const std::string& t) {
        std::string e;
        auto d = proto::parse_duration(t, &e);
        return !d ? e : *d <= 0 ? std::string("must be positive") : std::string();
      });
  cmd.add_option("--liveview", args.liveview,
                 "LiveView dialect of the demo pages under / and /live/websocket: 1.x (Phoenix 1.8.12, LiveView "
                 "1.2.10) or 0.20 (Phoenix 1.7.24, LiveView 0.20.17); /lv020/... and /lv1x/... always serve those")
      ->capture_default_str()
      ->check([](const std::string& text) {
        return target::parse_liveview_dialect(text) ? std::string() : std::string("must be 0.20 or 1.x");
      });
}

int target_command(const TargetArgs& args) {
  target::TargetOptions options;
  options.listen = *target::parse_listen_address(args.listen);
  if (!args.tls_listen.empty()) options.tls_listen = target::parse_listen_address(args.tls_listen);
  options.delay = *target::parse_delay_spec(args.delay);
  if (!args.capacity.empty()) options.capacity = target::parse_capacity_spec(args.capacity);
  options.seed = args.seed;
  options.threads = args.threads;
  options.truth_out = args.truth_out;
  options.ws_idle_timeout = *proto::parse_duration(args.ws_idle_timeout);
  options.ws_compress = args.ws_compress;
  if (!args.longpoll_session_lifetime.empty()) {
    options.longpoll_session_lifetime = *proto::parse_duration(args.longpoll_session_lifetime);
  }
  options.liveview = *target::parse_liveview_dialect(args.liveview);
  if (args.procs > 1 && options.tls_listen && options.tls_listen->port == 0) {
    std::fprintf(stderr, "stampede target: --procs needs a fixed --tls-listen port (each process would take its own)\n");
    return 2;
  }
  if (args.procs > 1) return target::run_target_processes(options, args.procs);
  return target::run_target_command(options);
}

}  // namespace stampede::cli
