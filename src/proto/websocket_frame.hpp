#pragma once
// RFC 6455 framing: bytes in, messages and control frames out (WebSocketReader), and frames
// out (write_frame). Pure: no sockets, no clocks. Used by the client (clients/) and by the
// built-in target (target/); the role says which side must mask.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stampede::proto::ws {

enum class Opcode : std::uint8_t { Continuation = 0x0, Text = 0x1, Binary = 0x2, Close = 0x8, Ping = 0x9, Pong = 0xA };

// Who reads: a client reads unmasked server frames; a server requires masked client frames.
enum class Role { Client, Server };

namespace close_code {
inline constexpr std::uint16_t kNormal = 1000, kGoingAway = 1001, kProtocolError = 1002, kUnsupported = 1003,
                               kNoStatus = 1005, kAbnormal = 1006, kInvalidPayload = 1007, kPolicy = 1008,
                               kTooBig = 1009, kInternalError = 1011;
}

// Appends one frame. A client passes a masking key (RFC 6455 5.3: a fresh random key per
// frame); a server passes nullopt. rsv1 marks a permessage-deflate compressed first frame.
void write_frame(std::string& out, Opcode opcode, std::string_view payload, bool fin = true,
                 std::optional<std::uint32_t> mask = std::nullopt, bool rsv1 = false);
// A close frame's payload: the code (big-endian) and a UTF-8 reason cut to fit 123 bytes.
std::string close_payload(std::uint16_t code, std::string_view reason);

struct ReaderLimits {
  std::size_t max_message_bytes = 16 * 1024 * 1024;  // whole (reassembled) message
  bool allow_rsv1 = false;                            // true once permessage-deflate is negotiated
};

// What one call to WebSocketReader::next() produced.
struct WsEvent {
  enum class Kind {
    NeedMore,  // every byte given so far was consumed; feed more
    Message,   // a complete text or binary message (fragments reassembled)
    Ping,
    Pong,
    Close,     // the peer's close frame: close_code (kNoStatus when it had no payload) and reason
    Error,     // protocol violation: error_code says which close code to answer with
  };
  Kind kind = Kind::NeedMore;
  Opcode opcode = Opcode::Text;  // Message: Text or Binary
  bool compressed = false;       // Message: its first frame had RSV1 (permessage-deflate)
  std::string_view payload;      // Message/Ping/Pong: valid until the next call to next()/feed()
  std::uint16_t close_code = close_code::kNoStatus;
  std::string_view reason;       // Close
  std::uint16_t error_code = 0;  // Error: the close code to send (1002, 1007, 1009)
  std::string error;             // Error: what was wrong, for people
};

// Incremental reader. Control frames may arrive between the fragments of a message (RFC
// 6455 5.4) and are reported as they come. After an Error nothing more is read.
class WebSocketReader {
 public:
  WebSocketReader(Role role, ReaderLimits limits = {});

  // Adds bytes (copied into the reader's buffer).
  void feed(std::string_view bytes);
  // The next event from what has been fed. Call until it returns NeedMore.
  WsEvent next();
  // Bytes held: a partial frame, or a partial message's fragments. Idle readers hold none
  // (and release their buffers with shrink()).
  std::size_t buffered() const;
  void shrink();
  const ReaderLimits& limits() const { return limits_; }
  void set_limits(ReaderLimits limits) { limits_ = limits; }

 private:
  Role role_;
  ReaderLimits limits_;
  std::string in_;          // unparsed bytes
  std::size_t pos_ = 0;     // parse position in in_
  std::string message_;     // fragments of the message being assembled
  std::string control_;     // last control frame's unmasked payload
  bool in_message_ = false;
  Opcode message_opcode_ = Opcode::Text;
  bool message_compressed_ = false;
  bool failed_ = false;
};

}  // namespace stampede::proto::ws
