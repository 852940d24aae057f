#pragma once
// Socket.IO protocol v5 packets (socket.io 3 and 4), as the npm socket.io-parser 4.x encodes
// and decodes them. Each packet travels in an Engine.IO message packet (proto/engine_io.hpp):
//
//   <type>[<attachments>-][<namespace>,][<ack id>][<JSON data>]
//   type: 0 CONNECT, 1 DISCONNECT, 2 EVENT, 3 ACK, 4 CONNECT_ERROR, 5 BINARY_EVENT, 6 BINARY_ACK
//   namespace: written when it is not "/" ("/chat,"); ack id: decimal digits
//   data: CONNECT an object (optional), DISCONNECT none, EVENT an array whose first element is
//         the event name (a string that is not reserved, or a number), ACK an array,
//         CONNECT_ERROR a string or an object
//   2["chat message","hi"]    51-/chat,7["upload",{"_placeholder":true,"num":0}]
//   (on the wire each follows Engine.IO's message type: 42["chat message","hi"])
//
// Binary data: an EVENT or ACK whose arguments hold bytes is sent as BINARY_EVENT/BINARY_ACK;
// each byte string becomes a {"_placeholder":true,"num":i} object in the JSON and travels
// after it, in order, as its own binary Engine.IO message ("attachments"). PacketDecoder is
// the reassembler: it takes the text packet, then the announced number of binary messages,
// and hands back the packet with its attachments, the placeholders checked.
//
// The data is a Boost.JSON value: events are small, a scenario reads their arguments, and
// placeholders are found by walking it. A placeholder stays in the data; the bytes it stands
// for are attachments[num] (see attachment_of).
#include <boost/json/value.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::proto::sio {

enum class PacketType : std::uint8_t {
  Connect = 0,
  Disconnect = 1,
  Event = 2,
  Ack = 3,
  ConnectError = 4,
  BinaryEvent = 5,
  BinaryAck = 6,
};
std::string_view packet_type_name(PacketType type);

inline constexpr int kProtocol = 5;
// Event names socket.io keeps for itself: an EVENT naming one is invalid.
inline constexpr std::string_view kReservedEvents[] = {"connect",       "connect_error",  "disconnect",
                                                       "disconnecting", "newListener",    "removeListener"};
// socket.io-parser's Decoder default for maxAttachments.
inline constexpr std::size_t kDefaultMaxAttachments = 10;
// The largest ack id JavaScript holds exactly (Number.MAX_SAFE_INTEGER).
inline constexpr std::uint64_t kMaxAckId = (std::uint64_t{1} << 53) - 1;

struct Packet {
  PacketType type = PacketType::Event;
  std::string nsp = "/";
  std::optional<std::uint64_t> id;          // the ack id
  std::optional<boost::json::value> data;   // absent: nothing after the header
  std::vector<std::string> attachments;     // the binary attachments, in placeholder order
};

// {"_placeholder":true,"num":num}: what stands for attachments[num] in the data.
boost::json::value placeholder(std::size_t num);
// The attachment a placeholder value stands for, nullptr when `value` is not a placeholder
// (or points past the attachments).
const std::string* attachment_of(const Packet& packet, const boost::json::value& value);
// The same over attachments kept apart from their packet (a client's received event).
const std::string* attachment_of(const std::vector<std::string>& attachments, const boost::json::value& value);

// The text packet. An EVENT or ACK with attachments is written as BINARY_EVENT/BINARY_ACK with
// the attachment count, as socket.io-parser's Encoder does; the attachments themselves are
// sent after it, one binary Engine.IO message each. Throws std::invalid_argument for data that
// does not fit the type (see above), a namespace that does not start with "/" or holds ",",
// an ack id above kMaxAckId, attachments on a type that cannot carry them or a binary type
// without any, or (in a binary packet) a placeholder whose num is not an attachment.
std::string encode(const Packet& packet);

// Reassembles packets from the Engine.IO messages that carry them: a text message starts a
// packet; a BINARY_EVENT or BINARY_ACK then waits for its attachments, one binary message each.
// Errors are socket.io-parser's: unknown type, bad attachment count, invalid data for the
// type, text while attachments are awaited, binary while none are, a placeholder that names no
// attachment. After an error the decoder is ready for a new packet (socket.io-client closes
// the connection on one).
class PacketDecoder {
 public:
  enum class Step {
    Packet,            // packet() is complete
    NeedAttachments,   // a binary packet's header was read; feed its attachments
    Error,             // error() says what was wrong
  };

  explicit PacketDecoder(std::size_t max_attachments = kDefaultMaxAttachments);

  Step add_text(std::string_view text);
  Step add_binary(std::string_view bytes);

  // After Step::Packet: the packet. A reassembled BINARY_EVENT/BINARY_ACK reads as EVENT/ACK
  // with its attachments, as socket.io-parser hands it to the application.
  Packet& packet() { return packet_; }
  const std::string& error() const { return error_; }
  // Attachments still awaited by the packet being reassembled (0 when none is).
  std::size_t attachments_missing() const { return awaiting_ ? expected_ - packet_.attachments.size() : 0; }
  void reset();

 private:
  Step fail(std::string why);

  std::size_t max_attachments_;
  Packet packet_;
  std::string error_;
  bool awaiting_ = false;
  std::size_t expected_ = 0;
};

}  // namespace stampede::proto::sio
