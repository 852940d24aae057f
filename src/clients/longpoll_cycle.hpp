#pragma once
// What phoenix.js's LongPoll (assets/js/phoenix/longpoll.js, 1.8.16) decides, as a state
// machine over plain data: which URL to poll, what each poll answer means, how outgoing
// frames are batched into POSTs and what a POST's answer means. No sockets, no clocks, no
// timers: clients/longpoll_session.cpp runs the HTTP requests and feeds their outcomes here,
// and the unit tests feed them by hand.
//
//   Connecting --poll: 410 + token--> Open --poll: 200 (messages) / 204--> Open (poll again)
//        |                              |--poll: 410 (the token is gone)------> Closed 3410 session_gone
//        |                              |--poll: 403 -> 1008, 500 / no JSON -> 1011, timeout -> 1005
//        +--any of those-------------> Closed (the connect fails)
//   Closed --reopen()--> Connecting (no token: a new session), as the socket reconnects
//   Frames queue while a POST is in flight and go in the next one, at most 100 per POST
//   (MAX_LONGPOLL_BATCH_SIZE); a POST answered with anything but {"status":200} closes 1011.
//
// Where phoenix.js differs from what a load tester can do, this does what a user would want
// to see counted: an unknown poll status makes phoenix.js throw and stop polling (the socket
// hangs); here it closes with reason "unhandled_status".
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::clients {

class LongPollCycle {
 public:
  enum class State { Connecting, Open, Closed };

  // Why the socket ended, as phoenix.js closes it, and as longpoll.errors counts it.
  struct Close {
    std::uint16_t code = 0;  // 3410, 1008, 1011, 1005 (the close event phoenix.js emits)
    std::string reason;      // the close reason phoenix.js gives: session_gone, forbidden, ...
    // One word for longpoll.errors: session_gone, forbidden, server_error, unhandled_status,
    // invalid_response, publish_failed, or the HTTP client's reason (timeout, refused, reset...).
    std::string error_reason;
    std::string message;     // a sentence for people
    int status = 0;          // the status that ended it (the body's, else HTTP's), 0 when none
  };

  struct PollResult {
    bool opened = false;                 // this answer opened the socket (410 with a new token)
    std::vector<std::string> messages;   // serialized frames to deliver, oldest first
    std::optional<Close> close;          // set: the socket is closed, poll no more
  };

  // `endpoint_url`: proto::phx::longpoll's endpoint URL (the params and vsn in its query).
  explicit LongPollCycle(std::string endpoint_url) : endpoint_(std::move(endpoint_url)) {}

  State state() const { return state_; }
  const std::optional<std::string>& token() const { return token_; }
  // The URL of the next GET (and of every POST): the token once the server gave one.
  std::string request_url() const;

  // A GET ended. `failure` is the HTTP client's one-word reason when no response arrived
  // (then `body` is ignored); the HTTP status is reported but, as in phoenix.js, only the
  // body's "status" decides.
  PollResult on_poll(int http_status, std::string_view body, std::string_view failure = {});

  // Queues one frame for the server (a binary one goes as base64, as phoenix.js sends an
  // ArrayBuffer; a text one must hold no line break: ChannelsOptions::one_line_frames). Returns true when the caller should schedule a flush (phoenix.js: setTimeout
  // 0): nothing is in flight and no flush was scheduled. False also once closed.
  bool queue(std::string_view frame, bool binary);
  // The next POST body (up to 100 frames joined by "\n"), or nullopt when nothing is queued,
  // a POST is in flight, or the socket is not open. Marks a POST in flight.
  std::optional<std::string> take_batch();
  // A POST ended (as on_poll). nullopt: fine, take_batch() may have more; else the close.
  std::optional<Close> on_publish(int http_status, std::string_view body, std::string_view failure = {});

  // The caller closed the socket: nothing more is polled or sent.
  void close();
  // Connecting again once closed, as phoenix.js's Socket does with a new LongPoll: without a
  // token, so the server opens a new session (410 + token). Nothing queued carries over.
  void reopen();

 private:
  Close end(std::uint16_t code, std::string reason, std::string error_reason, std::string message, int status);

  std::string endpoint_;
  std::optional<std::string> token_;
  State state_ = State::Connecting;
  // Frames not yet in a POST (a vector: libstdc++'s deque allocates ~500 bytes when made,
  // and an idle socket should own nothing).
  std::vector<std::string> outgoing_;
  bool publishing_ = false;           // a POST is in flight
  bool flush_scheduled_ = false;
};

}  // namespace stampede::clients
