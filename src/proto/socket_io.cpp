// Socket.IO packets: the header is read left to right as socket.io-parser's decodeString does
// (type, attachment count, namespace, ack id), the rest is JSON checked against the type.
#include "proto/socket_io.hpp"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "proto/ascii.hpp"

namespace stampede::proto::sio {
namespace {

namespace json = boost::json;

// socket.io data is whatever the application emits; Boost's default of 32 levels is too tight
// for real documents, and this bound keeps Boost's recursive parser (and our walk over the
// value) off the end of a worker's stack.
constexpr std::size_t kMaxJsonDepth = 256;

using ascii::is_digit;

bool is_binary_type(PacketType type) { return type == PacketType::BinaryEvent || type == PacketType::BinaryAck; }

bool is_reserved(std::string_view name) {
  return std::find(std::begin(kReservedEvents), std::end(kReservedEvents), name) != std::end(kReservedEvents);
}

// Reads decimal digits at `pos`, advancing it. nullopt when there are none; `overflow` is set
// when the value passes `max`.
std::optional<std::uint64_t> read_digits(std::string_view text, std::size_t& pos, std::uint64_t max, bool& overflow) {
  overflow = false;
  const std::size_t start = pos;
  std::uint64_t value = 0;
  while (pos < text.size() && is_digit(text[pos])) {
    const auto d = static_cast<std::uint64_t>(text[pos] - '0');
    // d > max first: with a limit below 9 (a client's max_attachments) max - d would wrap
    // around and let any count through.
    if (!overflow && (d > max || value > (max - d) / 10)) overflow = true;
    if (!overflow) value = value * 10 + d;
    ++pos;
  }
  if (pos == start) return std::nullopt;
  return value;
}

// socket.io-parser's isPayloadValid: what the data of each type may be. Empty when it fits.
std::string data_problem(PacketType type, const json::value& data) {
  switch (type) {
    case PacketType::Connect:
      return data.is_object() ? "" : "CONNECT data must be an object";
    case PacketType::Disconnect:
      return "DISCONNECT carries no data";
    case PacketType::ConnectError:
      return data.is_string() || data.is_object() ? "" : "CONNECT_ERROR data must be a string or an object";
    case PacketType::Event:
    case PacketType::BinaryEvent: {
      if (!data.is_array() || data.get_array().empty()) return "EVENT data must be an array starting with the event name";
      const json::value& name = data.get_array().front();
      if (name.is_number()) return "";
      if (!name.is_string()) return "the event name must be a string or a number";
      if (is_reserved(std::string_view(name.get_string()))) {
        return "\"" + std::string(name.get_string().data(), name.get_string().size()) + "\" is a reserved event name";
      }
      return "";
    }
    case PacketType::Ack:
    case PacketType::BinaryAck:
      return data.is_array() ? "" : "ACK data must be an array";
  }
  return "unknown packet type";
}

// The attachment index of a {"_placeholder": true, "num": n} object; -1 for any other value;
// -2 for a placeholder whose num is not a non-negative integer.
long long placeholder_num(const json::value& v) {
  const json::object* o = v.if_object();
  if (!o) return -1;
  const json::value* flag = o->if_contains("_placeholder");
  if (!flag || !flag->is_bool() || !flag->get_bool()) return -1;
  const json::value* num = o->if_contains("num");
  if (!num) return -2;
  if (num->is_int64()) return num->get_int64() >= 0 ? num->get_int64() : -2;
  if (num->is_uint64()) return num->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX) ? static_cast<long long>(num->get_uint64()) : -2;
  if (num->is_double()) {
    const double d = num->get_double();
    if (d >= 0 && d < 9.0e18 && static_cast<double>(static_cast<long long>(d)) == d) return static_cast<long long>(d);
  }
  return -2;
}

// Every placeholder in `v` names one of `count` attachments (socket.io-parser's
// reconstructPacket throws "illegal attachments" otherwise).
bool placeholders_valid(const json::value& v, std::size_t count) {
  const long long num = placeholder_num(v);
  if (num == -2) return false;
  if (num >= 0) return static_cast<unsigned long long>(num) < count;
  if (const json::array* a = v.if_array()) {
    return std::all_of(a->begin(), a->end(), [&](const json::value& e) { return placeholders_valid(e, count); });
  }
  if (const json::object* o = v.if_object()) {
    return std::all_of(o->begin(), o->end(), [&](const json::key_value_pair& kv) { return placeholders_valid(kv.value(), count); });
  }
  return true;
}

// JSON.parse reads 1e400 as Infinity and JSON.stringify writes Infinity as null; Boost
// writes "Infinity", which no JSON parser reads. So an encoder must write null too.
bool has_non_finite(const json::value& v) {
  if (v.is_double()) return !std::isfinite(v.get_double());
  if (const json::array* a = v.if_array()) return std::any_of(a->begin(), a->end(), has_non_finite);
  if (const json::object* o = v.if_object()) {
    return std::any_of(o->begin(), o->end(), [](const json::key_value_pair& kv) { return has_non_finite(kv.value()); });
  }
  return false;
}

void null_non_finite(json::value& v) {
  if (v.is_double() && !std::isfinite(v.get_double())) {
    v = nullptr;
  } else if (json::array* a = v.if_array()) {
    for (json::value& e : *a) null_non_finite(e);
  } else if (json::object* o = v.if_object()) {
    for (json::key_value_pair& kv : *o) null_non_finite(kv.value());
  }
}

}  // namespace

