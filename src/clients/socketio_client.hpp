#pragma once
// A Socket.IO v4 client (Engine.IO protocol 4, Socket.IO protocol 5), as socket.io-client 4
// runs one, over the WebSocket transport:
//
//   transport "websocket" (the default; socket.io-client's `transports: ["websocket"]`):
//     ws://host/socket.io/?EIO=4&transport=websocket, the server's open packet first.
//   transport "polling" (socket.io-client's default start): the open packet from a
//     long-polling GET (through the VU's HTTP client: it is an HTTP request like any other),
//     then the upgrade: the WebSocket with the sid, "2probe" -> "3probe", "5". Nothing else is
//     sent or polled over HTTP: polling only as far as the upgrade needs.
//
// Then each namespace is joined with a CONNECT packet (auth payload optional) and answered
// with CONNECT (its sid) or CONNECT_ERROR. Events, acknowledgements (ack ids from one
// counter per connection) and binary attachments ride in Engine.IO message packets; the
// server's pings ("2") are answered with pongs ("3"), and a ping that does not come within
// pingInterval + pingTimeout ends the connection ("ping timeout"), as socket.io-client does.
// The packets themselves are proto/engine_io.hpp's and proto/socket_io.hpp's.
//
// Disconnect reasons are socket.io-client's: "io server disconnect" (the server's DISCONNECT
// packet), "io client disconnect" (the scenario's), "ping timeout", "transport close" (the
// connection closed), "transport error" (it failed), "parse error" (a packet that cannot be
// decoded: the connection is closed).
//
// Metrics (beside the WebSocket's own ws.*):
//   socketio.connect   Timing   connect: to the first namespace's CONNECT; a namespace joined
//                               later: CONNECT sent to its answer
//   socketio.emit      Timing   an emit with an ack: sent to its ACK
//   socketio.messages  Counter  events received
//   socketio.errors    Counter  by reason: the WebSocket's connect reasons, handshake (no or
//                               a bad open packet), upgrade, connect_error (CONNECT_ERROR),
//                               ack timeout, dropped (the inbox was full), and the disconnect
//                               reasons above that the scenario did not cause
// A namespace CONNECT and an emit with an ack are each one request in the sink's tally.
#include <boost/json/value.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clients/client_context.hpp"
#include "clients/http_session.hpp"
#include "clients/message_inbox.hpp"
#include "clients/small_map.hpp"
#include "clients/websocket_session.hpp"
#include "proto/engine_io.hpp"
#include "proto/socket_io.hpp"

namespace stampede::clients {

// An event from the server, kept until the scenario reads it.
struct SocketIoEvent {
  std::uint64_t seq = 0;
  std::string nsp;
  std::string event;       // the event name (a number is kept as its decimal text)
  boost::json::array args;  // the arguments after the name; placeholders stand for attachments
  std::vector<std::string> attachments;
  std::optional<std::uint64_t> ack_id;  // the server waits for an ack (send_ack)
};

class SocketIoClient : public std::enable_shared_from_this<SocketIoClient> {
 public:
  enum class State { Idle, Connecting, Open, Closed };

  struct Options {
    std::string path = "/socket.io/";
    std::vector<std::pair<std::string, std::string>> query;  // added to the Engine.IO URL
    bool polling_handshake = false;  // transport "polling": open by long-polling, then upgrade
    WebSocketSession::ConnectOptions ws;
    Nanos timeout = 10 * kSecond;  // connect: the open packet (and the upgrade) and CONNECT
    std::size_t buffer_limit = 1000;
    std::size_t max_attachments = proto::sio::kDefaultMaxAttachments;
  };

  // The outcome of connect(), a namespace join or an ack.
  struct Result {
    std::string error;         // empty on success; a sentence without the URL
    std::string error_reason;  // its socketio.errors reason
    bool local_exhaustion = false;
    int status = 0;           // the WebSocket's (or polling GET's) response status
    std::string sid;          // CONNECT: the namespace's socket id
    boost::json::value data;  // CONNECT_ERROR: its data ({message, data}); ACK: the ack's arguments (an array)
    std::vector<std::string> attachments;  // ACK: its binary attachments
    bool ok() const { return error.empty(); }
  };
  using Done = std::function<void(Result)>;

