#include "proto/event_stream.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace stampede::proto::sse {
namespace {

using namespace std::string_literals;
using Kind = SseEvent::Kind;

// An event copied out of the parser's views.
struct Seen {
  Kind kind;
  std::string type;
  std::string data;
  std::string last_event_id;
  std::uint64_t retry_ms = 0;
  std::string comment;
  bool operator==(const Seen&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Seen& s) {
  return os << "{kind " << static_cast<int>(s.kind) << ", type '" << s.type << "', data '" << s.data << "', id '"
            << s.last_event_id << "', retry " << s.retry_ms << ", comment '" << s.comment << "'}";
}

Seen message(std::string type, std::string data, std::string id = "") {
  return {Kind::Message, std::move(type), std::move(data), std::move(id)};
}
Seen retry(std::uint64_t ms) { return {Kind::Retry, "", "", "", ms}; }

// Feeds the chunks in order, draining after each, as a client does.
std::vector<Seen> run(EventStreamParser& parser, const std::vector<std::string>& chunks) {
  std::vector<Seen> seen;
  for (const std::string& chunk : chunks) {
    parser.feed(chunk);
    for (;;) {
      const SseEvent e = parser.next();
      if (e.kind == Kind::NeedMore) break;
      seen.push_back({e.kind, std::string(e.type), std::string(e.data), std::string(e.last_event_id), e.retry_ms,
                      std::string(e.comment)});
      if (e.kind == Kind::Error) seen.back().comment = e.error;
    }
  }
  return seen;
}

std::vector<Seen> run(const std::vector<std::string>& chunks, ParserLimits limits = {}) {
  EventStreamParser parser(limits);
  return run(parser, chunks);
}

// Every way of cutting `stream` into one, two (at each byte) and single-byte chunks must give
// the same events.
void expect_any_chunking(const std::string& stream, const std::vector<Seen>& expected) {
  EXPECT_EQ(run({stream}), expected) << "whole: " << stream;
  for (std::size_t cut = 1; cut < stream.size(); ++cut) {
    EXPECT_EQ(run({stream.substr(0, cut), stream.substr(cut)}), expected) << "cut at " << cut << ": " << stream;
  }
  std::vector<std::string> bytes;
  for (const char c : stream) bytes.emplace_back(1, c);
  EXPECT_EQ(run(bytes), expected) << "byte by byte: " << stream;
}

// ---- Vectors from eventsource-parser 3.1.1 (tests/vectors/event-stream/generate.cjs) ----
// Types and data are eventsource-parser's. Its ids are those of each event's own block; the
// last_event_id here is the standard's, which persists (see LastEventIdPersists).

TEST(EventStream, EventsourceParserVectors) {
  expect_any_chunking("data: simple\n\n", {message("message", "simple")});
  expect_any_chunking("data: first line\ndata: second line\n\n", {message("message", "first line\nsecond line")});
  expect_any_chunking("event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\n",
                      {message("add", "73857293"), message("remove", "2153")});
  expect_any_chunking(": a comment\ndata:no space\ndata:  two spaces\n\n", {message("message", "no space\n two spaces")});
  expect_any_chunking("data\ndata\n\n", {message("message", "\n")});
  expect_any_chunking("data:\n\n", {message("message", "")});
  expect_any_chunking("data: a\r\ndata: b\r\n\r\n", {message("message", "a\nb")});
  expect_any_chunking("data: a\rdata: b\r\r: next\n", {message("message", "a\nb")});
  expect_any_chunking("data: a\r\n\rdata: b\n\r\n", {message("message", "a"), message("message", "b")});
  expect_any_chunking("event: x\n\ndata: after an event without data\n\n", {message("message", "after an event without data")});
  expect_any_chunking("data: no blank line at the end", {});
  expect_any_chunking("retry: 10000\ndata: r\n\nretry: one thousand\nretry\nretry: 7\n\n",
                      {retry(10000), message("message", "r"), retry(7)});
  expect_any_chunking("id: 1\ndata: id is 1\n\ndata: no id field\n\nid\ndata: id emptied\n\n",
                      {message("message", "id is 1", "1"), message("message", "no id field", "1"),
                       message("message", "id emptied", "")});
  expect_any_chunking("field: unknown\nDATA: upper case is another field\ndata : space before the colon\ndata:kept\n\n",
                      {message("message", "kept")});
  expect_any_chunking("data: a:b:c\nevent:  spaced\n\n", {message(" spaced", "a:b:c")});
}

// ---- The standard, where eventsource-parser is not the reference -------------------------

TEST(EventStream, LastEventIdPersists) {
  EventStreamParser parser;
  EXPECT_EQ(run(parser, {"id: 7\ndata: a\n\ndata: b\n\n"}), (std::vector{message("message", "a", "7"), message("message", "b", "7")}));
  EXPECT_EQ(parser.last_event_id(), "7");
  // An id: in a block without data still becomes the last event ID at its blank line.
  EXPECT_EQ(run(parser, {"id: 8\n\ndata: c\n\n"}), std::vector{message("message", "c", "8")});
  EXPECT_EQ(parser.last_event_id(), "8");
  // An id holding NUL is ignored; the one before stays.
  EXPECT_EQ(run(parser, {"id: 9\0x\ndata: d\n\n"s}), std::vector{message("message", "d", "8")});
  // The ID is only taken at the blank line.
  EXPECT_EQ(run(parser, {"id: 10\ndata: e\n"}), std::vector<Seen>{});
  EXPECT_EQ(parser.last_event_id(), "8");
  EXPECT_EQ(run(parser, {"\n"}), std::vector{message("message", "e", "10")});
}

// What a client asks when the stream ends: would that lose anything? The last event ID
// buffer keeps its value between events, so buffered() cannot answer it.
TEST(EventStream, InEventSaysWhetherTheEndWouldLoseSomething) {
  EventStreamParser parser;
  EXPECT_FALSE(parser.in_event());
  run(parser, {"id: 1\ndata: a\n\n"});
  EXPECT_FALSE(parser.in_event());
  EXPECT_GT(parser.buffered(), 0u);  // the id buffer, which persists
  run(parser, {"data: b"});           // a line not ended
  EXPECT_TRUE(parser.in_event());
  run(parser, {"\n"});                // ended, but the event's blank line has not come
  EXPECT_TRUE(parser.in_event());
  run(parser, {"\n"});
  EXPECT_FALSE(parser.in_event());
  run(parser, {"event: x\n"});
  EXPECT_TRUE(parser.in_event());
  run(parser, {"\n"});                // a type without data dispatches nothing, and is dropped
  EXPECT_FALSE(parser.in_event());
  run(parser, {"id: 2\n"});           // an id alone would be taken at the blank line
  EXPECT_TRUE(parser.in_event());
  run(parser, {"\n"});
  EXPECT_FALSE(parser.in_event());
  run(parser, {": a comment\n"});
  EXPECT_FALSE(parser.in_event());
  run(parser, {"data: c"});
  parser.start_stream();              // a new stream forgets the old one's pending event
  EXPECT_FALSE(parser.in_event());
}

TEST(EventStream, ByteOrderMarkOnlyAtTheStartOfAStream) {
  const std::string bom = "\xEF\xBB\xBF";
  expect_any_chunking(bom + "data: 1\n\n", {message("message", "1")});
  // A second BOM is text: the first line's field name is then "\uFEFFdata", which is ignored.
  expect_any_chunking(bom + bom + "data: 1\n\ndata: 2\n\n", {message("message", "2")});
  // A BOM at the start of a later line is not dropped either.
  expect_any_chunking("data: 1\n\n" + bom + "data: 2\n\ndata: 3\n\n", {message("message", "1"), message("message", "3")});
  // A BOM in a value is kept (as U+FEFF).
  expect_any_chunking("data: " + bom + "x\n\n", {message("message", bom + "x")});
  // WPT eventsource/format-bom-utf-16: a UTF-16 BOM is two U+FFFD, so "data:1" is not data.
  expect_any_chunking("\xFF\xFE" "data:1\n\ndata:2\n\n", {message("message", "2")});
  // A BOM alone on the first line leaves a blank line.
  expect_any_chunking(bom + "\ndata: x\n\n", {message("message", "x")});
}

TEST(EventStream, InvalidUtf8BecomesReplacementCharacters) {
  const std::string fffd = "\xEF\xBF\xBD";
  expect_any_chunking("data: a\xFF" "b\n\n", {message("message", "a" + fffd + "b")});
  // A truncated sequence at the end of a line is one U+FFFD (maximal subpart), the LF intact.
  expect_any_chunking("data: \xE2\x82\n\n", {message("message", fffd)});
  // A surrogate (ED A0 80) is three maximal subparts: three U+FFFD.
  expect_any_chunking("data: \xED\xA0\x80\n\n", {message("message", fffd + fffd + fffd)});
  // Overlong and out-of-range forms.
  expect_any_chunking("data: \xC0\xAF|\xF4\x90\x80\x80\n\n", {message("message", fffd + fffd + "|" + fffd + fffd + fffd + fffd)});
  // Valid multi-byte text passes untouched, in the type and the id too.
  expect_any_chunking("event: caf\xC3\xA9\nid: \xF0\x9F\x90\x98\ndata: \xE6\x97\xA5\n\n",
                      {message("caf\xC3\xA9", "\xE6\x97\xA5", "\xF0\x9F\x90\x98")});
}

TEST(EventStream, RetryTakesDigitsOnly) {
  EventStreamParser parser;
  EXPECT_FALSE(parser.reconnection_time_ms());
  EXPECT_EQ(run(parser, {"retry: 1500\nretry: -1\nretry: 1.5\nretry: 12a\nretry:\nretry:  5\n"}), std::vector{retry(1500)});
  EXPECT_EQ(parser.reconnection_time_ms(), 1500u);
  // Digits beyond 64 bits saturate rather than wrap.
  EXPECT_EQ(run(parser, {"retry: 99999999999999999999999999\n"}), std::vector{retry(std::numeric_limits<std::uint64_t>::max())});
  EXPECT_EQ(run(parser, {"retry:0\n"}), std::vector{retry(0)});
}

TEST(EventStream, CommentsCanBeReported) {
  ParserLimits limits;
  limits.report_comments = true;
  const std::vector<Seen> seen = run({": heartbeat\n:\ndata: x\n\n"}, limits);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].kind, Kind::Comment);
  EXPECT_EQ(seen[0].comment, " heartbeat");
  EXPECT_EQ(seen[1].comment, "");
  EXPECT_EQ(seen[2], message("message", "x"));
}

