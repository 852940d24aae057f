#include "target/phoenix_socket.hpp"

#include "proto/websocket_frame.hpp"
#include "target/channels_bus.hpp"
#include "target/channels_session.hpp"
#include "target/reply_text.hpp"

namespace stampede::target {

namespace phx = proto::phx;

phx::Message* PhoenixSocket::receive(std::string_view data, bool binary) {
  if (closed_) return nullptr;
  auto& message = bus_.decode_scratch();
  const auto error = phx::decode_into(data, binary, serializer_, phx::Direction::ClientToServer, message);
  if (!error.empty()) {
    fail(error);
    return nullptr;
  }
  bus_.stats().frames_received.add();
  if (message.topic == "phoenix" && message.event == "heartbeat") {
    bus_.stats().heartbeats.add();
    reply(std::nullopt, message.ref, message.topic, reply_text::kOk, reply_text::kEmpty);
    return nullptr;
  }
  return &message;
}

void PhoenixSocket::fail(std::string_view why) {
  closed_ = true;
  bus_.stats().socket_errors.add();
  sink_.close(proto::ws::close_code::kInternalError, why);
}

void PhoenixSocket::send(const phx::MessageView& message) {
  auto& frame = bus_.encode_scratch();
  const bool binary = phx::encode_into(message, serializer_, phx::Direction::ServerToClient, frame);
  sink_.send(frame, binary);
}

void PhoenixSocket::reply(const std::optional<std::string>& join_ref, const std::optional<std::string>& ref,
                          std::string_view topic, std::string_view status, std::string_view response_json) {
  const auto payload = phx::reply_payload(status, response_json);
  phx::MessageView message;
  message.join_ref = reply_text::view(join_ref);
  message.ref = reply_text::view(ref);
  message.topic = topic;
  message.event = "phx_reply";
  message.payload = payload;
  bus_.stats().replies_sent.add();
  send(message);
}

void PhoenixSocket::push(const std::optional<std::string>& join_ref, std::string_view topic, std::string_view event,
                         std::string_view payload_json) {
  phx::MessageView message;
  message.join_ref = reply_text::view(join_ref);
  message.topic = topic;
  message.event = event;
  message.payload = payload_json;
  bus_.stats().pushes_sent.add();
  send(message);
}

void PhoenixSocket::send_lifecycle(const std::optional<std::string>& join_ref, std::string_view topic,
                                   std::string_view event, std::string_view payload) {
  phx::MessageView message;
  message.join_ref = reply_text::view(join_ref);
  message.ref = reply_text::view(join_ref);
  message.topic = topic;
  message.event = event;
  message.payload = payload;
  send(message);
}

void PhoenixSocket::send_broadcast(const Broadcast& broadcast) {
  if (closed_) return;
  bus_.stats().broadcasts_delivered.add();
  const auto& frame = serializer_ == phx::Serializer::V1 ? broadcast.v1 : broadcast.v2;
  sink_.send(frame.data, frame.binary_frame);
}

}  // namespace stampede::target
