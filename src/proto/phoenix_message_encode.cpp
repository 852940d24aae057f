#include "proto/phoenix_message.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "proto/json_string.hpp"

namespace stampede::proto::phx {
namespace {

constexpr std::string_view kReplyEvent = "phx_reply";

bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// ---------------------------------------------------------------------------------------
// Encoders

void append_nullable(std::string& out, const std::optional<std::string_view>& s, const char* what) {
  if (s) {
    append_json_string(out, *s, what);
  } else {
    out += "null";
  }
}

// Payloads are spliced in unparsed (the hot path); catch only what is cheap to catch.
void check_text_payload(std::string_view payload, Direction direction) {
  std::size_t i = 0;
  while (i < payload.size() && is_json_space(payload[i])) ++i;
  if (i == payload.size()) throw std::invalid_argument("a text frame's payload must be JSON text, not empty");
  if (direction == Direction::ServerToClient && payload[i] != '{') {
    throw std::invalid_argument("a server message's payload must be a JSON object");
  }
}

void encode_v2_text(const MessageView& m, std::string& out) {
  out.reserve(m.payload.size() + m.topic.size() + m.event.size() + 32);
  out.push_back('[');
  append_nullable(out, m.join_ref, "join_ref");
  out.push_back(',');
  append_nullable(out, m.ref, "ref");
  out.push_back(',');
  append_json_string(out, m.topic, "topic");
  out.push_back(',');
  append_json_string(out, m.event, "event");
  out.push_back(',');
  out.append(m.payload);
  out.push_back(']');
}

void encode_v1_text(const MessageView& m, Direction direction, std::string& out) {
  out.reserve(m.payload.size() + m.topic.size() + m.event.size() + 64);
  out += "{\"topic\":";
  append_json_string(out, m.topic, "topic");
  out += ",\"event\":";
  append_json_string(out, m.event, "event");
  out += ",\"payload\":";
  out.append(m.payload);
  out += ",\"ref\":";
  append_nullable(out, m.ref, "ref");
  // Phoenix never sends join_ref to a V1 client; a V1 client may send it.
  if (direction == Direction::ClientToServer && m.join_ref) {
    out += ",\"join_ref\":";
    append_json_string(out, *m.join_ref, "join_ref");
  }
  out.push_back('}');
}

char length_byte(std::string_view s, const char* what) {
  if (s.size() > 255) {
    throw std::invalid_argument(std::string(what) + " is " + std::to_string(s.size()) +
                                " bytes; a binary frame allows at most 255");
  }
  return static_cast<char>(static_cast<std::uint8_t>(s.size()));
}

void encode_binary(const MessageView& m, Direction direction, std::string& out) {
  const std::string_view join_ref = m.join_ref.value_or(std::string_view{});
  const std::string_view ref = m.ref.value_or(std::string_view{});
  if (direction == Direction::ClientToServer) {
    const char header[] = {0, length_byte(join_ref, "join_ref"), length_byte(ref, "ref"), length_byte(m.topic, "topic"),
                           length_byte(m.event, "event")};
    out.reserve(sizeof header + join_ref.size() + ref.size() + m.topic.size() + m.event.size() + m.payload.size());
    out.append(header, sizeof header);
    out.append(join_ref).append(ref).append(m.topic).append(m.event).append(m.payload);
    return;
  }
  if (m.event == kReplyEvent) {
    const char header[] = {1, length_byte(join_ref, "join_ref"), length_byte(ref, "ref"), length_byte(m.topic, "topic"),
                           length_byte(m.status, "status")};
    out.reserve(sizeof header + join_ref.size() + ref.size() + m.topic.size() + m.status.size() + m.payload.size());
    out.append(header, sizeof header);
    out.append(join_ref).append(ref).append(m.topic).append(m.status).append(m.payload);
    return;
  }
  if (m.ref) throw std::invalid_argument("a server's binary push or broadcast has no ref field");
  if (m.join_ref) {
    const char header[] = {0, length_byte(join_ref, "join_ref"), length_byte(m.topic, "topic"), length_byte(m.event, "event")};
    out.reserve(sizeof header + join_ref.size() + m.topic.size() + m.event.size() + m.payload.size());
    out.append(header, sizeof header);
    out.append(join_ref).append(m.topic).append(m.event).append(m.payload);
    return;
  }
  const char header[] = {2, length_byte(m.topic, "topic"), length_byte(m.event, "event")};
  out.reserve(sizeof header + m.topic.size() + m.event.size() + m.payload.size());
  out.append(header, sizeof header);
  out.append(m.topic).append(m.event).append(m.payload);
}

}  // namespace

MessageView view_of(const Message& message) noexcept {
  MessageView v;
  if (message.join_ref) v.join_ref = *message.join_ref;
  if (message.ref) v.ref = *message.ref;
  v.topic = message.topic;
  v.event = message.event;
  v.payload = message.payload;
  v.binary = message.binary;
  v.status = message.status;
  return v;
}

bool encode_into(const MessageView& message, Serializer serializer, Direction direction, std::string& out) {
  out.clear();
  if (message.binary) {
    if (serializer == Serializer::V1) throw std::invalid_argument("V1 (vsn=1.0.0) cannot carry a binary payload");
    encode_binary(message, direction, out);
    return true;
  }
  check_text_payload(message.payload, direction);
  if (serializer == Serializer::V1) {
    encode_v1_text(message, direction, out);
  } else {
    encode_v2_text(message, out);
  }
  return false;
}

Frame encode(const Message& message, Serializer serializer, Direction direction) {
  Frame frame;
  frame.binary_frame = encode_into(view_of(message), serializer, direction, frame.data);
  return frame;
}

std::string reply_payload(std::string_view status, std::string_view response_json) {
  check_text_payload(response_json, Direction::ClientToServer);
  std::string out;
  out.reserve(status.size() + response_json.size() + 28);
  out += "{\"status\":";
  append_json_string(out, status, "status");
  out += ",\"response\":";
  out.append(response_json);
  out.push_back('}');
  return out;
}

}  // namespace stampede::proto::phx
