#pragma once
// One WebSocket client connection: the connection behind the Lua module stampede.websocket
// and under the Phoenix Channels client. Plain (ws://) or TLS (wss://), with
// permessage-deflate when offered and accepted.
//
// Life of a session (one connection; make a new session to reconnect):
//   Idle --connect()--> Connecting --101 checked--> Open --close()--> Closing --> Closed
//                           |                         |  peer's close frame, error --> Closed
//                           +--failure--> Closed (connect's `done` says why; on_close is not called)
//
// Callbacks run on the worker's thread, from the loop: never inside connect(), send_*() or
// close() themselves, and never after the session is destroyed (destroying it from inside
// one of its own callbacks is fine).
//
// Memory of an open, idle connection: the socket, this session's state and nothing else;
// reads go through the worker's shared buffer (ClientContext::read_buffer), the frame
// reader and the write queue give their buffers back when idle. permessage-deflate adds the
// zlib state of each direction once used (see proto/permessage_deflate.hpp: ~256 KiB to
// send, ~39 KiB to receive, with context takeover).
//
// Metrics (ids interned once per session):
//   ws.connect          Timing  TCP connect + TLS + upgrade, up to the checked 101
//   ws.connect.errors   Counter by reason (refused, timeout, reset, closed, tls, dns, fd, ports,
//                               url, protocol, handshake)
//   ws.disconnects      Counter by reason: "remote <code>" (the peer closed), "reset" / "closed" /
//                               "timeout" (the connection dropped), "protocol" / "too big" (the
//                               peer broke the protocol, found here or by the caller: see
//                               close()), or the reason the caller passed to close(). An ordinary
//                               close() without a reason is not a disconnect.
//   ws.messages         Counter data messages received
//   ws.messages.sent    Counter data messages sent
// The handshake is one request in the sink's tally: sent when the upgrade request is
// written (or at once when it fails before that), finished ok with the 101. A connect cut off
// by close() or the destructor stays in flight, as an HTTP request cut off does.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "clients/client_context.hpp"
#include "common/clock.hpp"
#include "proto/http_response_parser.hpp"
#include "proto/websocket_frame.hpp"

namespace stampede::clients {

class WebSocketSession {
 public:
  enum class State { Idle, Connecting, Open, Closing, Closed };

  struct ConnectOptions {
    // Sent with the upgrade request: Origin, Cookie, User-Agent (default "stampede/0.1"),
    // Authorization... A Host header replaces the URL's; a Sec-WebSocket-Protocol header is
    // taken as the list of subprotocols to offer. Other Sec-WebSocket-* and Upgrade /
    // Connection headers are refused: the handshake sets them.
    std::vector<std::pair<std::string, std::string>> headers;
    std::vector<std::string> subprotocols;  // offered, most preferred first
    Nanos timeout = 10 * kSecond;           // TCP connect + TLS + upgrade
    bool compression = false;               // offer permessage-deflate
    std::size_t max_message_bytes = 16 * 1024 * 1024;  // received, as sent and once inflated
    bool insecure = false;                  // skip TLS certificate verification
    Nanos close_timeout = 5 * kSecond;      // how long a close waits for the peer's close
    // Source addresses for this socket, instead of the run's --local-addresses (empty: the
    // run's). Taken in turn across the worker's sockets, as the run's are.
    std::vector<boost::asio::ip::address> local_addresses;
  };

  struct ConnectResult {
    // Empty on success. Otherwise a sentence for people and a one-word reason (see the
    // ws.connect.errors metric above). The sentence does not name the URL: the caller's
    // message does, once (a LiveView socket URL runs to hundreds of characters).
    std::string error;
    std::string error_reason;
    // Failed for want of file descriptors, source ports or socket memory on this machine
    // (transport::is_local_exhaustion): the VU backs off before its next iteration.
    bool local_exhaustion = false;
    int status = 0;                           // of the handshake response, 0 when none arrived
    std::vector<proto::HttpHeader> headers;   // of the handshake response
    std::string subprotocol;                  // the one the server chose, empty when none
    bool compressed = false;                  // permessage-deflate negotiated
    Nanos duration = 0;                       // what ws.connect recorded
    bool ok() const { return error.empty(); }
  };

  struct CloseInfo {
    // The close code of the peer's close frame (kNoStatus when it had none); for a
    // connection that ended without one, kAbnormal (1006); for a protocol violation by the
    // peer, the code we closed with (1002, 1007, 1009).
    std::uint16_t code = proto::ws::close_code::kAbnormal;
    // The close frame's reason; when the connection ended otherwise, a reason word: reset,
    // closed, timeout, tls, protocol, too big.
    std::string reason;
    bool clean = false;  // both sides exchanged close frames
    std::string error;   // when not clean: what happened, for people
  };

  struct Callbacks {
    std::function<void()> on_open;  // the handshake succeeded (called just before connect's done)
    // A text or binary message. `payload` is valid only during the call.
    std::function<void(proto::ws::Opcode opcode, std::string_view payload)> on_message;
    // Instead of on_message, for a caller that keeps messages: the payload handed over, so
    // a message assembled from many reads (or inflated) is held once, never copied.
    std::function<void(proto::ws::Opcode opcode, std::string&& payload)> on_message_kept;
    // The open connection ended: the peer's close, our close completing (or timing out),
    // a protocol error, or the transport failing. Called once.
    std::function<void(const CloseInfo&)> on_close;
  };

  WebSocketSession(ClientContext& ctx, Callbacks callbacks);
  // An open connection is told "going away" (1001) as the socket closes; nothing is
  // called back after this.
  ~WebSocketSession();
  WebSocketSession(const WebSocketSession&) = delete;
  WebSocketSession& operator=(const WebSocketSession&) = delete;

  // Opens the connection: `url` is ws:// or wss://. `done` is called once (unless the
  // session is destroyed first), from the loop. Throws std::logic_error when the session
  // was already connected once.
  void connect(std::string url, ConnectOptions options, std::function<void(ConnectResult)> done);

  // Queue a message. Several sends in a row go out in one socket write. Return false (and
  // send nothing) unless the connection is open.
  bool send_text(std::string_view text);
  bool send_binary(std::string_view bytes);

  // Starts the close handshake: sends a close frame, then waits up to close_timeout for the
  // peer's. on_close follows. `disconnect_reason`, when given, counts this close in
  // ws.disconnects (e.g. "heartbeat timeout"). Without one, a close with a code that says the
  // peer broke the protocol counts too, as the session's own finding would: 1002 (protocol
  // error) and 1007 (invalid payload) as "protocol", 1009 as "too big" (e.g. the Channels
  // client closing on a frame that is not valid Phoenix). While connecting, the attempt ends
  // instead (done gets reason "closed"). Does nothing once closing or closed. Throws
  // std::invalid_argument for a code no close frame may carry (kNoStatus sends none).
  void close(std::uint16_t code = proto::ws::close_code::kNormal, std::string_view reason = {},
             std::string_view disconnect_reason = {});
  // The scenario's own close (stampede.websocket's socket:close): as close(), but never
  // counted in ws.disconnects, whatever the code.
  void close_by_scenario(std::uint16_t code, std::string_view reason);

  bool is_open() const;
  State state() const;

 private:
  class Connection;
  std::shared_ptr<Connection> connection_;
};

}  // namespace stampede::clients
