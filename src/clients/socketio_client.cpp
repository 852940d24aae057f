// One Socket.IO connection, followed top to bottom: (polling: GET the open packet) -> the
// WebSocket -> (polling: probe, upgrade) or the open packet -> CONNECT the first namespace ->
// Open: Engine.IO frames decoded, pings answered, message packets reassembled into Socket.IO
// packets (with their attachments), events kept for await, acks matched by id. Everything
// runs on the worker's one thread: no locks.
#include "clients/socketio_client.hpp"

#include <boost/asio/post.hpp>
#include <boost/json/parse.hpp>
#include <stdexcept>

#include "clients/url_target.hpp"
#include "proto/duration.hpp"
#include "proto/form.hpp"

namespace stampede::clients {

namespace eio = proto::eio;
namespace sio = proto::sio;

namespace {

constexpr std::string_view kClientDisconnect = "io client disconnect";
constexpr std::string_view kServerDisconnect = "io server disconnect";

// The event name of an EVENT packet's first element (socket.io allows a number).
std::string event_name(const boost::json::value& v) {
  if (v.is_string()) return std::string(v.get_string());
  if (v.is_int64()) return std::to_string(v.get_int64());
  if (v.is_uint64()) return std::to_string(v.get_uint64());
  if (v.is_double()) return std::to_string(v.get_double());
  return {};
}

}  // namespace

SocketIoClient::SocketIoClient(ClientContext& ctx, HttpSession* http)
    : ctx_(ctx),
      http_(http),
      inbox_(ctx, 1000),
      connect_metric_(ctx.sink.id("socketio.connect", metrics::Kind::Timing)),
      emit_metric_(ctx.sink.id("socketio.emit", metrics::Kind::Timing)),
      messages_metric_(ctx.sink.id("socketio.messages", metrics::Kind::Counter)),
      errors_metric_(ctx.sink.id("socketio.errors", metrics::Kind::Counter)) {}

SocketIoClient::~SocketIoClient() {
  connect_done_ = nullptr;
  ws_.reset();  // an open connection is told "going away"
}

// ---- connecting ------------------------------------------------------------------------

void SocketIoClient::connect(std::string url, Options options, std::string nsp, std::string auth_json, Done done) {
  if (state_ != State::Idle) throw std::logic_error("a SocketIoClient connects once; make a new one to connect again");
  state_ = State::Connecting;
  options_ = std::move(options);
  inbox_.set_limit(options_.buffer_limit);
  decoder_ = sio::PacketDecoder(options_.max_attachments);
  first_nsp_ = std::move(nsp);
  first_auth_ = std::move(auth_json);
  connect_done_ = std::move(done);
  started_ = ctx_.clock.now();
  ctx_.timers().schedule_after(connect_timer_, options_.timeout, &SocketIoClient::connect_deadline, this);

  // ws(s):// is read as http(s)://: only the scheme's TLS and the authority matter here.
  if (url.rfind("ws://", 0) == 0) url = "http://" + url.substr(5);
  if (url.rfind("wss://", 0) == 0) url = "https://" + url.substr(6);
  UrlTarget target;
  std::string why;
  if (!parse_url_target(url, UrlSchemes::http, target, why)) return fail_connect("url", why);
  tls_ = target.tls;
  base_url_ = "://" + target.host_header;
  if (options_.polling_handshake) {
    if (http_ == nullptr) return fail_connect("url", "the polling handshake needs the VU's HTTP client");
    return start_polling_handshake();
  }
  open_websocket({});
}

void SocketIoClient::start_polling_handshake() {
  HttpRequest request;
  proto::FormFields query{{"EIO", std::to_string(eio::kProtocol)}, {"transport", "polling"}};
  for (const auto& q : options_.query) query.push_back(q);
  request.url = proto::append_query((tls_ ? "https" : "http") + base_url_ + options_.path, query);
  request.headers = options_.ws.headers;
  request.timeout = options_.timeout;
  request.insecure = options_.ws.insecure;
  std::weak_ptr<SocketIoClient> weak = weak_from_this();
  http_->request(std::move(request), [weak](HttpResponse&& response) {
    auto self = weak.lock();
    if (!self || self->state_ != State::Connecting) return;
    self->status_ = response.status;
    if (!response.error.empty()) return self->fail_connect(response.error_reason, "the polling handshake failed: " + response.error);
    if (response.status != 200) {
      return self->fail_connect("handshake", "the polling handshake was answered " + std::to_string(response.status) +
                                                 ": " + response.body.substr(0, 200));
    }
    std::vector<eio::Packet> packets;
    const std::string error = eio::decode_payload(response.body, packets);
    if (!error.empty() || packets.empty() || packets.front().type != eio::PacketType::Open) {
      return self->fail_connect("handshake", "the polling handshake did not start with an open packet" +
                                                 (error.empty() ? std::string() : ": " + error));
    }
    self->on_open_packet(packets.front().data);
  });
}

void SocketIoClient::open_websocket(const std::string& sid) {
  proto::FormFields query{{"EIO", std::to_string(eio::kProtocol)}, {"transport", "websocket"}};
  if (!sid.empty()) query.emplace_back("sid", sid);
  for (const auto& q : options_.query) query.push_back(q);
  const std::string url = proto::append_query((tls_ ? "wss" : "ws") + base_url_ + options_.path, query);
  std::weak_ptr<SocketIoClient> weak = weak_from_this();
  WebSocketSession::Callbacks callbacks;
  callbacks.on_message = [weak](proto::ws::Opcode opcode, std::string_view payload) {
    if (auto self = weak.lock()) self->on_frame(payload, opcode == proto::ws::Opcode::Binary);
  };
  callbacks.on_close = [weak](const WebSocketSession::CloseInfo& info) {
    auto self = weak.lock();
    if (!self) return;
    const bool failed = !info.clean && (info.reason == "reset" || info.reason == "timeout" || info.reason == "tls" ||
                                        info.reason == "protocol" || info.reason == "too big");
    const std::string what = info.clean ? "the server closed the connection (" + std::to_string(info.code) + ")"
                                        : "the connection ended: " + info.error;
    self->end(failed ? "transport error" : "transport close", what, false);
  };
  ws_ = std::make_unique<WebSocketSession>(ctx_, std::move(callbacks));
  WebSocketSession::ConnectOptions ws_options = options_.ws;
  ws_options.timeout = options_.timeout;
  ws_->connect(url, std::move(ws_options), [weak](WebSocketSession::ConnectResult result) {
    if (auto self = weak.lock()) self->on_ws_connected(std::move(result));
  });
}

void SocketIoClient::on_ws_connected(WebSocketSession::ConnectResult result) {
  if (state_ != State::Connecting) return;
  status_ = result.status;
  if (!result.ok()) return fail_connect(result.error_reason, result.error);
  if (!handshake_.sid.empty()) {
    // Polling: ask the server whether this WebSocket may carry the session.
    upgrading_ = true;
    send_engine(eio::Packet{eio::PacketType::Ping, "probe", false});
  }
  // websocket: the open packet comes first.
}

void SocketIoClient::on_open_packet(const std::string& data) {
  auto parsed = eio::parse_handshake(data);
  if (auto* why = std::get_if<std::string>(&parsed)) return fail_connect("handshake", "the open packet is invalid: " + *why);
  handshake_ = std::move(std::get<eio::Handshake>(parsed));
  if (!options_.polling_handshake) return engine_open();
  bool websocket = false;
  for (const auto& u : handshake_.upgrades) websocket = websocket || u == "websocket";
  if (!websocket) return fail_connect("upgrade", "the server does not offer the websocket upgrade");
  open_websocket(handshake_.sid);
}

// The Engine.IO session is open over the WebSocket: heartbeats start, the first namespace is joined.
void SocketIoClient::engine_open() {
  arm_ping_deadline();
  Namespace ns;
  ns.sent_at = started_;
  std::weak_ptr<SocketIoClient> weak = weak_from_this();
  ns.done = [weak](Result result) {
    auto self = weak.lock();
    if (!self) return;
    if (!result.ok()) {
      // The first namespace refused: the connection has no use (socket.io-client's Manager
      // closes once no socket is left).
      if (self->ws_) self->ws_->close(proto::ws::close_code::kNormal, {}, "connect_error");
      self->fail_connect(result.error_reason, result.error);
      return;
    }
    self->connect_timer_.cancel();
    self->state_ = State::Open;
    if (auto done = std::exchange(self->connect_done_, nullptr)) done(std::move(result));
  };
  namespaces_[first_nsp_] = std::move(ns);
  sio::Packet connect;
  connect.type = sio::PacketType::Connect;
  connect.nsp = first_nsp_;
  if (!first_auth_.empty()) {
    boost::system::error_code ec;
    auto auth = boost::json::parse(first_auth_, ec);
    if (ec || !auth.is_object()) return fail_connect("url", "the auth payload is not a JSON object");
    connect.data = std::move(auth);
  }
  ctx_.sink.request_sent();
  send_packet(connect);
}

void SocketIoClient::join(std::string nsp, std::string auth_json, Done done) {
  Result refused;
  if (state_ != State::Open) {
    refused.error = closed_reason_.empty() ? "the connection is not open" : "the connection closed: " + closed_reason_;
    refused.error_reason = "closed";
  } else if (auto it = namespaces_.find(nsp); it != namespaces_.end() && it->second.state != Namespace::State::Disconnected) {
    refused.error = "the namespace " + nsp + " is already joined on this connection";
    refused.error_reason = "joined";
  }
  sio::Packet connect;
  connect.type = sio::PacketType::Connect;
  connect.nsp = nsp;
  if (refused.ok() && !auth_json.empty()) {
    boost::system::error_code ec;
    auto auth = boost::json::parse(auth_json, ec);
    if (ec || !auth.is_object()) {
      refused.error = "the auth payload is not a JSON object";
      refused.error_reason = "url";
    } else {
      connect.data = std::move(auth);
    }
  }
  if (!refused.ok()) {
    boost::asio::post(ctx_.io, [done = std::move(done), refused = std::move(refused)]() mutable { done(std::move(refused)); });
    return;
  }
  Namespace ns;
  ns.sent_at = ctx_.clock.now();
  ns.done = std::move(done);
  namespaces_[nsp] = std::move(ns);
  ctx_.sink.request_sent();
  send_packet(connect);
  if (!connect_timer_.armed()) {
    ctx_.timers().schedule_after(connect_timer_, options_.timeout, &SocketIoClient::connect_deadline, this);
  }
}

void SocketIoClient::finish_join(const std::string& nsp, Result result) {
  auto it = namespaces_.find(nsp);
  if (it == namespaces_.end() || it->second.state != Namespace::State::Joining) return;
  Namespace& ns = it->second;
  Done done = std::move(ns.done);
  if (result.ok()) {
    ns.state = Namespace::State::Connected;
    ns.sid = result.sid;
    ctx_.sink.record(connect_metric_, ctx_.clock.now() - ns.sent_at);
    ctx_.sink.request_finished(true);
  } else {
    ns.state = Namespace::State::Disconnected;
    ns.reason = result.error_reason;
    ctx_.sink.request_finished(false);
    ctx_.sink.add_error(errors_metric_, result.error_reason);
  }
  bool joining = false;
  for (const auto& [name, other] : namespaces_) joining = joining || other.state == Namespace::State::Joining;
  if (!joining && state_ == State::Open) connect_timer_.cancel();
  if (done) done(std::move(result));
}

void SocketIoClient::connect_deadline(void* arg) {
  auto* self = static_cast<SocketIoClient*>(arg);
  const auto keep = self->shared_from_this();
  const std::string what = "no answer within " + proto::format_duration(self->options_.timeout);
  if (self->state_ == State::Connecting) {
    const bool engine_open = self->ping_timer_.armed();
    if (self->ws_) self->ws_->close(proto::ws::close_code::kNormal, {}, "timeout");
    return self->fail_connect("timeout", what + (engine_open ? " to CONNECT " + self->first_nsp_
                                                             : self->upgrading_ ? " to the upgrade probe"
                                                                                : " (waiting for the open packet)"));
  }
  std::vector<std::string> joining;
  for (const auto& [name, ns] : self->namespaces_) {
    if (ns.state == Namespace::State::Joining) joining.push_back(name);
  }
  for (const auto& name : joining) {
    Result failed;
    failed.error = what + " to CONNECT " + name;
    failed.error_reason = "timeout";
    self->finish_join(name, std::move(failed));
  }
}

void SocketIoClient::fail_connect(std::string reason, std::string what) {
  if (state_ != State::Connecting) return;
  // A namespace refusal was counted by finish_join; everything else is counted here.
  const auto first = namespaces_.find(first_nsp_);
  const bool counted = first != namespaces_.end() && first->second.state == Namespace::State::Disconnected;
  if (!counted) {
    ctx_.sink.add_error(errors_metric_, reason);
    if (first != namespaces_.end()) ctx_.sink.request_finished(false);  // its CONNECT was sent
  }
  end(reason, what, /*counted=*/true);
}

// ---- reading -----------------------------------------------------------------------------

void SocketIoClient::on_frame(std::string_view data, bool binary) {
  const auto keep = shared_from_this();  // an await woken here may drop the owner
  if (state_ == State::Closed) return;
  eio::Decoded decoded = eio::decode_frame(data, binary);
  if (auto* why = std::get_if<std::string>(&decoded)) {
    if (ws_) ws_->close(proto::ws::close_code::kNormal, {}, "parse error");
    if (state_ == State::Connecting) return fail_connect("parse error", "the server sent an invalid Engine.IO packet: " + *why);
    return end("parse error", "the server sent an invalid Engine.IO packet: " + *why, false);
  }
  on_engine_packet(std::get<eio::Packet>(decoded));
}

void SocketIoClient::on_engine_packet(eio::Packet& packet) {
  switch (packet.type) {
    case eio::PacketType::Open:
      if (state_ == State::Connecting && !options_.polling_handshake && handshake_.sid.empty()) on_open_packet(packet.data);
      return;
    case eio::PacketType::Ping:
      send_engine(eio::Packet{eio::PacketType::Pong, std::move(packet.data), false});
      arm_ping_deadline();
      return;
    case eio::PacketType::Pong:
      if (upgrading_ && packet.data == "probe") {
        upgrading_ = false;
        send_engine(eio::Packet{eio::PacketType::Upgrade, {}, false});
        engine_open();
      }
      return;
    case eio::PacketType::Close:
      if (ws_) ws_->close(proto::ws::close_code::kNormal);
      if (state_ == State::Connecting) return fail_connect("transport close", "the server closed the Engine.IO session");
      return end("transport close", "the server closed the Engine.IO session", false);
    case eio::PacketType::Noop:
    case eio::PacketType::Upgrade:
      return;
    case eio::PacketType::Message:
      break;
  }
  if (ping_timer_.armed() == false && handshake_.sid.empty()) return;  // before the open packet
  const sio::PacketDecoder::Step step = packet.binary ? decoder_.add_binary(packet.data) : decoder_.add_text(packet.data);
  if (step == sio::PacketDecoder::Step::NeedAttachments) return;
  if (step == sio::PacketDecoder::Step::Error) {
    const std::string what = "the server sent an invalid Socket.IO packet: " + decoder_.error();
    if (ws_) ws_->close(proto::ws::close_code::kNormal, {}, "parse error");
    if (state_ == State::Connecting) return fail_connect("parse error", what);
    return end("parse error", what, false);
  }
  on_socket_packet(decoder_.packet());
}

void SocketIoClient::on_socket_packet(sio::Packet& packet) {
  switch (packet.type) {
    case sio::PacketType::Connect: {
      Result joined;
      if (packet.data && packet.data->is_object()) {
        if (const auto* sid = packet.data->as_object().if_contains("sid"); sid != nullptr && sid->is_string()) {
          joined.sid = std::string(sid->get_string());
        }
      }
      return finish_join(packet.nsp, std::move(joined));
    }
    case sio::PacketType::ConnectError: {
      Result refused;
      refused.error_reason = "connect_error";
      std::string message;
      if (packet.data) {
        if (packet.data->is_string()) message = std::string(packet.data->get_string());
        if (packet.data->is_object()) {
          if (const auto* m = packet.data->as_object().if_contains("message"); m != nullptr && m->is_string()) {
            message = std::string(m->get_string());
          }
        }
        refused.data = std::move(*packet.data);
      }
      refused.error = "the server refused the namespace " + packet.nsp + (message.empty() ? "" : ": " + message);
      return finish_join(packet.nsp, std::move(refused));
    }
    case sio::PacketType::Disconnect: {
      auto it = namespaces_.find(packet.nsp);
      if (it == namespaces_.end() || it->second.state != Namespace::State::Connected) return;
      it->second.state = Namespace::State::Disconnected;
      it->second.reason = std::string(kServerDisconnect);
      ctx_.sink.add_error(errors_metric_, kServerDisconnect);
      // Its acks will not come.
      for (auto ack = acks_.begin(); ack != acks_.end();) {
        auto next = std::next(ack);
        if (ack->nsp == packet.nsp) {
          Result failed;
          failed.error = "the server disconnected the namespace " + packet.nsp;
          failed.error_reason = std::string(kServerDisconnect);
          Done done = std::move(ack->done);
          acks_.erase(ack);
          ctx_.sink.request_finished(false);
          if (done) done(std::move(failed));
        }
        ack = next;
      }
      // No namespace left: the connection has no use, and socket.io-client's Manager closes
      // it (so the transport's end that follows is not a second disconnect).
      bool any = false;
      for (const auto& [name, ns] : namespaces_) any = any || ns.state != Namespace::State::Disconnected;
      if (!any && state_ == State::Open) {
        if (ws_) ws_->close_by_scenario(proto::ws::close_code::kNormal, {});
        end(std::string(kServerDisconnect), "the server disconnected every namespace", /*counted=*/true);
      }
      return;
    }
    case sio::PacketType::Event:
    case sio::PacketType::BinaryEvent: {
      auto it = namespaces_.find(packet.nsp);
      if (it == namespaces_.end() || it->second.state != Namespace::State::Connected) return;  // socket.io-client drops it too
      ctx_.sink.add(messages_metric_);
      SocketIoEvent event;
      event.nsp = std::move(packet.nsp);
      event.ack_id = packet.id;
      event.attachments = std::move(packet.attachments);
      if (packet.data && packet.data->is_array()) {
        boost::json::array& array = packet.data->as_array();
        if (!array.empty()) {
          event.event = event_name(array.front());
          array.erase(array.begin());
        }
        event.args = std::move(array);
      }
      if (!inbox_.push(std::move(event))) ctx_.sink.add_error(errors_metric_, "dropped");
      return;
    }
    case sio::PacketType::Ack:
    case sio::PacketType::BinaryAck: {
      if (!packet.id) return;
      for (auto ack = acks_.begin(); ack != acks_.end(); ++ack) {
        if (ack->id != *packet.id || ack->nsp != packet.nsp) continue;
        ctx_.sink.record(emit_metric_, ctx_.clock.now() - ack->sent_at);
        ctx_.sink.request_finished(true);
        Result acked;
        acked.data = packet.data ? std::move(*packet.data) : boost::json::value(boost::json::array());
        acked.attachments = std::move(packet.attachments);
        Done done = std::move(ack->done);
        acks_.erase(ack);
        if (done) done(std::move(acked));
        return;
      }
      return;  // an ack after its timeout
    }
  }
}

// ---- heartbeats ---------------------------------------------------------------------------

void SocketIoClient::arm_ping_deadline() {
  const auto ms = handshake_.ping_interval_ms + handshake_.ping_timeout_ms;
  if (ms == 0) return;
  ctx_.timers().schedule_after(ping_timer_, static_cast<Nanos>(ms) * kMilli, &SocketIoClient::ping_deadline, this);
}

void SocketIoClient::ping_deadline(void* arg) {
  auto* self = static_cast<SocketIoClient*>(arg);
  const auto keep = self->shared_from_this();
  if (self->state_ == State::Closed) return;
  if (self->ws_) self->ws_->close(proto::ws::close_code::kNormal, {}, "ping timeout");
  const std::string what = "no ping from the server within pingInterval + pingTimeout (" +
                           std::to_string(self->handshake_.ping_interval_ms + self->handshake_.ping_timeout_ms) + " ms)";
  if (self->state_ == State::Connecting) return self->fail_connect("ping timeout", what);
  self->end("ping timeout", what, false);
}

// ---- writing -----------------------------------------------------------------------------

void SocketIoClient::send_engine(const eio::Packet& packet) {
  if (!ws_) return;
  eio::Frame frame = eio::encode_frame(packet);
  frame.binary_frame ? ws_->send_binary(frame.data) : ws_->send_text(frame.data);
}

void SocketIoClient::send_packet(const sio::Packet& packet) {
  send_engine(eio::Packet{eio::PacketType::Message, sio::encode(packet), false});
  for (const std::string& attachment : packet.attachments) {
    send_engine(eio::Packet{eio::PacketType::Message, attachment, true});
  }
}

void SocketIoClient::emit(const std::string& nsp, const std::string& event, boost::json::array args,
                          std::vector<std::string> attachments, Nanos timeout, Done ack) {
  if (!connected(nsp)) {
    const std::string why = disconnect_reason(nsp);
    throw std::logic_error("the namespace " + nsp + " is not connected" + (why.empty() ? "" : " (" + why + ")"));
  }
  sio::Packet packet;
  packet.type = sio::PacketType::Event;
  packet.nsp = nsp;
  args.insert(args.begin(), boost::json::string(event));
  packet.data = boost::json::value(std::move(args));
  packet.attachments = std::move(attachments);
  if (ack) packet.id = next_ack_id_;
  const std::string text = sio::encode(packet);  // throws before anything is sent
  send_engine(eio::Packet{eio::PacketType::Message, text, false});
  for (const std::string& attachment : packet.attachments) {
    send_engine(eio::Packet{eio::PacketType::Message, attachment, true});
  }
  if (!ack) return;
  ++next_ack_id_;
  ctx_.sink.request_sent();
  PendingAck& pending = acks_.emplace_back();
  pending.id = *packet.id;
  pending.nsp = nsp;
  pending.sent_at = ctx_.clock.now();
  pending.done = std::move(ack);
  pending.client = this;
  pending.self = std::prev(acks_.end());
  ctx_.timers().schedule_after(pending.timer, timeout, &SocketIoClient::ack_deadline, &pending);
}

void SocketIoClient::ack_deadline(void* arg) {
  auto* pending = static_cast<PendingAck*>(arg);
  SocketIoClient* self = pending->client;
  const auto keep = self->shared_from_this();
  Result failed;
  failed.error = "no ack within the timeout";
  failed.error_reason = "ack timeout";
  Done done = std::move(pending->done);
  self->acks_.erase(pending->self);
  self->ctx_.sink.request_finished(false);
  self->ctx_.sink.add_error(self->errors_metric_, "ack timeout");
  if (done) done(std::move(failed));
}

void SocketIoClient::send_ack(const std::string& nsp, std::uint64_t id, boost::json::array args,
                              std::vector<std::string> attachments) {
  if (!connected(nsp)) throw std::logic_error("the namespace " + nsp + " is not connected");
  sio::Packet packet;
  packet.type = sio::PacketType::Ack;
  packet.nsp = nsp;
  packet.id = id;
  packet.data = boost::json::value(std::move(args));
  packet.attachments = std::move(attachments);
  send_packet(packet);
}

// ---- endings -----------------------------------------------------------------------------

void SocketIoClient::leave(const std::string& nsp) {
  auto it = namespaces_.find(nsp);
  if (it == namespaces_.end() || it->second.state != Namespace::State::Connected) return;
  sio::Packet disconnect;
  disconnect.type = sio::PacketType::Disconnect;
  disconnect.nsp = nsp;
  send_packet(disconnect);
  it->second.state = Namespace::State::Disconnected;
  it->second.reason = std::string(kClientDisconnect);
  // Acks still awaited there are cut off: in flight, as a request cut off is.
  for (auto ack = acks_.begin(); ack != acks_.end();) {
    auto next = std::next(ack);
    if (ack->nsp == nsp) {
      Result failed;
      failed.error = "the scenario left the namespace " + nsp;
      failed.error_reason = std::string(kClientDisconnect);
      Done done = std::move(ack->done);
      acks_.erase(ack);
      if (done) done(std::move(failed));
    }
    ack = next;
  }
  bool any = false;
  for (const auto& [name, ns] : namespaces_) any = any || ns.state != Namespace::State::Disconnected;
  if (!any) close();  // socket.io-client's Manager closes once no socket is left
}

void SocketIoClient::close() {
  if (state_ == State::Closed) return;
  if (state_ == State::Open) {
    for (const auto& [name, ns] : namespaces_) {
      if (ns.state != Namespace::State::Connected) continue;
      sio::Packet disconnect;
      disconnect.type = sio::PacketType::Disconnect;
      disconnect.nsp = name;
      send_packet(disconnect);
    }
  }
  connect_done_ = nullptr;
  if (ws_) ws_->close_by_scenario(proto::ws::close_code::kNormal, {});
  end(std::string(kClientDisconnect), "closed by the scenario", true);
}

void SocketIoClient::end(const std::string& reason, const std::string& what, bool counted) {
  if (state_ == State::Closed) return;
  const auto keep = weak_from_this().lock();
  const bool was_connecting = state_ == State::Connecting;
  state_ = State::Closed;
  closed_reason_ = what;
  ping_timer_.cancel();
  connect_timer_.cancel();
  const bool by_scenario = reason == kClientDisconnect;
  if (!counted && !by_scenario) ctx_.sink.add_error(errors_metric_, reason);
  std::vector<Done> callbacks;
  for (auto& [name, ns] : namespaces_) {
    if (ns.state == Namespace::State::Joining) {
      if (!by_scenario && !counted) ctx_.sink.request_finished(false);
      if (ns.done) callbacks.push_back(std::move(ns.done));
    }
    if (ns.state != Namespace::State::Disconnected) {
      ns.state = Namespace::State::Disconnected;
      ns.reason = reason;
    }
  }
  auto acks = std::move(acks_);
  acks_.clear();
  for (PendingAck& ack : acks) {
    ack.timer.cancel();
    if (!by_scenario) ctx_.sink.request_finished(false);
    if (ack.done) callbacks.push_back(std::move(ack.done));
  }
  inbox_.close();
  for (Done& done : callbacks) {
    Result failed;
    failed.error = what;
    failed.error_reason = reason;
    done(std::move(failed));
  }
  if (!was_connecting) return;
  if (auto done = std::exchange(connect_done_, nullptr)) {
    Result failed;
    failed.error = what;
    failed.error_reason = reason;
    failed.status = status_;
    boost::asio::post(ctx_.io, [weak = weak_from_this(), done = std::move(done), failed = std::move(failed)]() mutable {
      if (weak.lock()) done(std::move(failed));
    });
  }
}

bool SocketIoClient::connected(const std::string& nsp) const {
  auto it = namespaces_.find(nsp);
  return state_ == State::Open && it != namespaces_.end() && it->second.state == Namespace::State::Connected;
}

std::string SocketIoClient::disconnect_reason(const std::string& nsp) const {
  auto it = namespaces_.find(nsp);
  if (it != namespaces_.end() && it->second.state == Namespace::State::Disconnected) return it->second.reason;
  return state_ == State::Closed ? closed_reason_ : std::string();
}

}  // namespace stampede::clients
