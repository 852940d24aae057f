#include "proto/phoenix_message.hpp"

#include <string>

#include "proto/phoenix_json_reader.hpp"

namespace stampede::proto::phx {

using detail::JsonCursor;
using detail::JsonKind;
using detail::kReplyEvent;
using detail::note_reply;
using detail::Read;
using detail::read_any;
using detail::read_nullable_string;
using detail::read_reply_object;
using detail::read_string;
using detail::ReplyParts;
using detail::skip_value;

namespace {

// ---------------------------------------------------------------------------------------
// Decoders

std::string v2_count_error(std::size_t count) {
  return "a V2 frame is [join_ref, ref, topic, event, payload]: this one has " + std::to_string(count) +
         (count == 1 ? " element" : " elements");
}

// After element number `count`, a comma must follow (the five fields are not all read yet).
std::string expect_more(JsonCursor& in, std::size_t count) {
  if (in.take(',')) return {};
  if (in.take(']')) return v2_count_error(count);
  return in.error();
}

std::string decode_v2_text(std::string_view frame, Direction direction, Message& out) {
  JsonCursor in(frame);
  if (!in.take('[')) return "a V2 text frame must be a JSON array [join_ref, ref, topic, event, payload]";
  if (in.take(']')) return v2_count_error(0);
  const auto field = [&](Read r, const char* what) -> std::string {
    if (r == Read::BadJson) return in.error();
    if (r == Read::WrongType) return std::string(what);
    return {};
  };
  std::string e;
  if (!(e = field(read_nullable_string(in, out.join_ref), "join_ref must be a string or null")).empty()) return e;
  if (!(e = expect_more(in, 1)).empty()) return e;
  if (!(e = field(read_nullable_string(in, out.ref), "ref must be a string or null")).empty()) return e;
  if (!(e = expect_more(in, 2)).empty()) return e;
  if (!(e = field(read_string(in, out.topic), "topic must be a string")).empty()) return e;
  if (!(e = expect_more(in, 3)).empty()) return e;
  if (!(e = field(read_string(in, out.event), "event must be a string")).empty()) return e;
  if (!(e = expect_more(in, 4)).empty()) return e;

  std::string_view payload;
  if (direction == Direction::ServerToClient) {
    // The server only sends objects. A reply is read member by member to find its status.
    ReplyParts parts{&out.status};
    const bool reply = out.event == kReplyEvent;
    const Read r = reply ? read_reply_object(in, parts, payload) : [&] {
      JsonKind kind = JsonKind::Unknown;
      const Read any = read_any(in, kind, payload);
      return any == Read::Ok && kind != JsonKind::Object ? Read::WrongType : any;
    }();
    if (!(e = field(r, "the payload of a server message must be a JSON object")).empty()) return e;
    if (reply) note_reply(out, parts, payload);
  } else {
    JsonKind kind;
    if (read_any(in, kind, payload) != Read::Ok) return in.error();
  }
  // Phoenix ignores elements after the fifth; they must still be JSON.
  while (!in.take(']')) {
    if (!in.take(',') || skip_value(in) != Read::Ok) return in.error();
  }
  if (!in.at_end()) return "text after the JSON array of a V2 frame";
  out.payload.assign(payload);
  return {};
}

std::string decode_v1_text(std::string_view frame, Direction direction, Message& out) {
  JsonCursor in(frame);
  if (!in.take('{')) return "a V1 text frame must be a JSON object {topic, event, payload, ref}";
  bool has_topic = false, has_event = false, has_payload = false, has_ref = false;
  JsonKind payload_kind = JsonKind::Unknown;
  std::string_view payload;
  out.join_ref.reset();
  const auto field = [&](Read r, const char* what) -> std::string {
    if (r == Read::BadJson) return in.error();
    if (r == Read::WrongType) return std::string(what);
    return {};
  };
  if (!in.take('}')) {
    std::string key;
    for (;;) {
      if (read_string(in, key) != Read::Ok || !in.take(':')) return in.error();
      std::string e;
      if (key == "topic") {
        e = field(read_string(in, out.topic), "topic must be a string");
        has_topic = true;
      } else if (key == "event") {
        e = field(read_string(in, out.event), "event must be a string");
        has_event = true;
      } else if (key == "payload") {
        e = field(read_any(in, payload_kind, payload), "");
        has_payload = true;
      } else if (key == "ref") {
        e = field(read_nullable_string(in, out.ref), "ref must be a string or null");
        has_ref = true;
      } else if (key == "join_ref" && direction == Direction::ClientToServer) {
        e = field(read_nullable_string(in, out.join_ref), "join_ref must be a string or null");
      } else {
        e = field(skip_value(in), "");
      }
      if (!e.empty()) return e;
      if (in.take(',')) continue;
      if (in.take('}')) break;
      return in.error();
    }
  }
  if (!in.at_end()) return "text after the JSON object of a V1 frame";
  for (const auto& [present, name] : {std::pair{has_topic, "topic"}, std::pair{has_event, "event"},
                                      std::pair{has_payload, "payload"}, std::pair{has_ref, "ref"}}) {
    if (!present) return std::string("a V1 message needs topic, event, payload and ref: ") + name + " is missing";
  }
  if (direction == Direction::ServerToClient && payload_kind != JsonKind::Object) {
    return "the payload of a server message must be a JSON object";
  }
  out.payload.assign(payload);
  if (direction == Direction::ServerToClient && out.event == kReplyEvent) {
    // Keys come in any order in V1, so the event is only known now: read the payload again
    // for the reply's status (V1 is the rare, old serializer; V2 does this in one pass).
    JsonCursor reply(out.payload);
    ReplyParts parts{&out.status};
    std::string_view raw;
    if (read_reply_object(reply, parts, raw) == Read::Ok) note_reply(out, parts, out.payload);
  }
  return {};
}

std::uint8_t byte_at(std::string_view s, std::size_t i) { return static_cast<std::uint8_t>(s[i]); }

// Takes the header strings of a binary frame in order; false when the frame is too short.
class BinaryReader {
 public:
  BinaryReader(std::string_view frame, std::size_t header_size) : frame_(frame), pos_(header_size) {}
  bool take(std::size_t length, std::string_view& out) {
    if (frame_.size() - pos_ < length) return false;
    out = frame_.substr(pos_, length);
    pos_ += length;
    return true;
  }
  std::string_view rest() const { return frame_.substr(pos_); }

