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

struct PhoenixConnection {
  // One of the two, null once released.
  std::unique_ptr<WebSocketSession> ws;
  std::unique_ptr<LongPollSession> longpoll;
  std::shared_ptr<ChannelsSocket> phx;

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
};

}  // namespace stampede::clients
