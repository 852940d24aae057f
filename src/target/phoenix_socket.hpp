#pragma once
// The socket layer both Phoenix-speaking sessions of the target share (ChannelsSession for
// /socket, LiveViewSession for /live): what Phoenix.Socket does for every channel of one
// WebSocket, whatever the channels are. It decodes each frame with the socket's serializer
// (an undecodable frame closes the socket with 1011, §1.8), answers heartbeats itself (§3.8),
// ends the socket with 1011 when a handler throws (as an exception in the socket process
// does), and encodes what the channels send: replies to a push's ref, pushes, and the
// phx_close / phx_error that end a channel. Frames in and out through a ChannelsSink; no
// sockets, no clocks.
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "proto/phoenix_message.hpp"

namespace stampede::target {

class ChannelsBus;
class ChannelsSink;
struct Broadcast;

class PhoenixSocket {
 public:
  PhoenixSocket(proto::phx::Serializer serializer, ChannelsBus& bus, ChannelsSink& sink)
      : bus_(bus), sink_(sink), serializer_(serializer) {}

  // One WebSocket message: decoded, then a heartbeat is answered here and any other message
  // handed to handle(message), in the bus's scratch message (which handle may move from).
  template <typename Handle>
  void handle_frame(std::string_view data, bool binary, Handle&& handle) {
    proto::phx::Message* message = receive(data, binary);
    if (message == nullptr) return;
    try {
      handle(*message);
    } catch (const std::exception& e) {
      // Whatever escaped a handler (a header string too long to encode, text that is not
      // UTF-8, memory) ends this socket and nothing else.
      fail(e.what());
    }
  }

  // Ends the socket with 1011; everything after it is ignored.
  void fail(std::string_view why);
  // The connection is gone: everything after it is ignored.
  void mark_closed() { closed_ = true; }
  bool closed() const { return closed_; }

  void send(const proto::phx::MessageView& message);
  // {"status": status, "response": response_json} for the push numbered `ref`.
  void reply(const std::optional<std::string>& join_ref, const std::optional<std::string>& ref, std::string_view topic,
             std::string_view status, std::string_view response_json);
  void push(const std::optional<std::string>& join_ref, std::string_view topic, std::string_view event,
            std::string_view payload_json);
  // phx_close / phx_error: both refs are the channel's join_ref (§3.4, §3.5).
  void send_lifecycle(const std::optional<std::string>& join_ref, std::string_view topic, std::string_view event,
                      std::string_view payload = "{}");
  // A broadcast the bus encoded once for every subscriber, in this socket's serializer.
  void send_broadcast(const Broadcast& broadcast);

 private:
  // The decoded message, or nullptr when there is nothing for the channels: the socket is
  // closed, the frame ended it, or it was a heartbeat (answered).
  proto::phx::Message* receive(std::string_view data, bool binary);

  ChannelsBus& bus_;
  ChannelsSink& sink_;
  proto::phx::Serializer serializer_;
  bool closed_ = false;
};

}  // namespace stampede::target