 private:
  std::string_view frame_;
  std::size_t pos_;
};

std::string short_frame(std::uint8_t kind) {
  return "binary frame of kind " + std::to_string(kind) + " is shorter than its header says";
}

// The server writes a nil join_ref or ref as an empty field; give it back as null.
void assign_server_ref(std::optional<std::string>& field, std::string_view text) {
  if (text.empty()) {
    field.reset();
  } else {
    field.emplace(text);
  }
}

std::string decode_binary(std::string_view frame, Direction direction, Message& out) {
  if (frame.empty()) return "empty binary frame";
  const std::uint8_t kind = byte_at(frame, 0);
  out.binary = true;
  std::string_view join_ref, ref, topic, event, status;
  if (direction == Direction::ClientToServer) {
    if (kind != 0) return "binary frame of kind " + std::to_string(kind) + ": a client may only send kind 0 (push)";
    if (frame.size() < 5) return short_frame(kind);
    BinaryReader r(frame, 5);
    if (!r.take(byte_at(frame, 1), join_ref) || !r.take(byte_at(frame, 2), ref) || !r.take(byte_at(frame, 3), topic) ||
        !r.take(byte_at(frame, 4), event)) {
      return short_frame(kind);
    }
    out.join_ref.emplace(join_ref);  // an empty join_ref stays "" on the server (§2.3)
    out.ref.emplace(ref);
    out.topic.assign(topic);
    out.event.assign(event);
    out.payload.assign(r.rest());
    return {};
  }
  switch (kind) {
    case 0: {  // push: no ref
      if (frame.size() < 4) return short_frame(kind);
      BinaryReader r(frame, 4);
      if (!r.take(byte_at(frame, 1), join_ref) || !r.take(byte_at(frame, 2), topic) || !r.take(byte_at(frame, 3), event)) {
        return short_frame(kind);
      }
      out.payload.assign(r.rest());
      break;
    }
    case 1: {  // reply
      if (frame.size() < 5) return short_frame(kind);
      BinaryReader r(frame, 5);
      if (!r.take(byte_at(frame, 1), join_ref) || !r.take(byte_at(frame, 2), ref) || !r.take(byte_at(frame, 3), topic) ||
          !r.take(byte_at(frame, 4), status)) {
        return short_frame(kind);
      }
      event = kReplyEvent;
      out.payload.assign(r.rest());
      break;
    }
    case 2: {  // broadcast: neither join_ref nor ref
      if (frame.size() < 3) return short_frame(kind);
      BinaryReader r(frame, 3);
      if (!r.take(byte_at(frame, 1), topic) || !r.take(byte_at(frame, 2), event)) return short_frame(kind);
      out.payload.assign(r.rest());
      break;
    }
    default:
      return "unknown binary frame kind " + std::to_string(kind);
  }
  assign_server_ref(out.join_ref, join_ref);
  assign_server_ref(out.ref, ref);
  out.topic.assign(topic);
  out.event.assign(event);
  out.status.assign(status);
  return {};
}
}  // namespace

std::string decode_into(std::string_view frame, bool binary_frame, Serializer serializer, Direction direction,
                        Message& out) {
  out.status.clear();
  out.response_offset = 0;
  out.response_length = 0;
  if (binary_frame) {
    if (serializer == Serializer::V1) return "V1 (vsn=1.0.0) has no binary frames";
    return decode_binary(frame, direction, out);
  }
  out.binary = false;
  return serializer == Serializer::V1 ? decode_v1_text(frame, direction, out) : decode_v2_text(frame, direction, out);
}

Decoded decode(std::string_view frame, bool binary_frame, Serializer serializer, Direction direction) {
  Message message;
  std::string error = decode_into(frame, binary_frame, serializer, direction, message);
  if (!error.empty()) return error;
  return message;
}

std::string_view reply_response(const Message& message) noexcept {
  if (message.event != kReplyEvent) return {};
  if (message.binary) return message.payload;
  if (message.response_offset + message.response_length > message.payload.size()) return {};
  return std::string_view(message.payload).substr(message.response_offset, message.response_length);
}

bool split_reply(std::string_view payload_json, std::string& status, std::string& response_json) {
  JsonCursor in(payload_json);
  std::string found_status;
  ReplyParts parts{&found_status};
  std::string_view raw;
  if (read_reply_object(in, parts, raw) != Read::Ok || !in.at_end()) return false;
  if (!parts.has_status || !parts.has_response) return false;
  status = std::move(found_status);
  response_json.assign(parts.response);
  return true;
}
}  // namespace stampede::proto::phx