TEST(EventStream, CrLfSplitAcrossChunksIsOneLineEnd) {
  // Two blank lines would dispatch nothing more, but an LF taken as a second line end after a
  // CR would end the event early: "data: a\r" | "\ndata: b\r\n\r\n" is one event "a\nb".
  EXPECT_EQ(run({"data: a\r", "\ndata: b\r", "\n\r", "\n"}), std::vector{message("message", "a\nb")});
  // A CR dispatches at once; it does not wait for the next chunk.
  EventStreamParser parser;
  EXPECT_EQ(run(parser, {"data: now\r\r"}), std::vector{message("message", "now")});
}

TEST(EventStream, FeedingBeforeTheParserDrainedCopiesAndKeepsOrder) {
  EventStreamParser parser;
  std::string first = "data: 1\n\ndata: 2\n\nda";
  parser.feed(first);
  SseEvent e = parser.next();
  ASSERT_EQ(e.kind, Kind::Message);
  EXPECT_EQ(e.data, "1");
  std::string second = "ta: 3\n\n";
  parser.feed(second);  // the first chunk is not used up: both are copied
  first.assign(first.size(), 'x');
  second.assign(second.size(), 'x');
  EXPECT_EQ(parser.next().data, "2");
  EXPECT_EQ(parser.next().data, "3");
  EXPECT_EQ(parser.next().kind, Kind::NeedMore);
}

