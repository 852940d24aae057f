#pragma once
// How both Phoenix-speaking sessions of the target (channels, LiveView) put a message on
// their socket: encoded with the socket's serializer into the bus's scratch buffer, then
// handed to the connection; and the phx_reply both send for a push's ref.
#include <optional>
#include <string>
#include <string_view>

#include "proto/phoenix_message.hpp"

namespace stampede::target {

class ChannelsBus;
class ChannelsSink;

void send_phoenix(ChannelsBus& bus, ChannelsSink& sink, proto::phx::Serializer serializer,
                  const proto::phx::MessageView& message);

// {"status": status, "response": response_json} for the push numbered `ref`.
void reply_phoenix(ChannelsBus& bus, ChannelsSink& sink, proto::phx::Serializer serializer,
                   const std::optional<std::string>& join_ref, const std::optional<std::string>& ref,
                   std::string_view topic, std::string_view status, std::string_view response_json);

}  // namespace stampede::target
