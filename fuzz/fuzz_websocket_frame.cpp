// Feeds arbitrary bytes to the WebSocket frame reader in both roles: whole, cut in two at a
// position taken from the input, and in small drips. All three must produce the same events,
// and every event must keep the reader's promises (sizes within the limits, valid close
// codes, UTF-8 text, nothing after a Close or an Error). Every message read is written again
// with write_frame and must read back the same.
//
// Input: byte 0 chooses the limits (and RSV1), byte 1 the cut and the drip size; the rest is
// the byte stream.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "proto/websocket_frame.hpp"

namespace {

namespace ws = stampede::proto::ws;
using Kind = ws::WsEvent::Kind;

struct Event {
  Kind kind;
  ws::Opcode opcode;
  bool compressed;
  std::string payload;
  std::uint16_t close_code;
  std::string reason;
  std::uint16_t error_code;
  std::string error;
  bool operator==(const Event&) const = default;
};

void check(bool condition) {
  if (!condition) std::abort();
}

Event checked_copy(const ws::WsEvent& e, const ws::ReaderLimits& limits) {
  Event out{e.kind, ws::Opcode::Text, false, std::string(e.payload), 0, {}, 0, {}};
  switch (e.kind) {
    case Kind::Message:
      check(e.opcode == ws::Opcode::Text || e.opcode == ws::Opcode::Binary);
      check(e.payload.size() <= limits.max_message_bytes);
      check(!e.compressed || limits.allow_rsv1);
      if (e.opcode == ws::Opcode::Text && !e.compressed) check(ws::is_valid_utf8(e.payload));
      out.opcode = e.opcode;
      out.compressed = e.compressed;
      break;
    case Kind::Ping:
    case Kind::Pong:
      check(e.payload.size() <= ws::kMaxControlPayload);
      break;
    case Kind::Close:
      check(e.close_code == ws::close_code::kNoStatus || ws::is_valid_close_code(e.close_code));
      check(e.reason.size() <= ws::kMaxControlPayload - 2);
      check(ws::is_valid_utf8(e.reason));
      out.close_code = e.close_code;
      out.reason = std::string(e.reason);
      break;
    case Kind::Error:
      check(e.error_code == ws::close_code::kProtocolError || e.error_code == ws::close_code::kInvalidPayload ||
            e.error_code == ws::close_code::kTooBig);
      check(!e.error.empty());
      out.error_code = e.error_code;
      out.error = e.error;
      break;
    case Kind::NeedMore:
      std::abort();
  }
  return out;
}

std::vector<Event> run(ws::Role role, ws::ReaderLimits limits, const std::vector<std::string_view>& pieces) {
  ws::WebSocketReader reader(role, limits);
  std::vector<Event> events;
  bool ended = false;
  std::size_t fed = 0;
  for (const auto piece : pieces) {
    reader.feed(piece);
    fed += piece.size();
    for (;;) {
      const ws::WsEvent e = reader.next();
      if (e.kind == Kind::NeedMore) break;
      check(!ended);  // nothing after a Close or an Error
      events.push_back(checked_copy(e, limits));
      ended = e.kind == Kind::Close || e.kind == Kind::Error;
    }
    check(ended == reader.stopped());
    // What it holds is part of what it was given: a partial frame or message.
    check(reader.buffered() <= fed);
    if (reader.buffered() == 0) reader.shrink();
  }
  return events;
}

// A message read from the stream, framed again by write_frame, reads back the same.
void check_round_trip(ws::Role role, ws::ReaderLimits limits, const Event& e) {
  if (e.kind != Kind::Message && e.kind != Kind::Ping && e.kind != Kind::Pong) return;
  const ws::Opcode opcode = e.kind == Kind::Message ? e.opcode : e.kind == Kind::Ping ? ws::Opcode::Ping
                                                                                       : ws::Opcode::Pong;
  // The frame travels towards the reader: masked when a server reads it.
  std::string bytes;
  ws::write_frame(bytes, opcode, e.payload, true,
                  role == ws::Role::Server ? std::optional<std::uint32_t>(0x5a17c3e1u) : std::nullopt, e.compressed);
  const auto again = run(role, limits, {bytes});
  check(again.size() == 1 && again[0] == e);
}

void fuzz(ws::Role role, ws::ReaderLimits limits, std::string_view bytes, std::size_t cut, std::size_t drip) {
  const auto whole = run(role, limits, {bytes});
  check(run(role, limits, {bytes.substr(0, cut), bytes.substr(cut)}) == whole);
  std::vector<std::string_view> drops;
  for (std::size_t i = 0; i < bytes.size(); i += drip) drops.push_back(bytes.substr(i, drip));
  check(run(role, limits, drops) == whole);
  for (const auto& e : whole) check_round_trip(role, limits, e);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static constexpr std::size_t kLimits[4] = {16, 125, 4096, 16 * 1024 * 1024};
  ws::ReaderLimits limits;
  limits.max_message_bytes = kLimits[data[0] & 3];
  limits.allow_rsv1 = (data[0] & 4) != 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 2, size - 2);
  const std::size_t cut = bytes.size() * data[1] / 255;
  const std::size_t drip = data[1] % 13 + 1;
  fuzz(ws::Role::Client, limits, bytes, cut, drip);
  fuzz(ws::Role::Server, limits, bytes, cut, drip);
  return 0;
}
