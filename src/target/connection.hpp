#pragma once
// One HTTP/1.1 connection of the target, followed top to bottom:
//   readable -> read into the worker's scratch buffer -> parse every complete request ->
//   dispatch each (control endpoint, or route + drawn hold in the worker's HoldQueue) into
//   the response queue -> write the ready responses at the head of the queue in one write ->
//   when the write completes, record each measured request's held time -> read again.
// The held time runs from "fully received" (the kernel's receive stamp of the read that
// completed the request: transport/kernel_receive_time.hpp, docs/design/053) to "response
// written" (the moment the last byte was handed to the kernel), on the monotonic clock.
//
// A connection whose first bytes are HTTP/2's connection preface speaks HTTP/2 with prior
// knowledge (h2c): it is handed to an H2Connection (h2_connection.hpp) with those bytes.
//
// The Phoenix LongPoll transport's requests are not routes either: they go to the session's
// worker (longpoll_hub.hpp) and a poll's answer may come seconds later.
//
// A protocol upgrade (WebSocket and the Phoenix protocols over it) is decided in dispatch(),
// before the route table: the connection stops reading HTTP, queues the 101 behind the
// responses it still owes, and once that is written hands its socket and any bytes already
// read to a WsConnection. Upgrade requests and their refusals are not measured.
#include <memory>
#include <string>
#include <string_view>

#include "common/clock.hpp"
#include "proto/http_request_parser.hpp"
#include "target/asio_types.hpp"
#include "target/event_stream.hpp"
#include "target/held_responder.hpp"
#include "target/response_queue.hpp"
#include "target/websocket_upgrade.hpp"

namespace stampede::target {

class Worker;

class Connection : public HeldResponder, public std::enable_shared_from_this<Connection> {
 public:
  Connection(Worker& worker, Socket socket);
  ~Connection();  // counts the connection's end (closed, or handed over to a WebSocket)
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void start();
  // The hold of `slot` is over (Worker::hold): it may be written.
  void end_hold(PendingResponse& slot) override;

 private:
  // Reads what the socket has (without blocking) and parses it; then waits for more.
  void read_available();
  void wait_readable();
  void consume(std::string_view bytes);
  void dispatch(Nanos received_at);
  void answer_control(PendingResponse& slot, std::string_view path, std::string_view method);
  void answer_metrics(PendingResponse& slot);
  void answer_websocket(PendingResponse& slot, std::string_view path, std::string_view query);
  void hand_over_to_websocket();
  void answer_event_stream(PendingResponse& slot, std::string_view query);
  // /socket/longpoll, /live/longpoll (connection_longpoll.cpp): answered at once, or when the
  // session's worker answers (a held poll).
  void answer_longpoll(PendingResponse& slot, std::string_view path, std::string_view query);
  void hand_over_to_event_stream();
  // The first bytes read: the HTTP/2 preface (h2c) or not. Returns whether `bytes` (updated to
  // what HTTP/1.1 should parse) is for this connection; false once handed over or waiting for more.
  bool sort_out_first_bytes(std::string_view& bytes);
  void hand_over_to_http2(std::string_view bytes);
  void hold(PendingResponse& slot, Nanos delay);
  void answer_bad_request();
  void peer_closed_sending();

  // Writes the ready responses at the head of the queue, unless a write is in flight.
  void flush();
  // The write is complete: records the held times of the measured responses in it, each
  // ending at `handed_at` (when the write began).
  void finish_write(Nanos handed_at);

  // After "Connection: close" or a bad request: stop sending, read and drop what the client
  // still sends for a moment, then close. Closing with unread input would send a RST that
  // may destroy our last response before the client reads it.
  void linger_then_close();
  void drain_until_closed();
  void close();

  Worker& worker_;
  Socket socket_;
  proto::HttpRequestParser parser_;
  ResponseQueue queue_;
  std::string out_;               // the bytes of the write in flight
  std::unique_ptr<WsPlan> upgrade_;  // an accepted upgrade, until its 101 is written
  std::unique_ptr<EventStreamPlan> event_stream_;  // GET /events, until its head is written
  std::size_t in_flight_ = 0;     // queue slots covered by that write
  Nanos received_at_ = 0;         // when the kernel received the latest bytes read (kernel_receive_time.hpp)
  Timer linger_timer_;
  std::string first_bytes_;      // the start of a read too short to tell HTTP/2's preface from HTTP/1.1
  bool first_read_ = true;        // nothing consumed yet: it may be HTTP/2's preface
  bool reading_ = true;           // false once no further request will be read
  bool paused_ = false;           // too many responses owed: stop reading until they drain
  bool peer_done_sending_ = false;
  bool continue_sent_ = false;    // 100 Continue already queued for the request in progress
  bool writing_ = false;
  bool lingering_ = false;
  bool closed_ = false;
};

}  // namespace stampede::target
