#pragma once
// RFC 6455 framing: bytes in, messages and control frames out (WebSocketReader), and frames
// out (write_frame). Pure: no sockets, no clocks. Used by the client (clients/) and by the
// built-in target (target/); the role says which side must mask.
//
// A server uses it like this: WebSocketReader reader(Role::Server, {max, allow_rsv1 =
// permessage-deflate negotiated}); feed() what the socket gave, call next() until NeedMore,
// answer Ping with a Pong, Close with a Close, Error with a Close carrying error_code; write
// its own frames with write_frame(out, opcode, payload) (no mask: servers never mask).
#include <array>
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

// Whether a close frame may carry this code (RFC 6455 7.4 and the IANA registry): 1000-1003,
// 1007-1014 (1012 is Phoenix's "draining"), and 3000-4999 for libraries and applications.
// 1005, 1006 and 1015 only describe closes; they never travel.
bool is_valid_close_code(std::uint16_t code);

inline constexpr std::size_t kMaxHeaderBytes = 14;      // 2 + 8 (64-bit length) + 4 (masking key)
inline constexpr std::size_t kMaxControlPayload = 125;  // RFC 6455 5.5

// XORs `size` bytes with the masking key (RFC 6455 5.3), as if they started at byte `offset`
// of the payload, so a payload can be (un)masked in pieces. The key's most significant byte
// is the first on the wire. Works 8 bytes at a time.
void apply_mask(char* data, std::size_t size, std::uint32_t key, std::size_t offset = 0);

// Appends one frame. A client passes a masking key (RFC 6455 5.3: a fresh key per frame); a
// server passes nullopt. rsv1 marks a permessage-deflate compressed first frame. Throws
// std::invalid_argument for a control frame that is fragmented or longer than 125 bytes.
void write_frame(std::string& out, Opcode opcode, std::string_view payload, bool fin = true,
                 std::optional<std::uint32_t> mask = std::nullopt, bool rsv1 = false);
// A close frame's payload: the code (big-endian) and a UTF-8 reason cut to fit 123 bytes
// (never inside a character). kNoStatus gives the empty payload of a close without a code.
std::string close_payload(std::uint16_t code, std::string_view reason);

// Incremental UTF-8 validation (RFC 3629: no overlong forms, no surrogates, nothing above
// U+10FFFF), so a text message can be checked fragment by fragment and a bad byte found as
// soon as it arrives. ASCII runs are skipped 8 bytes at a time.
class Utf8Validator {
 public:
  // False once the bytes so far cannot start valid UTF-8 (and from then on).
  bool feed(std::string_view bytes);
  // True when the bytes so far end on a character boundary.
  bool complete() const { return needed_ == 0 && !failed_; }
  void reset() { *this = Utf8Validator{}; }

 private:
  std::uint8_t needed_ = 0;     // continuation bytes still expected
  std::uint8_t lower_ = 0x80;   // allowed range of the next continuation byte
  std::uint8_t upper_ = 0xBF;
  bool failed_ = false;
};
bool is_valid_utf8(std::string_view text);

struct ReaderLimits {
  std::size_t max_message_bytes = 16 * 1024 * 1024;  // whole (reassembled) message, as received
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
  // Message: its first frame had RSV1 (permessage-deflate). The payload is then still
  // compressed, and a text message's UTF-8 is for the caller to check after inflating.
  bool compressed = false;
  std::string_view payload;      // Message/Ping/Pong: valid until the next call to next()/feed()
  std::uint16_t close_code = close_code::kNoStatus;
  std::string_view reason;       // Close: valid like payload
  std::uint16_t error_code = 0;  // Error: the close code to send (1002, 1007, 1009)
  std::string error;             // Error: what was wrong, for people
};

// Incremental reader. Control frames may arrive between the fragments of a message (RFC
// 6455 5.4) and are reported as they come. After a Close or an Error nothing more is read.
//
// Copies: the reader parses the caller's bytes where they are. A complete unmasked frame
// that is a whole message (or a control frame) is returned as a view into those bytes, with
// no copy at all; fragments, masked payloads (unmasked while copied) and frames cut by the
// end of the input are copied once into the reader. A message's size is checked against
// the limit from its frame header, before any of its payload is stored.
class WebSocketReader {
 public:
  explicit WebSocketReader(Role role, ReaderLimits limits = {});

  // Hands the reader bytes to parse. They are NOT copied here: they must stay valid and
  // unchanged until next() has returned NeedMore (by then the reader has copied whatever
  // it still needs). Feeding again before that is allowed but costs a copy.
  void feed(std::string_view bytes);
  // A temporary string would be gone before next() reads it.
  void feed(std::string&&) = delete;
  // The next event from what has been fed. Call until it returns NeedMore.
  WsEvent next();
  // The payload of `message`, the Message event next() just returned, handed over: a message
  // assembled in the reader is moved out (no copy of a large message), one returned where it
  // lay in the fed bytes is copied. Its payload view is invalid afterwards.
  std::string take_payload(const WsEvent& message);
  // Bytes held: a partial frame header, a partial control frame, or a partial message's
  // payload. An idle reader holds none, and releases its buffer with shrink().
  std::size_t buffered() const;
  void shrink();
  const ReaderLimits& limits() const { return limits_; }
  void set_limits(ReaderLimits limits) { limits_ = limits; }
  // True after a Close or an Error: the reader ignores everything fed after it.
  bool stopped() const { return stopped_; }

 private:
  bool read_header(WsEvent& event);
  bool check_header(WsEvent& event);
  WsEvent fail(std::uint16_t code, std::string why);
  WsEvent finish_control_frame(std::string_view payload);

  Role role_;
  ReaderLimits limits_;
  std::string_view input_;  // fed bytes not parsed yet (the caller's, or spill_)
  std::string spill_;       // owns input_ when feed() came before the last input was used up

  // The frame being read.
  std::array<unsigned char, kMaxHeaderBytes> header_{};
  std::uint8_t header_size_ = 0;  // header bytes gathered so far
  bool in_payload_ = false;       // the header is complete; payload bytes follow
  bool fin_ = false;
  bool rsv1_ = false;
  Opcode opcode_ = Opcode::Continuation;
  std::optional<std::uint32_t> mask_;
  std::uint64_t payload_size_ = 0;
  std::uint64_t payload_read_ = 0;

  std::array<char, kMaxControlPayload> control_{};  // a control frame's payload, cut by a read
  std::size_t control_size_ = 0;

  std::string message_;            // the message being assembled
  bool message_delivered_ = false; // message_ was returned by the last next(); clear it first
  bool in_message_ = false;        // a fragmented message started and has not ended
  Opcode message_opcode_ = Opcode::Text;
  bool message_compressed_ = false;
  Utf8Validator utf8_;
  bool stopped_ = false;
};

}  // namespace stampede::proto::ws
