#include "target/phoenix_sender.hpp"

#include "target/channels_bus.hpp"
#include "target/channels_session.hpp"
#include "target/reply_text.hpp"

namespace stampede::target {

namespace phx = proto::phx;

void send_phoenix(ChannelsBus& bus, ChannelsSink& sink, phx::Serializer serializer, const phx::MessageView& message) {
  auto& frame = bus.encode_scratch();
  const bool binary = phx::encode_into(message, serializer, phx::Direction::ServerToClient, frame);
  sink.send(frame, binary);
}

void reply_phoenix(ChannelsBus& bus, ChannelsSink& sink, phx::Serializer serializer,
                   const std::optional<std::string>& join_ref, const std::optional<std::string>& ref,
                   std::string_view topic, std::string_view status, std::string_view response_json) {
  const auto payload = phx::reply_payload(status, response_json);
  phx::MessageView message;
  message.join_ref = reply_text::view(join_ref);
  message.ref = reply_text::view(ref);
  message.topic = topic;
  message.event = "phx_reply";
  message.payload = payload;
  bus.stats().replies_sent.add();
  send_phoenix(bus, sink, serializer, message);
}

}  // namespace stampede::target