TEST(EventStream, EventsLargerThanTheLimitAreAnError) {
  ParserLimits limits;
  limits.max_event_bytes = 64;
  // Many small data lines.
  std::vector<std::string> chunks;
  for (int i = 0; i < 20; ++i) chunks.push_back("data: 0123456789\n");
  std::vector<Seen> seen = run(chunks, limits);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].kind, Kind::Error);
  EXPECT_EQ(seen[0].comment, "event stream: an event grew past the limit of 64 bytes");
  // One endless line, fed in pieces: the unfinished line counts.
  chunks.assign(10, std::string(10, 'x'));
  seen = run(chunks, limits);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].kind, Kind::Error);
  // Bytes that are not UTF-8 triple in size as U+FFFD: the decoded buffers count.
  seen = run({"data: " + std::string(30, '\xff') + "\n"}, limits);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].kind, Kind::Error);
  // Events under the limit pass, however many.
  chunks.assign(100, "data: 0123456789\n\n");
  EXPECT_EQ(run(chunks, limits).size(), 100u);

  // Once failed, the parser ignores input until a new stream starts.
  EventStreamParser parser(limits);
  EXPECT_EQ(run(parser, {std::string(100, 'x')}).size(), 1u);
  EXPECT_TRUE(parser.stopped());
  EXPECT_EQ(run(parser, {"\ndata: ignored\n\n"}), std::vector<Seen>{});
  parser.start_stream();
  EXPECT_EQ(run(parser, {"data: back\n\n"}), std::vector{message("message", "back")});
}

TEST(EventStream, ANewStreamDiscardsThePendingEventButKeepsTheSourceState) {
  EventStreamParser parser;
  EXPECT_EQ(run(parser, {"retry: 3000\nid: 41\ndata: done\n\nid: 42\nevent: e\ndata: cut off"}),
            (std::vector{retry(3000), message("message", "done", "41")}));
  parser.start_stream();  // the connection dropped mid-event
  EXPECT_EQ(parser.last_event_id(), "41");  // what Last-Event-ID carries on reconnection
  EXPECT_EQ(parser.reconnection_time_ms(), 3000u);
  EXPECT_EQ(parser.buffered(), 0u);
  // The new stream's buffers start empty: its first event has no id of its own, so the
  // standard gives it the empty last event ID.
  EXPECT_EQ(run(parser, {"\xEF\xBB\xBF" "data: again\n\n"}), std::vector{message("message", "again", "")});
}

TEST(EventStream, ViewsStayValidUntilTheNextCall) {
  EventStreamParser parser;
  std::string chunk = "event: a\ndata: one\n\nevent: b\ndata: two\n\n";
  parser.feed(chunk);
  const SseEvent one = parser.next();
  const std::string type = std::string(one.type), data = std::string(one.data);
  EXPECT_EQ(type, "a");
  EXPECT_EQ(data, "one");
  const SseEvent two = parser.next();
  EXPECT_EQ(two.type, "b");
  EXPECT_EQ(two.data, "two");
  EXPECT_EQ(parser.next().kind, Kind::NeedMore);
}

}  // namespace
}  // namespace stampede::proto::sse
