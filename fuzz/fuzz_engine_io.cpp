// Arbitrary bytes as Engine.IO and Socket.IO input: as a polling payload, as a WebSocket text
// and binary frame, as an open packet's handshake, and as the stream of Engine.IO messages a
// Socket.IO decoder reassembles binary packets from. What decodes must encode again, and the
// encoding must decode to the same packets.
#include <algorithm>
#include <boost/json/value.hpp>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "proto/engine_io.hpp"
#include "proto/socket_io.hpp"

namespace eio = stampede::proto::eio;
namespace sio = stampede::proto::sio;

namespace {

void null_infinities(boost::json::value& v) {
  if (v.is_double() && !std::isfinite(v.get_double())) {
    v = nullptr;
  } else if (v.is_array()) {
    for (auto& e : v.get_array()) null_infinities(e);
  } else if (v.is_object()) {
    for (auto& kv : v.get_object()) null_infinities(kv.value());
  }
}

bool same(const eio::Packet& a, const eio::Packet& b) { return a.type == b.type && a.data == b.data && a.binary == b.binary; }

void check_payload(std::string_view input) {
  std::vector<eio::Packet> packets;
  if (!eio::decode_payload(input, packets).empty()) return;
  // A packet that came out of a payload holds no separator, so the payload encodes again.
  const std::string again = eio::encode_payload(packets);
  std::vector<eio::Packet> back;
  if (!eio::decode_payload(again, back).empty() || back.size() != packets.size()) std::abort();
  for (std::size_t i = 0; i < back.size(); ++i) {
    if (!same(back[i], packets[i])) std::abort();
  }
}

void check_frame(std::string_view input, bool binary) {
  eio::Decoded d = eio::decode_frame(input, binary);
  if (!std::holds_alternative<eio::Packet>(d)) return;
  const eio::Packet& p = std::get<eio::Packet>(d);
  if (p.binary && p.type != eio::PacketType::Message) std::abort();
  const eio::Frame f = eio::encode_frame(p);
  eio::Decoded back = eio::decode_frame(f.data, f.binary_frame);
  if (!std::holds_alternative<eio::Packet>(back) || !same(std::get<eio::Packet>(back), p)) std::abort();
}

void check_handshake(std::string_view input) {
  auto h = eio::parse_handshake(input);
  if (!std::holds_alternative<eio::Handshake>(h)) return;
  const eio::Handshake& hs = std::get<eio::Handshake>(h);
  auto again = eio::parse_handshake(eio::handshake_data(hs));
  if (!std::holds_alternative<eio::Handshake>(again)) std::abort();
  const eio::Handshake& b = std::get<eio::Handshake>(again);
  if (b.sid != hs.sid || b.upgrades != hs.upgrades || b.ping_interval_ms != hs.ping_interval_ms ||
      b.ping_timeout_ms != hs.ping_timeout_ms || b.max_payload != hs.max_payload) {
    std::abort();
  }
}

// The same JSON, but for the last bits of doubles: Boost.JSON 1.81 does not parse doubles
// correctly rounded (2.5555555555555554E20, its own output, reads back one ulp lower), so a
// number that goes through serialize and parse may move by an ulp.
bool close(const boost::json::value& a, const boost::json::value& b) {
  if (a.is_double() && b.is_double()) {
    const double x = a.get_double(), y = b.get_double();
    return x == y || std::fabs(x - y) <= 1e-15 * std::max(std::fabs(x), std::fabs(y));
  }
  if (a.kind() != b.kind()) return false;
  if (a.is_array()) {
    const auto &x = a.get_array(), &y = b.get_array();
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!close(x[i], y[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    const auto &x = a.get_object(), &y = b.get_object();
    if (x.size() != y.size()) return false;
    for (const auto& kv : x) {
      const boost::json::value* other = y.if_contains(kv.key());
      if (!other || !close(kv.value(), *other)) return false;
    }
    return true;
  }
  return a == b;
}

// An event whose name is a number too large for a double (`2[1e999]`): socket.io-parser
// accepts it (JSON.parse gives Infinity, a number), but JSON has no Infinity, so it encodes as
// null, and a null name is refused by every decoder, socket.io-parser's too. No round trip.
bool named_by_infinity(const sio::Packet& p) {
  if (!p.data || !p.data->is_array() || p.data->get_array().empty()) return false;
  const boost::json::value& name = p.data->get_array().front();
  return name.is_double() && !std::isfinite(name.get_double());
}

// A decoded Socket.IO packet encodes, and that text (and the attachments) decodes to the same
// packet (non-finite numbers become null on the way, as JSON.stringify writes them).
void check_round_trip(const sio::Packet& p) {
  if (named_by_infinity(p)) return;
  std::string text;
  try {
    text = sio::encode(p);
  } catch (const std::invalid_argument&) {
    std::abort();  // the decoder accepted what the encoder refuses
  }
  sio::PacketDecoder decoder;
  auto step = decoder.add_text(text);
  for (const std::string& a : p.attachments) {
    if (step != sio::PacketDecoder::Step::NeedAttachments) std::abort();
    step = decoder.add_binary(a);
  }
  if (step != sio::PacketDecoder::Step::Packet) std::abort();
  const sio::Packet& q = decoder.packet();
  if (q.type != p.type || q.attachments != p.attachments || q.nsp != p.nsp || q.id != p.id) std::abort();
  if (q.data.has_value() != p.data.has_value()) std::abort();
  if (q.data) {
    boost::json::value expected = *p.data;
    null_infinities(expected);
    if (!close(expected, *q.data)) std::abort();
  }
}

// The input as a polling payload of Engine.IO messages carrying Socket.IO packets.
void check_socket_io(std::string_view input) {
  sio::PacketDecoder decoder(3);
  std::size_t pos = 0;
  for (;;) {
    const std::size_t end = input.find(eio::kRecordSeparator, pos);
    eio::Decoded d = eio::decode_frame(input.substr(pos, end == std::string_view::npos ? end : end - pos), false);
    if (auto* packet = std::get_if<eio::Packet>(&d); packet && packet->type == eio::PacketType::Message) {
      const auto step = packet->binary ? decoder.add_binary(packet->data) : decoder.add_text(packet->data);
      if (step == sio::PacketDecoder::Step::Packet) {
        check_round_trip(decoder.packet());
      } else if (step == sio::PacketDecoder::Step::Error) {
        if (decoder.error().empty() || decoder.attachments_missing() != 0) std::abort();
      } else if (decoder.attachments_missing() == 0) {
        std::abort();
      }
    }
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  check_payload(input);
  check_frame(input, false);
  check_frame(input, true);
  check_handshake(input);
  check_socket_io(input);
  // The whole input as one Socket.IO text packet, too.
  sio::PacketDecoder decoder;
  if (decoder.add_text(input) == sio::PacketDecoder::Step::Packet) check_round_trip(decoder.packet());
  return 0;
}