  // `http`: the VU's HTTP client, for the polling handshake (may be null for "websocket").
  SocketIoClient(ClientContext& ctx, HttpSession* http);
  ~SocketIoClient();
  SocketIoClient(const SocketIoClient&) = delete;
  SocketIoClient& operator=(const SocketIoClient&) = delete;

  // Opens the connection and joins `nsp` with `auth_json` (a JSON object, empty: none).
  // `done` is called once, from the loop. `url` is http(s):// or ws(s):// (the scheme says TLS).
  void connect(std::string url, Options options, std::string nsp, std::string auth_json, Done done);
  // Joins another namespace on the open connection.
  void join(std::string nsp, std::string auth_json, Done done);

  // Sends an event. `args`: its arguments (placeholders for `attachments`). With `ack`, the
  // server's ACK (or a failure after `timeout`, or when the connection ends) goes to it.
  // Throws std::invalid_argument for arguments the packet cannot carry, std::logic_error when
  // the namespace is not connected.
  void emit(const std::string& nsp, const std::string& event, boost::json::array args,
            std::vector<std::string> attachments, Nanos timeout, Done ack);
  // Answers an event the server asked an ack for.
  void send_ack(const std::string& nsp, std::uint64_t id, boost::json::array args, std::vector<std::string> attachments);
  // Leaves a namespace (DISCONNECT; reason "io client disconnect").
  void leave(const std::string& nsp);
  // Leaves every namespace and closes the connection.
  void close();

  State state() const { return state_; }
  bool connected(const std::string& nsp) const;
  // Why the namespace (or, for a namespace never joined, the connection) ended; empty while it has not.
  std::string disconnect_reason(const std::string& nsp) const;
  MessageInbox<SocketIoEvent>& inbox() { return inbox_; }

 private:
  struct Namespace {
    enum class State { Joining, Connected, Disconnected } state = State::Joining;
    std::string sid;
    std::string reason;
    Nanos sent_at = 0;
    Done done;
  };
  struct PendingAck {
    std::uint64_t id = 0;
    std::string nsp;
    Nanos sent_at = 0;
    Done done;
    WorkerTimer timer;  // in a list node: never moves while armed
    SocketIoClient* client = nullptr;
    std::list<PendingAck>::iterator self;
  };

  void start_polling_handshake();
  void open_websocket(const std::string& sid);
  void on_ws_connected(WebSocketSession::ConnectResult result);
  void on_frame(std::string_view data, bool binary);
  void on_engine_packet(proto::eio::Packet& packet);
  void on_open_packet(const std::string& data);
  void on_socket_packet(proto::sio::Packet& packet);
  void engine_open();
  void send_packet(const proto::sio::Packet& packet);
  void send_engine(const proto::eio::Packet& packet);
  void arm_ping_deadline();
  static void ping_deadline(void* self);
  static void connect_deadline(void* self);
  static void ack_deadline(void* arg);
  void finish_join(const std::string& nsp, Result result);
  void fail_connect(std::string reason, std::string what);
  // The connection is over: every namespace disconnects with `reason`.
  void end(const std::string& reason, const std::string& what, bool counted);

  ClientContext& ctx_;
  HttpSession* http_;
  Options options_;
  State state_ = State::Idle;
  std::string base_url_;  // scheme://authority, as given
  bool tls_ = false;
  bool upgrading_ = false;  // polling: the probe was sent, its pong not yet seen
  std::string first_nsp_, first_auth_;
  Done connect_done_;
  Nanos started_ = 0;
  int status_ = 0;
  std::unique_ptr<WebSocketSession> ws_;
  proto::eio::Handshake handshake_;
  proto::sio::PacketDecoder decoder_;
  WorkerTimer ping_timer_;
  WorkerTimer connect_timer_;
  SmallMap<std::string, Namespace> namespaces_;
  std::list<PendingAck> acks_;
  std::uint64_t next_ack_id_ = 0;
  MessageInbox<SocketIoEvent> inbox_;
  std::string closed_reason_;
  metrics::MetricId connect_metric_, emit_metric_, messages_metric_, errors_metric_;
};

}  // namespace stampede::clients
