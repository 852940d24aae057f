#pragma once
// The recording proxy of `stampede record`: listens (on loopback unless told otherwise),
// and relays each browser connection to the app on a connection of its own, while a
// ProxySession (proxy_session.hpp) decides what to forward and records every exchange into
// an ExchangeLog. The only sockets in record/ (docs/design/039-recording-a-scenario.md).
//
//   asio::io_context io;
//   ExchangeLog log;
//   RecordingProxy proxy(io, config, log, clock);
//   proxy.start();               // listening once it returns; throws with a sentence
//   io.run();                    // ... until a signal handler calls proxy.stop()
//   Recording r = log.take("stampede record", epoch_ms_at(proxy.started_at()));
//
// One thread (the io_context's): a person's browser opens a handful of connections, each
// relayed with flow control (a side is read only when what it sent before was written to
// the other), so a slow reader never makes the proxy buffer without bound.
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "common/clock.hpp"
#include "record/exchange_log.hpp"
#include "record/proxy_heads.hpp"
#include "record/proxy_session.hpp"

namespace stampede::record {

struct ProxyConfig {
  std::string listen_host = "127.0.0.1";  // a numeric address
  std::uint16_t listen_port = 8080;       // 0: any free port (see port())
  std::string app_host = "127.0.0.1";     // where the app listens (a name or a numeric address)
  std::uint16_t app_port = 4000;
  ProxyEndpoints endpoints;               // app_origin, app_authority; proxy_origin is set by start()
  // A response that is due and of which nothing arrives for this long is answered 504 (or
  // cut, once part of it went out). WebSockets and idle connections have no such limit.
  Nanos answer_timeout = 30 * kSecond;
  ProxyLimits limits;
};

class RecordingProxy {
 public:
  RecordingProxy(boost::asio::io_context& io, ProxyConfig config, ExchangeLog& log, const Clock& clock);
  ~RecordingProxy();
  RecordingProxy(const RecordingProxy&) = delete;
  RecordingProxy& operator=(const RecordingProxy&) = delete;

  // Binds and starts accepting. Throws std::runtime_error with a sentence for the user
  // ("cannot listen on 127.0.0.1:8080: Address already in use").
  void start();
  // The bound port (the kernel's choice for port 0).
  std::uint16_t port() const { return port_; }
  // When start() was called, on the clock: the zero of the log's times.
  Nanos started_at() const { return started_at_; }
  // Stops accepting and ends every connection; what they had open is recorded as it is.
  void stop();
  // Connections from browsers being relayed now.
  std::size_t open_connections() const;

 private:
  class Connection;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::uint16_t port_ = 0;
  Nanos started_at_ = 0;
};

}  // namespace stampede::record
