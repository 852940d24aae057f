#pragma once
// What every client needs from the worker it runs on. One per worker thread; clients on
// that worker share it and never touch another worker's.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/context.hpp>
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "clients/url_target.hpp"
#include "clients/worker_timers.hpp"
#include "common/clock.hpp"
#include "metrics/metric_sink.hpp"
#include "proto/http_response_parser.hpp"
#include "transport/send_batch.hpp"

namespace stampede::clients {

// Reads of one connection (or one response) before it lets the worker's other connections
// and timers have a turn: the same budget for every protocol's client.
inline constexpr int kReadsPerTurn = 16;

// Cookies expire on the calendar, not on the monotonic clock.
inline std::int64_t wall_clock_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class ClientContext {
 public:
  // `grid_phase`: of the worker's coarse timer grid (clients::grid_phase).
  ClientContext(boost::asio::io_context& io, metrics::MetricSink& sink, const Clock& clock, Nanos grid_phase = 0)
      : io(io), sink(sink), clock(clock), grid_phase(grid_phase) {}

  boost::asio::io_context& io;
  metrics::MetricSink& sink;
  const Clock& clock;
  const Nanos grid_phase;

  // Source addresses to spread outgoing connections over (empty: let the kernel choose).
  std::vector<boost::asio::ip::address> local_addresses;
  std::size_t next_local_address = 0;

  // TLS contexts are made on first use (loading the CA store costs milliseconds).
  boost::asio::ssl::context& tls(bool verify);

  // Scratch space for reads, shared by every connection of the worker, so an idle
  // connection owns no read buffer.
  std::string& read_buffer();

  // Long-lived timers of the worker's sockets and VUs (heartbeats, sleeps) on one Asio timer,
  // their coarse grid (heartbeats) at `grid_phase`.
  WorkerTimers& timers();

  // HTTP request URLs parsed once for all the worker's VUs.
  UrlTargetCache http_urls{UrlSchemes::http};

  // Response parsers of finished HTTP requests, for the next ones: their state is allocated
  // about once per request in flight at the worker's busiest, not once per request.
  proto::HttpResponseParser take_http_parser();
  void give_back_http_parser(proto::HttpResponseParser parser);

  // Strings an HTTP request fills once each (its head, its URL, its response's URL), and a
  // WebSocket's or a Phoenix socket's output while it has some, reused like the parsers:
  // what is kept is their capacity, not their text (taken empty). A big one is not kept.
  std::string take_text();
  void give_back_text(std::string text);

  // What a plain HTTP connection's waiting read lands in (transport::Stream::async_receive):
  // one per request in flight, reused like the parsers, so that idle connections own none.
  // Big enough for a typical API response; a bigger one is drained through read_buffer().
  using ReceiveBuffer = std::array<char, 2048>;
  std::unique_ptr<ReceiveBuffer> take_receive_buffer();
  void give_back_receive_buffer(std::unique_ptr<ReceiveBuffer> buffer);

  // The worker's plain-socket sends, one system call per loop turn (transport/send_batch.hpp):
  // made on first use, on the worker's thread; null where io_uring is unavailable or
  // STAMPEDE_IO_URING=0, and the clients then write one send at a time.
  transport::SendBatch* send_batch();

 private:
  std::unique_ptr<boost::asio::ssl::context> tls_verify_;
  std::unique_ptr<boost::asio::ssl::context> tls_insecure_;
  std::string read_buffer_;
  std::unique_ptr<WorkerTimers> timers_;
  std::vector<proto::HttpResponseParser> spare_parsers_;
  std::vector<std::unique_ptr<ReceiveBuffer>> spare_receive_buffers_;
  std::vector<std::string> spare_texts_;
  bool send_batch_opened_ = false;
  // Last: destroyed first, so the callbacks of sends still queued (which hold requests) go
  // while the rest of the context is whole.
  std::unique_ptr<transport::SendBatch> send_batch_;
};

}  // namespace stampede::clients
