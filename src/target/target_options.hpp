#pragma once
// Everything `stampede target` can be told, for the CLI and for in-process use
// (`stampede demo`, tests).
#include <cstdint>
#include <optional>
#include <string>

#include "common/clock.hpp"
#include "target/capacity_limit.hpp"
#include "target/delay_spec.hpp"
#include "target/listen_address.hpp"
#include "target/liveview_dialect.hpp"

namespace stampede::target {

struct TargetOptions {
  ListenAddress listen;                // --listen (port 0: any free port, see TargetServer::port())
  // --tls-listen: HTTP/2 over TLS (h2) here too, with a self-signed certificate (port 0: any
  // free port, see TargetServer::tls_port()). The --listen port serves h2c besides HTTP/1.1.
  std::optional<ListenAddress> tls_listen;
  DelaySpec delay = FixedDelay{0};     // --delay
  std::optional<CapacitySpec> capacity;  // --capacity: past N requests in flight, each held longer
  std::optional<std::uint64_t> seed;   // --seed; absent: a random seed per start
  unsigned threads = 1;                // --threads: one event loop (and acceptor) each
  bool share_port = false;             // join other processes on the port (SO_REUSEPORT): --procs
  std::string truth_out;               // --truth-out: run_target_command writes the truth here at exit
  // WebSockets (/socket/websocket, /ws):
  Nanos ws_idle_timeout = 60 * kSecond;  // --ws-idle-timeout: closed (1000) after this long without a client frame
  bool ws_compress = false;              // --ws-compress: accept permessage-deflate (Phoenix's `compress: true`)
  // LongPoll (/socket/longpoll, /live/longpoll): --longpoll-session-lifetime, 0: a session
  // ends only as Phoenix ends one (nobody polled for 15 s, the application closed it).
  Nanos longpoll_session_lifetime = 0;
  // LiveView demo (/counter, /posts, ... and /live/websocket):
  LiveViewDialect liveview = LiveViewDialect::V1;  // --liveview: the dialect under "/" (/lv020, /lv1x are fixed)
};

}  // namespace stampede::target
