#pragma once
// Phoenix Channels messages and their serializers (see ../shared/phoenix-protocol.md §2):
//   V1 JSON  (vsn=1.0.0): {"topic","event","payload","ref"[, "join_ref"]} text frames
//   V2 JSON  (vsn=2.0.0): [join_ref, ref, topic, event, payload] text frames
//   V2 binary: kind 0 push (client->server has a ref, server->client has none),
//              kind 1 reply (server->client), kind 2 broadcast (server->client)
// Pure codecs: a decoder never throws on garbage, it returns an error sentence.
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace stampede::proto::phx {

enum class Serializer { V1, V2 };

struct Message {
  std::optional<std::string> join_ref;  // null on the wire when absent
  std::optional<std::string> ref;
  std::string topic;
  std::string event;
  // The payload as JSON text ("{}" at least), or raw bytes when `binary` (V2 binary frames).
  // For a binary reply (kind 1) the decoder sets event "phx_reply", `status`, and puts the
  // raw response bytes in `payload`.
  std::string payload = "{}";
  bool binary = false;
  std::string status;  // binary replies only: "ok", "error", ...
};

enum class Direction { ClientToServer, ServerToClient };

// Encodes one message as the frame the sender in `direction` would send.
// V2 + binary payload -> a binary frame (returned with `binary_frame` set); everything else
// is a text frame. Throws std::invalid_argument when a binary header string exceeds 255
// bytes or a V1 message carries a binary payload.
struct Frame {
  std::string data;
  bool binary_frame = false;
};
Frame encode(const Message& message, Serializer serializer, Direction direction);

// Decodes a frame received from the other side: `direction` is the direction the frame
// travelled. Returns the message, or an error sentence (invalid JSON, wrong shape, short
// binary header...).
using Decoded = std::variant<Message, std::string>;
Decoded decode(std::string_view frame, bool binary_frame, Serializer serializer, Direction direction);

// For replies: splits a JSON phx_reply payload {"status": s, "response": r} into s and r
// (r as JSON text). Returns false when the payload is not of that shape.
bool split_reply(std::string_view payload_json, std::string& status, std::string& response_json);

}  // namespace stampede::proto::phx