std::string_view packet_type_name(PacketType type) {
  switch (type) {
    case PacketType::Connect: return "CONNECT";
    case PacketType::Disconnect: return "DISCONNECT";
    case PacketType::Event: return "EVENT";
    case PacketType::Ack: return "ACK";
    case PacketType::ConnectError: return "CONNECT_ERROR";
    case PacketType::BinaryEvent: return "BINARY_EVENT";
    case PacketType::BinaryAck: return "BINARY_ACK";
  }
  return "unknown";
}

json::value placeholder(std::size_t num) {
  return json::object{{"_placeholder", true}, {"num", static_cast<std::uint64_t>(num)}};
}

const std::string* attachment_of(const std::vector<std::string>& attachments, const json::value& value) {
  const long long num = placeholder_num(value);
  if (num < 0 || static_cast<unsigned long long>(num) >= attachments.size()) return nullptr;
  return &attachments[static_cast<std::size_t>(num)];
}

const std::string* attachment_of(const Packet& packet, const json::value& value) {
  return attachment_of(packet.attachments, value);
}

std::string encode(const Packet& packet) {
  PacketType type = packet.type;
  if (!packet.attachments.empty()) {
    if (type == PacketType::Event) type = PacketType::BinaryEvent;
    if (type == PacketType::Ack) type = PacketType::BinaryAck;
    if (!is_binary_type(type)) {
      throw std::invalid_argument("socket.io: a " + std::string(packet_type_name(type)) + " packet cannot carry attachments");
    }
  } else if (is_binary_type(type)) {
    throw std::invalid_argument("socket.io: a " + std::string(packet_type_name(type)) + " packet needs at least one attachment");
  }
  if (packet.nsp.empty() || packet.nsp.front() != '/' || packet.nsp.find(',') != std::string::npos) {
    throw std::invalid_argument("socket.io: a namespace starts with '/' and holds no ','");
  }
  if (packet.id && *packet.id > kMaxAckId) throw std::invalid_argument("socket.io: the ack id is above 2^53-1");
  if (packet.data) {
    const std::string problem = data_problem(type, *packet.data);
    if (!problem.empty()) throw std::invalid_argument("socket.io: " + problem);
    // Only a binary packet's placeholders stand for attachments; elsewhere they are data.
    if (is_binary_type(type) && !placeholders_valid(*packet.data, packet.attachments.size())) {
      throw std::invalid_argument("socket.io: a placeholder names no attachment");
    }
  }

  std::string out(1, static_cast<char>('0' + static_cast<int>(type)));
  if (is_binary_type(type)) {
    out += std::to_string(packet.attachments.size());
    out += '-';
  }
  if (packet.nsp != "/") {
    out += packet.nsp;
    out += ',';
  }
  if (packet.id) out += std::to_string(*packet.id);
  if (packet.data) {
    if (has_non_finite(*packet.data)) {
      json::value copy = *packet.data;
      null_non_finite(copy);
      out += json::serialize(copy);
    } else {
      out += json::serialize(*packet.data);
    }
  }
  return out;
}

