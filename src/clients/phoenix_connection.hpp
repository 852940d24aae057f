#pragma once
// A Phoenix socket on its WebSocket: a ChannelsSocket (the protocol) wired to a
// WebSocketSession (the transport) one way, for channels.connect and for the LiveView client
// alike. Frames go up to the socket, its writes and closes down to the WebSocket; both sides
// hold each other only weakly, so whoever owns the connection decides when it ends.
//
//   auto connection = PhoenixConnection::make(ctx, channels_options);
//   connection->connect(url, ws_options, [](const WebSocketSession::ConnectResult& r) { ... });
//   connection->phx->join(...);
//   connection->release("the iteration ended");
#include <functional>
#include <memory>
#include <string>

#include "clients/channels_socket.hpp"
#include "clients/client_context.hpp"
#include "clients/websocket_session.hpp"

namespace stampede::clients {

struct PhoenixConnection {
  std::unique_ptr<WebSocketSession> ws;  // null once released
  std::shared_ptr<ChannelsSocket> phx;

  static std::shared_ptr<PhoenixConnection> make(ClientContext& ctx, ChannelsOptions options);

  // Opens the WebSocket at `url`; when it opens, the socket starts (its heartbeats) before
  // `done` is called.
  void connect(const std::string& url, WebSocketSession::ConnectOptions options,
               std::function<void(const WebSocketSession::ConnectResult&)> done);
  // Closes the socket (what is pending fails with `reason`) and drops the WebSocket.
  void release(const std::string& reason);
};

}  // namespace stampede::clients
