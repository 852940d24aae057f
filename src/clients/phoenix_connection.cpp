#include "clients/phoenix_connection.hpp"

#include <fmt/format.h>

#include "clients/phoenix_reconnect.hpp"
#include "clients/worker_timers.hpp"
#include "proto/phoenix_longpoll.hpp"

namespace stampede::clients {

std::optional<PhoenixTransport> phoenix_transport_named(std::string_view name) {
  if (name == "websocket") return PhoenixTransport::WebSocket;
  if (name == "longpoll") return PhoenixTransport::LongPoll;
  return std::nullopt;
}

struct PhoenixConnection::Reconnect {
  explicit Reconnect(metrics::MetricSink& sink)
      : reconnects(sink.id("channel.reconnects", metrics::Kind::Counter)),
        errors(sink.id("channel.reconnect.errors", metrics::Kind::Counter)) {}
  std::string url;                              // WebSocket only
  WebSocketSession::ConnectOptions options;     // WebSocket only
  PhoenixBackoff backoff{&phoenix_reconnect_after};
  WorkerTimer timer;  // the next try; cancelled with the connection
  metrics::MetricId reconnects;
  metrics::MetricId errors;
};

PhoenixConnection::PhoenixConnection() = default;
PhoenixConnection::~PhoenixConnection() = default;

namespace {

void make_websocket(PhoenixConnection& connection, ClientContext& ctx, std::weak_ptr<PhoenixConnection> weak) {
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
      const std::string reason =
          info.clean || !info.reason.empty() ? fmt::format("{} {}", info.code, info.reason) : info.error;
      if (c->reconnects && phx->is_open()) return c->on_lost(reason);
      phx->on_closed(reason);
    }
  };
  connection.ws = std::make_unique<WebSocketSession>(ctx, std::move(callbacks));
}

void make_longpoll(PhoenixConnection& connection, ClientContext& ctx, std::weak_ptr<PhoenixConnection> weak) {
  LongPollSession::Callbacks callbacks;
  // Every LongPoll message is a text frame: the server sends serialized frames as JSON strings.
  callbacks.on_message = [weak](std::string_view frame) {
    if (auto c = weak.lock()) {
      auto phx = c->phx;
      phx->on_frame(frame, false);
    }
  };
  callbacks.on_close = [weak](std::uint16_t code, const std::string& reason, const std::string& error) {
    if (auto c = weak.lock()) {
      auto phx = c->phx;
      const std::string why = fmt::format("{} {}: {}", code, reason, error);
      if (c->reconnects && phx->is_open()) return c->on_lost(why);
      phx->on_closed(why);
    }
  };
  connection.longpoll = std::make_unique<LongPollSession>(ctx, std::move(callbacks));
}

}  // namespace

std::shared_ptr<PhoenixConnection> PhoenixConnection::make(ClientContext& ctx, ChannelsOptions options,
                                                           PhoenixTransport transport) {
  auto connection = std::make_shared<PhoenixConnection>();
  connection->ctx = &ctx;
  connection->reconnects = options.reconnect;
  std::weak_ptr<PhoenixConnection> weak = connection;
  if (transport == PhoenixTransport::LongPoll) {
    options.one_line_frames = true;
    make_longpoll(*connection, ctx, weak);
  } else {
    make_websocket(*connection, ctx, weak);
  }
  connection->phx = std::make_shared<ChannelsSocket>(
      ctx, std::move(options),
      [weak](std::string_view data, bool binary) {
        auto c = weak.lock();
        if (!c) return;
        if (c->ws) {
          binary ? c->ws->send_binary(data) : c->ws->send_text(data);
        } else if (c->longpoll) {
          c->longpoll->send(data, binary);
        }
      },
      [weak](std::uint16_t code, std::string reason) {
        auto c = weak.lock();
        if (!c) return;
        // A heartbeat that went unanswered is the one close the WebSocket counts as an error.
        if (c->ws) c->ws->close(code, reason, reason == "heartbeat timeout" ? reason : std::string_view{});
        // LongPoll has no close handshake: phoenix.js just stops polling.
        if (c->longpoll) c->longpoll->close();
        if (c->reconnect) c->reconnect->timer.cancel();  // the socket is closing for good
      });
  return connection;
}

void PhoenixConnection::connect(const std::string& url, WebSocketSession::ConnectOptions options,
                                std::function<void(const WebSocketSession::ConnectResult&)> done) {
  auto opened = [phx = phx, done = std::move(done)](const WebSocketSession::ConnectResult& result) {
    if (result.ok()) phx->on_open();
    done(result);
  };
  if (reconnects && ws) {
    reconnect = std::make_unique<Reconnect>(ctx->sink);
    reconnect->url = url;
    reconnect->options = options;
  }
  if (longpoll) {
    LongPollSession::Options lp;
    lp.headers = std::move(options.headers);
    lp.connect_timeout = options.timeout;
    lp.insecure = options.insecure;
    longpoll->connect(proto::phx::longpoll::endpoint_from_websocket_url(url), std::move(lp), std::move(opened));
    return;
  }
  ws->connect(url, std::move(options), std::move(opened));
}

void PhoenixConnection::release(const std::string& reason) {
  auto keep = phx;  // alive while it fails what is pending
  keep->close(reason);
  reconnect.reset();
  ws.reset();
  longpoll.reset();
}

// --- reconnecting ---

void PhoenixConnection::on_lost(const std::string& reason) {
  if (!reconnect) reconnect = std::make_unique<Reconnect>(ctx->sink);
  // The WebSocket session is spent (one connection each); destroying it from its own
  // callback is fine. LongPoll keeps its session and reopens it.
  ws.reset();
  // Armed before the socket fails its calls: their callbacks may close it (cancelling this
  // timer) or release the connection (dropping it).
  ctx->timers().schedule(reconnect->timer, reconnect->backoff.next_try(ctx->clock.now()),
                         &PhoenixConnection::reconnect_due, this);
  const auto keep = shared_from_this();
  const auto socket = phx;
  socket->on_connection_lost(reason);
}

// The timer is a member: it cannot fire after the connection is gone.
void PhoenixConnection::reconnect_due(void* self) { static_cast<PhoenixConnection*>(self)->reconnect_now(); }

void PhoenixConnection::reconnect_now() {
  if (!reconnect || phx->is_closed()) return;
  std::weak_ptr<PhoenixConnection> weak = weak_from_this();
  auto done = [weak](const WebSocketSession::ConnectResult& result) {
    if (auto c = weak.lock()) c->on_reconnected(result);
  };
  if (longpoll) {
    longpoll->reopen(std::move(done));
    return;
  }
  make_websocket(*this, *ctx, weak);
  ws->connect(reconnect->url, reconnect->options, std::move(done));
}

void PhoenixConnection::on_reconnected(const WebSocketSession::ConnectResult& result) {
  if (!reconnect || phx->is_closed()) return;
  if (result.ok()) {
    reconnect->backoff.reset();
    ctx->sink.add(reconnect->reconnects);
    phx->on_open();  // rejoins its channels
    return;
  }
  ctx->sink.add_error(reconnect->errors, result.error_reason.empty() ? "failed" : result.error_reason);
  ws.reset();
  ctx->timers().schedule(reconnect->timer, reconnect->backoff.next_try(ctx->clock.now()),
                         &PhoenixConnection::reconnect_due, this);
}

}  // namespace stampede::clients
