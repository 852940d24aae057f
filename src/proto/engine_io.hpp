#pragma once
// Engine.IO protocol v4 packets (engine.io 4+, the transport under socket.io 3 and 4), as the
// npm engine.io-parser 5.x encodes and decodes them. Pure: the client (clients/) owns the HTTP
// long-polling requests and the WebSocket; Socket.IO packets ride in message packets
// (proto/socket_io.hpp).
//
//   packet types: 0 open, 1 close, 2 ping, 3 pong, 4 message, 5 upgrade, 6 noop
//   text packet:  the type digit followed by the data ("4hello", "2probe", "6")
//   binary packet (always a message): over WebSocket a binary frame of the raw bytes with no
//                 type; in a polling payload "b" followed by the base64 of the bytes
//   polling payload: the packets joined by the record separator \x1e
//   open packet:  0{"sid":...,"upgrades":[...],"pingInterval":...,"pingTimeout":...,"maxPayload":...}
//
// Decoders never throw on garbage: they return an error sentence.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace stampede::proto::eio {

enum class PacketType : std::uint8_t { Open = 0, Close = 1, Ping = 2, Pong = 3, Message = 4, Upgrade = 5, Noop = 6 };
std::string_view packet_type_name(PacketType type);

inline constexpr char kRecordSeparator = '\x1e';
inline constexpr int kProtocol = 4;  // the EIO=4 query parameter

struct Packet {
  PacketType type = PacketType::Message;
  // Text: the characters after the type digit. Binary: the raw bytes.
  std::string data;
  bool binary = false;  // only a Message can be binary
};

// One WebSocket frame per packet.
struct Frame {
  std::string data;
  bool binary_frame = false;
};
// Throws std::invalid_argument for a binary packet that is not a Message.
Frame encode_frame(const Packet& packet);
// A frame received over WebSocket. A text frame is decoded like a polling packet (so "b..."
// is a base64 binary message there too, as engine.io-parser does); a binary frame is a binary
// message.
using Decoded = std::variant<Packet, std::string>;
Decoded decode_frame(std::string_view frame, bool binary_frame);

// A long-polling body (request or response): text packets as they are, binary ones as "b" +
// base64, joined by \x1e. Throws std::invalid_argument for an empty list, a binary packet that
// is not a Message, or a text packet whose data holds \x1e (it would split in two).
std::string encode_payload(std::span<const Packet> packets);
// Splits and decodes a long-polling body into `out` (replaced). Returns an empty string on
// success, else the error sentence naming the first bad packet (engine.io-parser stops there
// too; the packets before it are left in `out`).
std::string decode_payload(std::string_view payload, std::vector<Packet>& out);

// The open packet's data: the session and the heartbeat the server imposes.
struct Handshake {
  std::string sid;
  std::vector<std::string> upgrades;  // transports the session may upgrade to ("websocket")
  std::uint64_t ping_interval_ms = 0;
  std::uint64_t ping_timeout_ms = 0;
  // The largest polling payload the server reads (its maxHttpBufferSize). Older v4 servers
  // do not send it: then 0, no limit known.
  std::uint64_t max_payload = 0;
};
// sid, pingInterval and pingTimeout are required; upgrades and maxPayload optional; numbers
// must be integers from 0 to 2^53-1 (what JavaScript holds exactly). Unknown keys are ignored.
std::variant<Handshake, std::string> parse_handshake(std::string_view open_data);
// The open packet's data as engine.io 6 writes it (sid, upgrades, pingInterval, pingTimeout,
// maxPayload), for the built-in target and tests.
std::string handshake_data(const Handshake& handshake);

}  // namespace stampede::proto::eio
