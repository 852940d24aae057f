#include "proto/engine_io.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <cmath>
#include <stdexcept>

#include "proto/base64.hpp"
#include "proto/json_string.hpp"

namespace stampede::proto::eio {
namespace {

namespace json = boost::json;

constexpr char kBase64Prefix = 'b';
constexpr std::uint64_t kMaxSafeInteger = (std::uint64_t{1} << 53) - 1;  // Number.MAX_SAFE_INTEGER

char type_digit(PacketType type) { return static_cast<char>('0' + static_cast<int>(type)); }

std::optional<PacketType> type_of_digit(char c) {
  if (c < '0' || c > '6') return std::nullopt;
  return static_cast<PacketType>(c - '0');
}

void check_binary(const Packet& packet) {
  if (packet.binary && packet.type != PacketType::Message) {
    throw std::invalid_argument("engine.io: only a message packet can carry binary data, not " +
                                std::string(packet_type_name(packet.type)));
  }
}

// One packet as text: what a polling payload holds between separators, and what a WebSocket
// text frame holds.
Decoded decode_text_packet(std::string_view text) {
  if (text.empty()) return std::string("engine.io: empty packet");
  if (text.front() == kBase64Prefix) {
    auto bytes = decode_base64(text.substr(1));
    if (!bytes) return std::string("engine.io: binary packet is not valid base64");
    return Packet{PacketType::Message, std::move(*bytes), true};
  }
  const auto type = type_of_digit(text.front());
  if (!type) return "engine.io: unknown packet type '" + std::string(1, text.front()) + "'";
  return Packet{*type, std::string(text.substr(1)), false};
}

std::string field_error(std::string_view key, std::string_view what) {
  return "engine.io handshake: \"" + std::string(key) + "\" " + std::string(what);
}

// A JSON number JavaScript holds exactly as a non-negative integer.
std::optional<std::uint64_t> safe_integer(const json::value& v) {
  if (v.is_int64()) {
    const std::int64_t i = v.get_int64();
    if (i < 0) return std::nullopt;
    return static_cast<std::uint64_t>(i) <= kMaxSafeInteger ? std::optional(static_cast<std::uint64_t>(i)) : std::nullopt;
  }
  if (v.is_uint64()) return v.get_uint64() <= kMaxSafeInteger ? std::optional(v.get_uint64()) : std::nullopt;
  if (v.is_double()) {
    const double d = v.get_double();
    if (d >= 0 && d <= static_cast<double>(kMaxSafeInteger) && std::floor(d) == d) return static_cast<std::uint64_t>(d);
  }
  return std::nullopt;
}

}  // namespace

std::string_view packet_type_name(PacketType type) {
  switch (type) {
    case PacketType::Open: return "open";
    case PacketType::Close: return "close";
    case PacketType::Ping: return "ping";
    case PacketType::Pong: return "pong";
    case PacketType::Message: return "message";
    case PacketType::Upgrade: return "upgrade";
    case PacketType::Noop: return "noop";
  }
  return "unknown";
}

Frame encode_frame(const Packet& packet) {
  check_binary(packet);
  if (packet.binary) return Frame{packet.data, true};
  Frame frame;
  frame.data.reserve(1 + packet.data.size());
  frame.data += type_digit(packet.type);
  frame.data += packet.data;
  return frame;
}

Decoded decode_frame(std::string_view frame, bool binary_frame) {
  if (binary_frame) return Packet{PacketType::Message, std::string(frame), true};
  return decode_text_packet(frame);
}

std::string encode_payload(std::span<const Packet> packets) {
  if (packets.empty()) throw std::invalid_argument("engine.io: a payload needs at least one packet");
  std::string out;
  for (const Packet& packet : packets) {
    check_binary(packet);
    if (&packet != packets.data()) out += kRecordSeparator;
    if (packet.binary) {
      out += kBase64Prefix;
      append_base64(out, packet.data);
    } else {
      if (packet.data.find(kRecordSeparator) != std::string::npos) {
        throw std::invalid_argument("engine.io: a text packet in a polling payload cannot contain \\x1e");
      }
      out += type_digit(packet.type);
      out += packet.data;
    }
  }
  return out;
}

std::string decode_payload(std::string_view payload, std::vector<Packet>& out) {
  out.clear();
  std::size_t index = 0;
  for (;;) {
    const std::size_t end = payload.find(kRecordSeparator);
    Decoded packet = decode_text_packet(payload.substr(0, end));
    if (auto* error = std::get_if<std::string>(&packet)) {
      return "packet " + std::to_string(index) + " of the payload: " + *error;
    }
    out.push_back(std::get<Packet>(std::move(packet)));
    if (end == std::string_view::npos) return {};
    payload.remove_prefix(end + 1);
    ++index;
  }
}

std::variant<Handshake, std::string> parse_handshake(std::string_view open_data) {
  json::error_code ec;
  const json::value v = json::parse(open_data, ec);
  if (ec) return "engine.io handshake: invalid JSON (" + ec.message() + ")";
  if (!v.is_object()) return std::string("engine.io handshake: not a JSON object");
  const json::object& o = v.get_object();
  Handshake h;

  const json::value* sid = o.if_contains("sid");
  if (!sid) return field_error("sid", "is missing");
  if (!sid->is_string() || sid->get_string().empty()) return field_error("sid", "is not a non-empty string");
  h.sid.assign(sid->get_string().data(), sid->get_string().size());

  if (const json::value* upgrades = o.if_contains("upgrades")) {
    if (!upgrades->is_array()) return field_error("upgrades", "is not an array");
    for (const json::value& u : upgrades->get_array()) {
      if (!u.is_string()) return field_error("upgrades", "holds something other than strings");
      h.upgrades.emplace_back(u.get_string().data(), u.get_string().size());
    }
  }

  struct NumberField {
    std::string_view key;
    std::uint64_t* target;
    bool required;
  };
  for (const NumberField& f : {NumberField{"pingInterval", &h.ping_interval_ms, true},
                               NumberField{"pingTimeout", &h.ping_timeout_ms, true},
                               NumberField{"maxPayload", &h.max_payload, false}}) {
    const json::value* n = o.if_contains(f.key);
    if (!n) {
      if (f.required) return field_error(f.key, "is missing");
      continue;
    }
    const auto value = safe_integer(*n);
    if (!value) return field_error(f.key, "is not an integer from 0 to 2^53-1");
    *f.target = *value;
  }
  return h;
}

std::string handshake_data(const Handshake& handshake) {
  std::string out = "{\"sid\":" + json_string(handshake.sid, "engine.io: the sid") + ",\"upgrades\":[";
  for (std::size_t i = 0; i < handshake.upgrades.size(); ++i) {
    if (i > 0) out += ',';
    out += json_string(handshake.upgrades[i], "engine.io: an upgrade");
  }
  out += "],\"pingInterval\":" + std::to_string(handshake.ping_interval_ms);
  out += ",\"pingTimeout\":" + std::to_string(handshake.ping_timeout_ms);
  out += ",\"maxPayload\":" + std::to_string(handshake.max_payload) + "}";
  return out;
}

}  // namespace stampede::proto::eio