PacketDecoder::PacketDecoder(std::size_t max_attachments) : max_attachments_(max_attachments) {}

void PacketDecoder::reset() {
  packet_ = Packet{};
  awaiting_ = false;
  expected_ = 0;
}

PacketDecoder::Step PacketDecoder::fail(std::string why) {
  reset();
  error_ = "socket.io: " + std::move(why);
  return Step::Error;
}

PacketDecoder::Step PacketDecoder::add_text(std::string_view text) {
  if (awaiting_) return fail("got text while " + std::to_string(attachments_missing()) + " attachment(s) were awaited");
  packet_ = Packet{};
  error_.clear();
  if (text.empty()) return fail("empty packet");
  if (text.front() < '0' || text.front() > '6') return fail("unknown packet type '" + std::string(1, text.front()) + "'");
  const auto type = static_cast<PacketType>(text.front() - '0');
  std::size_t pos = 1;

  std::size_t attachments = 0;
  if (is_binary_type(type)) {
    bool overflow = false;
    const auto count = read_digits(text, pos, max_attachments_, overflow);
    if (!count || pos == text.size() || text[pos] != '-') return fail("illegal attachments: no '<count>-' after the type");
    if (overflow) return fail("too many attachments (the limit is " + std::to_string(max_attachments_) + ")");
    if (*count < 1) return fail("illegal attachments: the count must be at least 1");
    attachments = static_cast<std::size_t>(*count);
    ++pos;  // the '-'
  }

  if (pos < text.size() && text[pos] == '/') {
    const std::size_t comma = text.find(',', pos);
    const std::size_t end = comma == std::string_view::npos ? text.size() : comma;
    packet_.nsp.assign(text.substr(pos, end - pos));
    pos = comma == std::string_view::npos ? text.size() : comma + 1;
  }

  bool overflow = false;
  const auto id = read_digits(text, pos, kMaxAckId, overflow);
  if (overflow) return fail("the ack id is above 2^53-1");
  packet_.id = id;

  if (pos < text.size()) {
    json::parse_options options;
    options.max_depth = kMaxJsonDepth;
    json::error_code ec;
    json::value data = json::parse(text.substr(pos), ec, {}, options);
    if (ec) return fail("invalid payload: not JSON (" + ec.message() + ")");
    std::string problem = data_problem(type, data);
    if (!problem.empty()) return fail("invalid payload: " + problem);
    packet_.data = std::move(data);
  }

  if (!is_binary_type(type)) {
    packet_.type = type;
    return Step::Packet;
  }
  packet_.type = type == PacketType::BinaryEvent ? PacketType::Event : PacketType::Ack;
  awaiting_ = true;
  expected_ = attachments;
  return Step::NeedAttachments;
}

PacketDecoder::Step PacketDecoder::add_binary(std::string_view bytes) {
  if (!awaiting_) return fail("got binary data while no packet awaited attachments");
  packet_.attachments.emplace_back(bytes);
  if (packet_.attachments.size() < expected_) return Step::NeedAttachments;
  awaiting_ = false;
  if (packet_.data && !placeholders_valid(*packet_.data, packet_.attachments.size())) {
    return fail("illegal attachments: a placeholder names no attachment");
  }
  return Step::Packet;
}

}  // namespace stampede::proto::sio
