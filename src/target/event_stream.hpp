#pragma once
// The target's Server-Sent Events stream, GET /events: a text/event-stream response that
// never ends by itself, so that `stampede.sse` (and any EventSource) can be tried without a
// Node server. Query parameters:
//   rate=N     events per second on this connection (default 1, 0.01 to 1000)
//   count=N    events before the server ends the stream (default 0: never); a client
//              reconnects and, with Last-Event-ID, the numbering goes on where it stopped
//   retry=MS   sent first as `retry: MS`, the client's reconnection time
//   event=NAME the events' type (default none: "message")
// Each event is `id: <n>`, optional `event:`, and `data: {"n":<n>}`; n counts from 1, or from
// the request's numeric Last-Event-ID plus one. A comment line opens the stream so that the
// head and a first chunk leave at once.
//
// The connection (handed over by target::Connection once the head is written) only writes:
// what the client sends is read and dropped, and its end closes the stream.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.hpp"
#include "proto/http_request_parser.hpp"
#include "target/asio_types.hpp"

namespace stampede::target {

class Worker;

inline constexpr std::string_view kEventStreamPath = "/events";

struct EventStreamPlan {
  Nanos interval = kSecond;
  std::uint64_t count = 0;  // 0: endless
  std::optional<std::uint64_t> retry_ms;
  std::string type;
  std::uint64_t next_id = 1;
};

// The plan for a GET /events request, or an error sentence for a 400.
struct EventStreamAnswer {
  std::optional<EventStreamPlan> plan;
  std::string error;
};
EventStreamAnswer plan_event_stream(const proto::HttpRequest& request, std::string_view query);

// The response head and the stream's first bytes (the retry field, an opening comment).
std::string event_stream_head(const EventStreamPlan& plan);
// One event's bytes.
void append_event(std::string& out, const EventStreamPlan& plan, std::uint64_t id);

class EventStreamConnection final : public std::enable_shared_from_this<EventStreamConnection> {
 public:
  // `socket` has just been sent event_stream_head(plan).
  EventStreamConnection(Worker& worker, Socket socket, EventStreamPlan plan);
  void start();

 private:
  void arm();
  void send_next();
  void wait_readable();
  void close();

  Worker& worker_;
  Socket socket_;
  Timer timer_;
  EventStreamPlan plan_;
  std::uint64_t sent_ = 0;
  Nanos next_at_ = 0;
  std::string out_;
  bool writing_ = false;
  bool closed_ = false;
};

}  // namespace stampede::target
