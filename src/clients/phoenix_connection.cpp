#include "clients/phoenix_connection.hpp"

#include <fmt/format.h>

namespace stampede::clients {

std::shared_ptr<PhoenixConnection> PhoenixConnection::make(ClientContext& ctx, ChannelsOptions options) {
  auto connection = std::make_shared<PhoenixConnection>();
  std::weak_ptr<PhoenixConnection> weak = connection;
  WebSocketSession::Callbacks callbacks;
  callbacks.on_message = [weak](proto::ws::Opcode opcode, std::string_view payload) {
    if (auto c = weak.lock()) {
      auto phx = c->phx;  // alive while it may close itself
      phx->on_frame(payload, opcode == proto::ws::Opcode::Binary);
    }
  };
  callbacks.on_close = [weak](const WebSocketSession::CloseInfo& info) {
    if (auto c = weak.lock()) {
      auto phx = c->phx;
      phx->on_closed(info.clean || !info.reason.empty() ? fmt::format("{} {}", info.code, info.reason) : info.error);
    }
  };
  connection->ws = std::make_unique<WebSocketSession>(ctx, std::move(callbacks));
  connection->phx = std::make_shared<ChannelsSocket>(
      ctx, std::move(options),
      [weak](std::string data, bool binary) {
        if (auto c = weak.lock(); c && c->ws) binary ? c->ws->send_binary(data) : c->ws->send_text(data);
      },
      [weak](std::uint16_t code, std::string reason) {
        // A heartbeat that went unanswered is the one close the WebSocket counts as an error.
        if (auto c = weak.lock(); c && c->ws)
          c->ws->close(code, reason, reason == "heartbeat timeout" ? reason : std::string_view{});
      });
  return connection;
}

void PhoenixConnection::connect(const std::string& url, WebSocketSession::ConnectOptions options,
                                std::function<void(const WebSocketSession::ConnectResult&)> done) {
  ws->connect(url, std::move(options),
              [phx = phx, done = std::move(done)](WebSocketSession::ConnectResult result) {
                if (result.ok()) phx->on_open();
                done(result);
              });
}

void PhoenixConnection::release(const std::string& reason) {
  auto keep = phx;  // alive while it fails what is pending
  keep->close(reason);
  ws.reset();
}

}  // namespace stampede::clients
