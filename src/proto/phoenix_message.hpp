#pragma once
// Phoenix Channels messages and their serializers (see ../shared/phoenix-protocol.md §2):
//   V1 JSON  (vsn=1.0.0): {"topic","event","payload","ref"[, "join_ref"]} text frames
//   V2 JSON  (vsn=2.0.0): [join_ref, ref, topic, event, payload] text frames
//   V2 binary: kind 0 push (client->server has a ref, server->client has none),
//              kind 1 reply (server->client), kind 2 broadcast (server->client)
// Pure codecs, symmetric: the client encodes ClientToServer and decodes ServerToClient, the
// built-in target does the opposite. A decoder never throws on garbage, it returns an error
// sentence.
//
// JSON payloads are kept as the exact text the peer sent (the substring of the frame), not
// re-serialized: decoding validates the whole frame in one pass without building a DOM, and
// encoding splices the payload text in without parsing it. Callers always get valid JSON.
//
// Written in: phoenix_message_decode.cpp (with phoenix_json_reader.hpp) and
// phoenix_message_encode.cpp.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace stampede::proto::phx {

enum class Serializer { V1, V2 };

enum class Direction { ClientToServer, ServerToClient };

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
  // phx_reply from the server: "ok", "error", ... Binary replies carry it in the header; for
  // JSON replies the decoder reads it from the payload in the same pass (empty when the payload
  // has no string "status"). The text encoders ignore it: a JSON reply's status is in `payload`
  // (see reply_payload).
  std::string status;
  // JSON phx_reply from the server: where the "response" value sits inside `payload`, so the
  // response is available without parsing the payload again. Read it with reply_response().
  std::size_t response_offset = 0;
  std::size_t response_length = 0;
};

// A non-owning Message, which is what the encoder reads: a load generator builds one per push
// from strings it already holds, so encoding copies each byte once, into the frame.
struct MessageView {
  std::optional<std::string_view> join_ref;
  std::optional<std::string_view> ref;
  std::string_view topic;
  std::string_view event;
  std::string_view payload = "{}";
  bool binary = false;
  std::string_view status;  // binary replies (server->client, event "phx_reply") only
};
MessageView view_of(const Message& message) noexcept;

// Encodes one message as the frame the sender in `direction` would send.
// V2 + binary payload -> a binary frame (returned with `binary_frame` set); everything else
// is a text frame. Binary frames: ClientToServer is kind 0 with the 5-byte header (a null
// join_ref or ref is written empty, as Phoenix does); ServerToClient is kind 1 for
// "phx_reply" (with `status`), kind 0 for a push with a join_ref, kind 2 for a broadcast
// (no join_ref). V1 ServerToClient never writes join_ref (Phoenix does not).
// Throws std::invalid_argument when a binary header string exceeds 255 bytes, a V1 message
// carries a binary payload, a server binary push or broadcast carries a ref (there is no room
// for it), a text payload is empty or (server to client) not a JSON object, or a header
// string is not valid UTF-8 in a text frame.
struct Frame {
  std::string data;
  bool binary_frame = false;
};
Frame encode(const Message& message, Serializer serializer, Direction direction);
// The same into `out` (replaced; its capacity is reused, so a per-connection buffer makes
// encoding allocation-free). Returns true when the frame is binary.
bool encode_into(const MessageView& message, Serializer serializer, Direction direction, std::string& out);

// Decodes a frame received from the other side: `direction` is the direction the frame
// travelled. Returns the message, or an error sentence (invalid JSON, wrong shape, short
// binary header...). What is accepted:
//   V1 ClientToServer: an object with topic, event (strings), payload (any JSON) and ref
//     (string or null); join_ref optional (string or null). Unknown keys are ignored.
//   V1 ServerToClient: the same with payload an object; join_ref is ignored (Phoenix never
//     sends it to V1 clients).
//   V2 text: an array of at least 5 elements (extra ones are ignored, as Phoenix does):
//     join_ref and ref strings or null, topic and event strings, payload any JSON value from a
//     client and an object from the server.
//   V2 binary ClientToServer: kind 0 only; an empty join_ref or ref field stays "" (that is
//     what the server sees, §2.3). ServerToClient: kinds 0, 1 and 2; an empty join_ref or ref
//     field decodes as null (the server writes nil as "", and phoenix.js routes "" as null).
using Decoded = std::variant<Message, std::string>;
Decoded decode(std::string_view frame, bool binary_frame, Serializer serializer, Direction direction);
// The same into `out`, whose strings keep their capacity between calls. Returns an empty
// string on success, else the error sentence (and `out` is unspecified).
std::string decode_into(std::string_view frame, bool binary_frame, Serializer serializer, Direction direction,
                        Message& out);

// The response of a decoded phx_reply: the raw bytes of a binary reply, the JSON text of the
// "response" value of a JSON reply, empty for anything else.
std::string_view reply_response(const Message& message) noexcept;

// For replies: splits a JSON phx_reply payload {"status": s, "response": r} into s and r
// (r as the exact JSON text). Returns false when the payload is not of that shape.
bool split_reply(std::string_view payload_json, std::string& status, std::string& response_json);

// The other way, for a server: {"status":status,"response":response_json}, the response
// spliced in unparsed. Throws std::invalid_argument when status is not valid UTF-8 or
// response_json is empty.
std::string reply_payload(std::string_view status, std::string_view response_json);

}  // namespace stampede::proto::phx
