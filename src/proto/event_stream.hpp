#pragma once
// Server-Sent Events: the text/event-stream parser of the WHATWG HTML standard ("Parsing an
// event stream" and "Interpreting an event stream", §9.2.5-9.2.6), incremental over arbitrary
// chunks: a line, a CRLF or the UTF-8 BOM may be cut anywhere. Pure: the client (clients/)
// feeds what the HTTP body gave and turns the events into Lua calls; reconnecting (the
// reconnection time, the Last-Event-ID header) is the client's, from what this parser keeps.
//
// What the standard says, and this parser does:
//   - one UTF-8 BOM is dropped at the start of a stream, nowhere else; bytes that are not
//     UTF-8 become U+FFFD, as the standard's UTF-8 decode does;
//   - lines end with CRLF, LF or CR;
//   - a line starting with ":" is a comment; "name:value" is a field, one space after the
//     colon is dropped; a line without a colon is a field with an empty value;
//   - event: sets the type; data: appends the value and LF; id: sets the last event ID buffer
//     unless the value contains NUL; retry: sets the reconnection time when the value is
//     ASCII digits only; any other field is ignored;
//   - a blank line dispatches: the last event ID is set from its buffer (even when nothing is
//     dispatched), an empty data buffer dispatches nothing, one trailing LF is removed from the
//     data, the type is "message" unless the stream named one;
//   - the last event ID persists from event to event until an id: field changes it;
//   - at the end of a stream, a pending event that no blank line completed is discarded.
//
// The npm `eventsource` package (4.x, on `eventsource-parser` 3.x) differs on two points this
// parser does not copy: its events carry the id of their own block, not the persistent last
// event ID, and an id: in a block without data is forgotten.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stampede::proto::sse {

struct ParserLimits {
  // Bytes one event may hold while it is being read: the unfinished line plus the data, event
  // type and id buffers. A stream that grows an event past this is an error, not memory.
  std::size_t max_event_bytes = 1024 * 1024;
  // Report comment lines as events (servers send them as heartbeats); the standard ignores them.
  bool report_comments = false;
};

// What one call to EventStreamParser::next() produced.
struct SseEvent {
  enum class Kind {
    NeedMore,  // every byte fed so far was used; feed more
    Message,   // a dispatched event: type, data, last_event_id
    Retry,     // a valid retry: field set the reconnection time to retry_ms
    Comment,   // a comment line (only with report_comments): the text after ':'
    Error,     // the event outgrew max_event_bytes; the parser stops until start_stream()
  };
  Kind kind = Kind::NeedMore;
  // Message: the views stay valid until the next call to next(), feed() or start_stream().
  std::string_view type;
  std::string_view data;
  std::string_view last_event_id;
  std::uint64_t retry_ms = 0;  // Retry (digits beyond 2^64-1 saturate)
  std::string_view comment;    // Comment
  std::string error;           // Error: what went wrong, for people
};

class EventStreamParser {
 public:
  explicit EventStreamParser(ParserLimits limits = {});

  // Hands the parser the next bytes of the body. They are NOT copied here: they must stay
  // valid and unchanged until next() has returned NeedMore (by then the parser has copied
  // what it still needs). Feeding again before that is allowed but costs a copy.
  void feed(std::string_view bytes);
  void feed(std::string&&) = delete;  // a temporary would be gone before next() reads it
  // The next event from what has been fed. Call until it returns NeedMore.
  SseEvent next();

  // A new response body begins (a reconnection): the pending event, the unfinished line and
  // the buffers of the previous stream are discarded (the end of a stream discards them), a
  // BOM is expected again. The last event ID and the reconnection time are kept: they belong
  // to the event source, and the client sends the ID as Last-Event-ID.
  void start_stream();

  // The event source's last event ID: what a reconnection sends as Last-Event-ID (when not
  // empty). Updated at every blank line, from the id: fields seen before it.
  const std::string& last_event_id() const { return last_event_id_; }
  // The reconnection time the stream asked for, nullopt until a valid retry: field.
  std::optional<std::uint64_t> reconnection_time_ms() const { return reconnection_time_ms_; }
  // True after an Error: the parser ignores what is fed until start_stream().
  bool stopped() const { return stopped_; }
  // Bytes the unfinished event holds (what max_event_bytes bounds).
  std::size_t buffered() const;
  // True while the end of the stream would lose something: a line not yet ended, or fields
  // (data, event, id) whose blank line has not come. (buffered() cannot tell: the last event
  // ID buffer keeps its value from event to event.)
  bool in_event() const { return !line_.empty() || !data_.empty() || !type_.empty() || id_pending_; }

 private:
  // Interprets one complete line; true when it produced an event in `event`.
  bool interpret_line(std::string_view line, SseEvent& event);
  bool dispatch(SseEvent& event);
  bool over_limit(std::size_t more) const;
  SseEvent fail();

  ParserLimits limits_;
  std::string_view input_;  // fed bytes not parsed yet (the caller's, or spill_)
  std::string spill_;       // owns input_ when feed() came before the last input was used up
  std::string line_;        // a line cut by the end of the input
  bool skip_lf_ = false;    // the last line ended with CR: an LF right after it is part of it
  bool at_stream_start_ = true;  // the first line may begin with the BOM

  // The standard's buffers, per stream.
  std::string data_;
  std::string type_;
  std::string id_buffer_;
  bool id_pending_ = false;  // an id: field since the last blank line

  // What the last dispatch handed out (the views of the Message event point here).
  std::string dispatched_data_;
  std::string dispatched_type_;
  std::string comment_;

  // The event source's state, kept across streams.
  std::string last_event_id_;
  std::optional<std::uint64_t> reconnection_time_ms_;
  bool stopped_ = false;
};

}  // namespace stampede::proto::sse
