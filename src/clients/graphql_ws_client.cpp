#include "clients/graphql_ws_client.hpp"

#include <boost/asio/post.hpp>
#include <stdexcept>

#include "proto/duration.hpp"

namespace stampede::clients {

namespace gql = proto::gql;

namespace {
// graphql-ws closes with 4400 on a message it cannot accept; we do the same to a server.
constexpr std::uint16_t kBadRequest = 4400;
}  // namespace

GraphqlWsClient::GraphqlWsClient(ClientContext& ctx)
    : ctx_(ctx),
      inbox_(ctx, 1000),
      subscribe_metric_(ctx.sink.id("graphql.subscribe", metrics::Kind::Timing)),
      messages_metric_(ctx.sink.id("graphql.messages", metrics::Kind::Counter)),
      errors_metric_(ctx.sink.id("graphql.errors", metrics::Kind::Counter)) {}

GraphqlWsClient::~GraphqlWsClient() {
  done_ = nullptr;
  ws_.reset();  // an open connection is told "going away"
}

void GraphqlWsClient::connect(std::string url, Options options, std::function<void(ConnectResult)> done) {
  if (state_ != State::Idle) throw std::logic_error("a GraphqlWsClient connects once; make a new one to connect again");
  state_ = State::Connecting;
  options_ = std::move(options);
  inbox_.set_limit(options_.buffer_limit);
  done_ = std::move(done);
  WebSocketSession::ConnectOptions ws_options = options_.ws;
  ws_options.subprotocols.insert(ws_options.subprotocols.begin(), std::string(gql::subprotocol_name(options_.subprotocol)));
  std::weak_ptr<GraphqlWsClient> weak = weak_from_this();
  WebSocketSession::Callbacks callbacks;
  callbacks.on_message = [weak](proto::ws::Opcode opcode, std::string_view payload) {
    auto self = weak.lock();
    if (!self) return;
    if (opcode == proto::ws::Opcode::Binary) return self->protocol_error("the server sent a binary frame");
    self->on_frame(payload);
  };
  callbacks.on_close = [weak](const WebSocketSession::CloseInfo& info) {
    if (auto self = weak.lock()) self->on_closed(info);
  };
  ws_ = std::make_unique<WebSocketSession>(ctx_, std::move(callbacks));
  ws_->connect(std::move(url), std::move(ws_options), [weak](WebSocketSession::ConnectResult result) {
    auto self = weak.lock();
    if (!self || self->state_ != State::Connecting) return;
    self->pending_result_.status = result.status;
    self->pending_result_.local_exhaustion = result.local_exhaustion;
    if (!result.ok()) return self->fail_connect(result.error_reason, result.error);
    const std::string_view wanted = gql::subprotocol_name(self->options_.subprotocol);
    if (result.subprotocol != wanted) {
      self->ws_->close(proto::ws::close_code::kNormal, {}, "subprotocol");
      return self->fail_connect("subprotocol", "the server did not accept the subprotocol " + std::string(wanted) +
                                                   (result.subprotocol.empty() ? " (it chose none)"
                                                                               : " (it chose " + result.subprotocol + ")"));
    }
    self->on_open();
  });
}

void GraphqlWsClient::on_open() {
  std::string init;
  try {
    init = gql::encode_connection_init(options_.subprotocol, options_.init_payload_json);
  } catch (const std::invalid_argument& e) {
    ws_->close(proto::ws::close_code::kNormal);
    return fail_connect("payload", std::string("the connection_init payload cannot be sent: ") + e.what());
  }
  ws_->send_text(init);
  ctx_.timers().schedule_after(ack_timer_, options_.ack_timeout, &GraphqlWsClient::ack_timeout, this);
}

void GraphqlWsClient::ack_timeout(void* arg) {
  auto* self = static_cast<GraphqlWsClient*>(arg);
  const auto keep = self->shared_from_this();
  if (self->state_ != State::Connecting) return;
  self->ws_->close(proto::ws::close_code::kNormal, {}, "ack timeout");
  self->fail_connect("ack timeout", "no connection_ack within " + proto::format_duration(self->options_.ack_timeout) +
                                        " of connection_init");
}

void GraphqlWsClient::fail_connect(std::string reason, std::string what) {
  if (state_ != State::Connecting) return;
  ctx_.sink.add_error(errors_metric_, reason);
  ack_timer_.cancel();
  end(what, false);
  ConnectResult failed = std::move(pending_result_);
  failed.error = std::move(what);
  failed.error_reason = std::move(reason);
  if (auto done = std::exchange(done_, nullptr)) {
    boost::asio::post(ctx_.io, [weak = weak_from_this(), done = std::move(done), failed = std::move(failed)]() mutable {
      if (weak.lock()) done(std::move(failed));
    });
  }
}

void GraphqlWsClient::on_frame(std::string_view text) {
  const auto keep = shared_from_this();  // an await woken here may drop the owner
  gql::Decoded decoded = gql::decode_server_message(options_.subprotocol, text);
  if (auto* why = std::get_if<std::string>(&decoded)) return protocol_error(*why);
  gql::ServerMessage& m = std::get<gql::ServerMessage>(decoded);
  using Type = gql::ServerMessage::Type;
  switch (m.type) {
    case Type::ConnectionAck:
      if (state_ != State::Connecting) return;
      ack_timer_.cancel();
      state_ = State::Open;
      if (auto done = std::exchange(done_, nullptr)) {
        ConnectResult opened = std::move(pending_result_);
        opened.ack_payload = std::move(m.payload);
        done(std::move(opened));
      }
      return;
    case Type::ConnectionError:
      if (ws_) ws_->close(proto::ws::close_code::kNormal, {}, "connection_error");
      return fail_connect("connection_error", "the server refused connection_init: " + m.payload);
    case Type::KeepAlive:
    case Type::Pong:
      return;
    case Type::Ping:
      if (ws_) ws_->send_text(gql::encode_pong(options_.subprotocol));
      return;
    case Type::Next:
    case Type::Error:
    case Type::Complete:
      break;
  }
  if (state_ != State::Open) return;
  auto op = running_.find(m.id);
  if (op == running_.end()) return;  // an operation the client completed (or never started)
  GraphqlMessage message;
  message.id = m.id;
  message.payload = std::move(m.payload);
  if (m.type == Type::Next) {
    message.kind = GraphqlMessage::Kind::Next;
    ctx_.sink.add(messages_metric_);
    first_result(m.id, true);
  } else if (m.type == Type::Error) {
    message.kind = GraphqlMessage::Kind::Error;
    ctx_.sink.add_error(errors_metric_, "error");
    first_result(m.id, false);
    running_.erase(m.id);
  } else {
    message.kind = GraphqlMessage::Kind::Complete;
    first_result(m.id, true);
    running_.erase(m.id);
  }
  if (!inbox_.push(std::move(message))) ctx_.sink.add_error(errors_metric_, "dropped");
}

void GraphqlWsClient::first_result(const std::string& id, bool ok) {
  auto op = running_.find(id);
  if (op == running_.end() || op->second.answered) return;
  op->second.answered = true;
  ctx_.sink.record(subscribe_metric_, ctx_.clock.now() - op->second.sent_at);
  ctx_.sink.request_finished(ok);
}

void GraphqlWsClient::protocol_error(const std::string& why) {
  if (state_ == State::Closed) return;
  if (ws_) ws_->close(kBadRequest, "invalid message", "protocol");
  if (state_ == State::Connecting) return fail_connect("protocol", "the server sent an invalid message: " + why);
  ctx_.sink.add_error(errors_metric_, "protocol");
  end("the server sent an invalid message: " + why, true);
}

void GraphqlWsClient::on_closed(const WebSocketSession::CloseInfo& info) {
  const auto keep = shared_from_this();
  if (state_ == State::Closed) return;
  const std::string reason =
      info.clean ? "closed " + std::to_string(info.code) : (info.reason.empty() ? std::string("closed") : info.reason);
  const std::string what = info.clean ? "the server closed the connection (" + std::to_string(info.code) +
                                            (info.reason.empty() ? "" : " " + info.reason) + ")"
                                      : "the connection dropped: " + info.error;
  if (state_ == State::Connecting) return fail_connect(reason, what);
  ctx_.sink.add_error(errors_metric_, reason);
  end(what, true);
}

void GraphqlWsClient::end(std::string reason, bool count_operations) {
  if (state_ == State::Closed) return;
  state_ = State::Closed;
  closed_reason_ = std::move(reason);
  ack_timer_.cancel();
  if (count_operations) {
    for (const auto& [id, op] : running_) {
      if (!op.answered) ctx_.sink.request_finished(false);
    }
  }
  running_.clear();
  inbox_.close();
}

std::string GraphqlWsClient::subscribe(const gql::Operation& operation) {
  if (state_ != State::Open) {
    throw std::logic_error(closed_reason_.empty() ? "the connection is not open" : "the connection closed: " + closed_reason_);
  }
  std::string id = std::to_string(next_id_ + 1);
  const std::string message = gql::encode_subscribe(options_.subprotocol, id, operation);  // throws before anything changes
  ++next_id_;
  ws_->send_text(message);
  ctx_.sink.request_sent();
  running_.emplace(id, Operation{ctx_.clock.now(), false});
  return id;
}

void GraphqlWsClient::complete(const std::string& id) {
  auto op = running_.find(id);
  if (op == running_.end() || state_ != State::Open) return;
  // Cut off before its first result: in flight, as a request cut off is.
  running_.erase(op);
  ws_->send_text(gql::encode_complete(options_.subprotocol, id));
}

bool GraphqlWsClient::finished(const std::string& id) const { return running_.find(id) == running_.end(); }

void GraphqlWsClient::close() {
  if (state_ == State::Closed) return;
  closing_by_scenario_ = true;
  if (ws_ && state_ == State::Open && options_.subprotocol == gql::Subprotocol::GraphqlWs) {
    ws_->send_text(gql::encode_connection_terminate(options_.subprotocol));
  }
  if (ws_) ws_->close_by_scenario(proto::ws::close_code::kNormal, {});
  const bool connecting = state_ == State::Connecting;
  end("closed by the scenario", false);
  if (connecting) done_ = nullptr;
}

}  // namespace stampede::clients
