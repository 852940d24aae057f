#pragma once
// A Server-Sent Events source, as a browser's EventSource runs one (WHATWG HTML §9.2): a GET
// with `Accept: text/event-stream` whose response body never ends, parsed by
// proto/event_stream.hpp as it arrives; when the stream ends it is opened again after the
// reconnection time (the server's `retry:`, else options.retry) with the last event ID as
// `Last-Event-ID`. A response that is not 200 with Content-Type text/event-stream fails the
// source for good, as the standard says.
//
// The HTTP exchange is a small one of its own on transport::Stream and the HTTP response
// parser (proto/), not the HTTP client's: that one hands over whole responses and keeps
// connections for reuse, while this response is read as it streams and owns its connection
// for as long as the source is open. The parser's decoded body is taken after every read
// (and cleared), so it never holds more than one read's worth.
//
// Life: Idle --open()--> Connecting --200 text/event-stream--> Open --end of stream--> Waiting
//       --reconnection time--> Connecting ...; close(), a refused response, a too-big event or
//       `reconnect = false` --> Closed. open()'s `done` is called once, for the first attempt.
//
// Memory of an open, idle source: the socket, the event-stream parser's state and this
// object; reads go through the worker's shared buffer.
//
// Metrics:
//   sse.connect  Timing   TCP connect + TLS + request, to the response head (every attempt)
//   sse.events   Counter  events dispatched
//   sse.errors   Counter  by reason: refused, timeout, reset, closed, tls, dns, fd, ports,
//                         memory, url (connecting); status (not 200), content-type (not an
//                         event stream), protocol (not HTTP, or a broken body); truncated
//                         (the stream ended inside an event, which is lost); too big (an
//                         event past max_event_bytes); dropped (the inbox was full, the
//                         oldest event went)
// Each attempt is one request in the sink's tally, finished ok with an accepted response head.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/ip/address.hpp>

#include "clients/client_context.hpp"
#include "clients/message_inbox.hpp"
#include "common/clock.hpp"

namespace stampede::clients {

struct SseEvent {
  std::uint64_t seq = 0;
  std::string type;  // "message" unless the stream named one
  std::string data;
  std::string id;    // the source's last event ID when the event was dispatched
};

class SseStream {
 public:
  enum class State { Idle, Connecting, Open, Waiting, Closed };

  struct Options {
    std::string method = "GET";
    std::string body;  // sent with every attempt (a POST that opens a token stream)
    // Sent with every attempt. Accept and Cache-Control are set unless given here;
    // Last-Event-ID is the source's own and may not be.
    std::vector<std::pair<std::string, std::string>> headers;
    Nanos timeout = 10 * kSecond;  // per attempt: connect + TLS + request, to the response head
    bool insecure = false;
    bool reconnect = true;
    Nanos retry = 3 * kSecond;         // reconnection time until the server sends retry:
    std::string last_event_id;         // sent as Last-Event-ID from the first attempt on
    std::size_t max_event_bytes = 1024 * 1024;
    std::size_t buffer_limit = 1000;   // events kept for await; the oldest go first
    std::vector<boost::asio::ip::address> local_addresses;  // empty: the run's
  };

  struct OpenResult {
    std::string error;         // empty on success; else a sentence (without the URL)
    std::string error_reason;  // the sse.errors reason
    bool local_exhaustion = false;
    int status = 0;  // of the response, 0 when none arrived
    bool ok() const { return error.empty(); }
  };

  explicit SseStream(ClientContext& ctx);
  // Closes the connection; nothing is called back after this.
  ~SseStream();
  SseStream(const SseStream&) = delete;
  SseStream& operator=(const SseStream&) = delete;

  // Opens the source. `done` is called once, from the loop, when the first attempt was
  // accepted or failed. Throws std::logic_error when called twice.
  void open(std::string url, Options options, std::function<void(OpenResult)> done);
  // Closes the source for good: the inbox's awaits wake with nothing.
  void close();

  State state() const;
  // Why the source closed ("the server answered 404"), empty while it has not.
  const std::string& closed_reason() const;
  const std::string& last_event_id() const;
  // How many connections were opened after the first.
  std::uint64_t reconnects() const;
  MessageInbox<SseEvent>& inbox();

 private:
  class Source;
  std::shared_ptr<Source> source_;
};

}  // namespace stampede::clients
