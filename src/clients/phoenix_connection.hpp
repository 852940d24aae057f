#pragma once
// A Phoenix socket on its transport: a ChannelsSocket (the protocol) wired to a WebSocketSession
// or to a LongPollSession (the transport) one way, for channels.connect and for the LiveView
// client alike. Frames go up to the socket, its writes and closes down to the transport; both
// sides hold each other only weakly, so whoever owns the connection decides when it ends.
// This is the one seam between the two transports: the socket's protocol is the same code.
//
//   auto connection = PhoenixConnection::make(ctx, channels_options, PhoenixTransport::LongPoll);
//   connection->connect(websocket_url, ws_options, [](const WebSocketSession::ConnectResult& r) { ... });
//   connection->phx->join(...);
//   connection->release("the iteration ended");
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "clients/channels_socket.hpp"
#include "clients/client_context.hpp"
#include "clients/longpoll_session.hpp"
#include "clients/websocket_session.hpp"

namespace stampede::clients {

enum class PhoenixTransport { WebSocket, LongPoll };

// "websocket" or "longpoll" (the Lua `transport` option); nullopt for anything else.
std::optional<PhoenixTransport> phoenix_transport_named(std::string_view name);

struct PhoenixConnection : std::enable_shared_from_this<PhoenixConnection> {
  // One of the two, null once released (the WebSocket also while it reconnects).
  std::unique_ptr<WebSocketSession> ws;
  std::unique_ptr<LongPollSession> longpoll;
  std::shared_ptr<ChannelsSocket> phx;

  // With `options.reconnect`, a connection lost after the socket opened is not the socket's
  // end: as phoenix.js's Socket does, it connects again after reconnectAfterMs
  // (phoenix_reconnect.hpp), a LongPoll session with a fresh GET for a new token, a
  // WebSocket with a new session to the same URL; once open, the socket rejoins its channels
  // (ChannelsSocket::on_connection_lost). Counted in channel.reconnects and, per failed try,
  // channel.reconnect.errors; the loss itself in the transport's metrics (longpoll.errors,
  // ws.disconnects). A heartbeat timeout or a frame that is not Phoenix still ends the socket.
  static std::shared_ptr<PhoenixConnection> make(ClientContext& ctx, ChannelsOptions options,
                                                 PhoenixTransport transport = PhoenixTransport::WebSocket);

  // Opens the transport. `url` is the WebSocket URL phoenix.js's endPointURL() builds
  // (ws(s)://host/socket/websocket?params&vsn=...); LongPoll polls what normalizeEndpoint makes
  // of it (http(s)://host/socket/longpoll?...), with `options`' headers, timeout and insecure.
  // When it opens, the socket starts (its heartbeats) before `done` is called.
  void connect(const std::string& url, WebSocketSession::ConnectOptions options,
               std::function<void(const WebSocketSession::ConnectResult&)> done);
  // Closes the socket (what is pending fails with `reason`) and drops the transport.
  void release(const std::string& reason);

  // --- reconnecting (the transports' callbacks and the timer call these) ---
  void on_lost(const std::string& reason);
  static void reconnect_due(void* self);
  void reconnect_now();
  void on_reconnected(const WebSocketSession::ConnectResult& result);

  // What a reconnect needs beyond the transport: made when the socket connects (a WebSocket
  // keeps its URL and options for the next session) or when it is first lost (LongPoll
  // reopens its own session). Null unless `options.reconnect`.
  struct Reconnect;
  std::unique_ptr<Reconnect> reconnect;
  ClientContext* ctx = nullptr;
  bool reconnects = false;

  PhoenixConnection();
  ~PhoenixConnection();
};

}  // namespace stampede::clients
