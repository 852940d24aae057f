#pragma once
// A Phoenix socket's LongPoll transport, client side: what phoenix.js's LongPoll does over
// XMLHttpRequest, here over an HttpSession of its own. The decisions (which URL, what an
// answer means, how frames are batched) are LongPollCycle's; this file runs the requests:
//
//   connect: GET <endpoint>&  --> {"status":410,"token":T}: open; then, forever:
//   GET <endpoint>&token=T (held by the server up to its window, 10 s in Phoenix)
//     --> 200 + messages: each to on_message, GET again;  204: GET again
//   send(): frames queued in one loop turn go in one POST (application/x-ndjson, at most 100),
//     the next POST once the server answered the previous one.
//
// It stands where a WebSocketSession stands under the channels client (PhoenixConnection), so
// the socket's protocol (joins, pushes, replies) is the same code whatever the transport.
//
// Callbacks run from the loop, never inside connect(), send() or close(), and never after the
// session is destroyed (destroying it from inside one of its own callbacks is fine).
//
// Metrics:
//   longpoll.poll     Timing   each GET that got an answer (the first one included), from the
//                              request written to the last byte: mostly the server's hold
//   longpoll.errors   Counter  by reason: what ended the socket (LongPollCycle::Close's
//                              error_reason: session_gone, forbidden, server_error,
//                              unhandled_status, invalid_response, publish_failed, timeout,
//                              refused, reset, closed...)
// The first GET is one request in the sink's tally (as a WebSocket's upgrade is); the polls
// and POSTs after it are the socket's own traffic: the channel requests they carry are counted
// by the channels client. They stay out of http.request too.
//
// Memory of an open, idle socket: this state, the HttpSession's two keep-alive connections
// (the held GET's and the POSTs'), and no buffer.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "clients/client_context.hpp"
#include "clients/websocket_session.hpp"
#include "common/clock.hpp"

namespace stampede::clients {

class LongPollSession {
 public:
  struct Options {
    // Sent with every request: Cookie, Origin, User-Agent... (phoenix.js's XHR sends the
    // page's cookies; a LiveView socket needs them).
    std::vector<std::pair<std::string, std::string>> headers;
    Nanos connect_timeout = 10 * kSecond;  // the first GET
    // Every later request: phoenix.js's longpollerTimeout (20 s), longer than the server's
    // 10 s window so that an ordinary empty poll ends with 204, not with this timeout.
    Nanos poll_timeout = 20 * kSecond;
    bool insecure = false;  // skip TLS certificate verification
  };

  struct Callbacks {
    std::function<void(std::string_view frame)> on_message;  // valid only during the call
    // The socket ended by itself (not by close()): the server's session is gone, a request
    // failed, an answer made no sense. `code` and `reason` as phoenix.js closes; `error` a
    // sentence for people.
    std::function<void(std::uint16_t code, const std::string& reason, const std::string& error)> on_close;
  };

  // The same result a WebSocket connect gives: its error_reason is one of longpoll.errors'.
  using ConnectResult = WebSocketSession::ConnectResult;

  LongPollSession(ClientContext& ctx, Callbacks callbacks);
  ~LongPollSession();
  LongPollSession(const LongPollSession&) = delete;
  LongPollSession& operator=(const LongPollSession&) = delete;

  // `endpoint_url`: http(s)://host/socket/longpoll?params&vsn=2.0.0 (proto::phx::longpoll).
  // `done` is called once (unless the session is destroyed first). Throws std::logic_error
  // when called twice.
  void connect(std::string endpoint_url, Options options, std::function<void(ConnectResult)> done);
  // Queues a frame; false (nothing sent) unless open.
  bool send(std::string_view data, bool binary);
  // After the session ended by itself (on_close was called): connects again, as connect()
  // did, with a first GET without a token (a new server session). `done` as connect's.
  // Throws std::logic_error unless connect() was called before.
  void reopen(std::function<void(ConnectResult)> done);
  // Stops: requests in flight are abandoned (their connections closed), nothing is called
  // back. phoenix.js tells the server nothing either: its session ends when polls stop.
  void close();
  bool is_open() const;

 private:
  class Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace stampede::clients
