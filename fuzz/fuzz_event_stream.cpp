// Arbitrary bytes as a text/event-stream body. The first byte picks a chunk size and an event
// size limit; the rest is the body, fed once whole and once in chunks of that size. Both must
// give the same events (the parser is incremental: where a chunk ends changes nothing), every
// text the parser hands out must be valid UTF-8 (it decodes as the standard says), a message
// always has a type, nothing is held past the limit, nothing is pending (in_event) right after
// a message or a new stream, and a new stream after an error parses.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "proto/event_stream.hpp"
#include "proto/websocket_frame.hpp"

namespace sse = stampede::proto::sse;

namespace {

struct Seen {
  sse::SseEvent::Kind kind;
  std::string type, data, id, comment;
  std::uint64_t retry;
  bool operator==(const Seen&) const = default;
};

void drain(sse::EventStreamParser& parser, std::size_t limit, std::vector<Seen>& out) {
  for (;;) {
    const sse::SseEvent e = parser.next();
    if (parser.buffered() > limit) std::abort();
    if (e.kind == sse::SseEvent::Kind::NeedMore) return;
    if (e.kind == sse::SseEvent::Kind::Message) {
      if (e.type.empty()) std::abort();
      if (e.last_event_id.find('\0') != std::string_view::npos) std::abort();
      if (!stampede::proto::ws::is_valid_utf8(e.type) || !stampede::proto::ws::is_valid_utf8(e.data) ||
          !stampede::proto::ws::is_valid_utf8(e.last_event_id)) {
        std::abort();
      }
      if (e.last_event_id != parser.last_event_id()) std::abort();
      // At its blank line nothing of the event is left pending.
      if (parser.in_event()) std::abort();
    }
    if (e.kind == sse::SseEvent::Kind::Retry && parser.reconnection_time_ms() != e.retry_ms) std::abort();
    if (e.kind == sse::SseEvent::Kind::Comment && !stampede::proto::ws::is_valid_utf8(e.comment)) std::abort();
    if (e.kind == sse::SseEvent::Kind::Error && !parser.stopped()) std::abort();
    out.push_back({e.kind, std::string(e.type), std::string(e.data), std::string(e.last_event_id), std::string(e.comment),
                   e.retry_ms});
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::size_t chunk = 1 + (data[0] & 0x0f);
  sse::ParserLimits limits;
  limits.max_event_bytes = (data[0] & 0x10) ? 64 : 4096;
  limits.report_comments = (data[0] & 0x20) != 0;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);

  std::vector<Seen> whole, chunked;
  sse::EventStreamParser a(limits);
  a.feed(body);
  drain(a, limits.max_event_bytes, whole);

  sse::EventStreamParser b(limits);
  for (std::size_t at = 0; at < body.size(); at += chunk) {
    const std::string piece = body.substr(at, chunk);
    b.feed(piece);
    drain(b, limits.max_event_bytes, chunked);
  }
  if (whole != chunked) std::abort();
  if (a.last_event_id() != b.last_event_id() || a.reconnection_time_ms() != b.reconnection_time_ms()) std::abort();
  // Whether the end of the stream would lose an event does not depend on the chunking (a CR
  // that ends the input has ended its line in both). After an error nothing is pending.
  if (a.in_event() != b.in_event() || (a.stopped() && a.in_event())) std::abort();

  // A new stream starts clean, keeping the source's last event ID.
  const std::string id = a.last_event_id();
  a.start_stream();
  if (a.stopped() || a.buffered() != 0 || a.in_event() || a.last_event_id() != id) std::abort();
  std::vector<Seen> after;
  const std::string_view simple = "data: x\n\n";
  a.feed(simple);
  drain(a, limits.max_event_bytes, after);
  if (after.size() != 1 || after[0].data != "x" || after[0].id != "") std::abort();
  return 0;
}
