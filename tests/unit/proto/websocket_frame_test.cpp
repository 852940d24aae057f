#include "proto/websocket_frame.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "bytes.hpp"

namespace stampede::proto::ws {
namespace {

using Kind = WsEvent::Kind;

// ---- helpers --------------------------------------------------------------------------------

std::string frame(Opcode opcode, std::string_view payload, bool fin = true,
                  std::optional<std::uint32_t> mask = std::nullopt, bool rsv1 = false) {
  std::string out;
  write_frame(out, opcode, payload, fin, mask, rsv1);
  return out;
}

using stampede::testing::bytes;

// An event with its views copied, so events from different runs can be compared.
struct Event {
  Kind kind = Kind::NeedMore;
  Opcode opcode = Opcode::Text;
  bool compressed = false;
  std::string payload;
  std::uint16_t close_code = 0;
  std::string reason;
  std::uint16_t error_code = 0;
  std::string error;
  bool operator==(const Event&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Event& e) {
  return os << "{kind " << static_cast<int>(e.kind) << ", opcode " << static_cast<int>(e.opcode) << ", payload \""
            << e.payload.substr(0, 40) << "\" (" << e.payload.size() << "), close " << e.close_code << " \"" << e.reason
            << "\", error " << e.error_code << " " << e.error << "}";
}

Event copy(const WsEvent& e) {
  Event out;
  out.kind = e.kind;
  if (e.kind == Kind::Message) {
    out.opcode = e.opcode;
    out.compressed = e.compressed;
  }
  out.payload = std::string(e.payload);
  if (e.kind == Kind::Close) {
    out.close_code = e.close_code;
    out.reason = std::string(e.reason);
  }
  out.error_code = e.error_code;
  out.error = e.error;
  return out;
}

std::vector<Event> drain(WebSocketReader& reader) {
  std::vector<Event> events;
  for (;;) {
    const WsEvent e = reader.next();
    if (e.kind == Kind::NeedMore) return events;
    events.push_back(copy(e));
  }
}

// Feeds the pieces in order, draining after each, as a connection does.
std::vector<Event> read_pieces(const std::vector<std::string>& pieces, Role role = Role::Client,
                               ReaderLimits limits = {}) {
  WebSocketReader reader(role, limits);
  std::vector<Event> events;
  for (const auto& piece : pieces) {
    reader.feed(piece);
    for (auto& e : drain(reader)) events.push_back(std::move(e));
  }
  return events;
}

std::vector<Event> read_whole(const std::string& bytes, Role role = Role::Client, ReaderLimits limits = {}) {
  return read_pieces({bytes}, role, limits);
}

// Cutting the stream anywhere, or feeding it a byte at a time, never changes what is read.
void expect_split_invariant(const std::string& bytes, Role role = Role::Client, ReaderLimits limits = {}) {
  const auto whole = read_whole(bytes, role, limits);
  for (std::size_t cut = 0; cut <= bytes.size(); ++cut) {
    ASSERT_EQ(read_pieces({bytes.substr(0, cut), bytes.substr(cut)}, role, limits), whole) << "cut at " << cut;
  }
  std::vector<std::string> drops;
  for (const char c : bytes) drops.emplace_back(1, c);
  ASSERT_EQ(read_pieces(drops, role, limits), whole) << "byte by byte";
}

Event message(Opcode opcode, std::string payload, bool compressed = false) {
  Event e;
  e.kind = Kind::Message;
  e.opcode = opcode;
  e.payload = std::move(payload);
  e.compressed = compressed;
  return e;
}
Event control(Kind kind, std::string payload) {
  Event e;
  e.kind = kind;
  e.payload = std::move(payload);
  return e;
}
Event close_event(std::uint16_t code, std::string reason) {
  Event e;
  e.kind = Kind::Close;
  e.close_code = code;
  e.reason = std::move(reason);
  return e;
}

void expect_error(const std::string& bytes, std::uint16_t code, std::string_view words, Role role = Role::Client,
                  ReaderLimits limits = {}) {
  const auto events = read_whole(bytes, role, limits);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().kind, Kind::Error) << events.back();
  EXPECT_EQ(events.back().error_code, code) << events.back();
  EXPECT_NE(events.back().error.find(words), std::string::npos) << events.back().error;
  expect_split_invariant(bytes, role, limits);
}

// ---- RFC 6455 5.7 examples ------------------------------------------------------------------

TEST(WebSocketFrame, RfcExamplesRead) {
  EXPECT_EQ(read_whole(bytes({0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f})),
            std::vector<Event>{message(Opcode::Text, "Hello")});
  EXPECT_EQ(read_whole(bytes({0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}), Role::Server),
            std::vector<Event>{message(Opcode::Text, "Hello")});
  EXPECT_EQ(read_whole(bytes({0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f})),
            std::vector<Event>{message(Opcode::Text, "Hello")});
  EXPECT_EQ(read_whole(bytes({0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f})),
            std::vector<Event>{control(Kind::Ping, "Hello")});
  EXPECT_EQ(read_whole(bytes({0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}), Role::Server),
            std::vector<Event>{control(Kind::Pong, "Hello")});
}

TEST(WebSocketFrame, RfcExamplesWritten) {
  EXPECT_EQ(frame(Opcode::Text, "Hello"), bytes({0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f}));
  EXPECT_EQ(frame(Opcode::Text, "Hello", true, 0x37fa213d),
            bytes({0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}));
  EXPECT_EQ(frame(Opcode::Text, "Hel", false), bytes({0x01, 0x03, 0x48, 0x65, 0x6c}));
  EXPECT_EQ(frame(Opcode::Continuation, "lo"), bytes({0x80, 0x02, 0x6c, 0x6f}));
  EXPECT_EQ(frame(Opcode::Binary, std::string(256, 'x')).substr(0, 4), bytes({0x82, 0x7e, 0x01, 0x00}));
  EXPECT_EQ(frame(Opcode::Binary, std::string(65536, 'x')).substr(0, 10),
            bytes({0x82, 0x7f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00}));
}

// ---- lengths and masking ----------------------------------------------------------------------

TEST(WebSocketFrame, LengthEncodingsAtTheirBoundaries) {
  for (const std::size_t size : {0u, 1u, 125u, 126u, 127u, 65535u, 65536u, 70000u}) {
    const std::string header = frame(Opcode::Binary, std::string(size, 'a')).substr(0, 2);
    const unsigned code = static_cast<unsigned char>(header[1]);
    EXPECT_EQ(code, size < 126 ? size : size <= 65535 ? 126u : 127u) << size;
  }
}

TEST(WebSocketFrame, WrittenFramesReadBackInBothRoles) {
  std::mt19937 rng(7);
  for (const std::size_t size : {0u, 1u, 7u, 8u, 9u, 125u, 126u, 65535u, 65536u, 300000u}) {
    std::string payload(size, '\0');
    for (auto& c : payload) c = static_cast<char>(rng());
    // Client to server: masked with a fresh key.
    const auto to_server = read_whole(frame(Opcode::Binary, payload, true, rng()), Role::Server);
    EXPECT_EQ(to_server, std::vector<Event>{message(Opcode::Binary, payload)}) << size;
    // Server to client: unmasked.
    const auto to_client = read_whole(frame(Opcode::Binary, payload), Role::Client);
    EXPECT_EQ(to_client, std::vector<Event>{message(Opcode::Binary, payload)}) << size;
  }
}

TEST(WebSocketFrame, MaskingInPiecesEqualsMaskingWhole) {
  std::string data;
  for (int i = 0; i < 100; ++i) data += static_cast<char>(i * 7);
  const std::uint32_t key = 0xdeadbeef;
  std::string whole = data;
  apply_mask(whole.data(), whole.size(), key);
  // Byte by byte with the plain rule of RFC 6455 5.3.
  const unsigned char k[4] = {0xde, 0xad, 0xbe, 0xef};
  for (std::size_t i = 0; i < data.size(); ++i) {
    EXPECT_EQ(static_cast<unsigned char>(whole[i]), static_cast<unsigned char>(data[i]) ^ k[i % 4]) << i;
  }
  for (std::size_t cut = 0; cut <= data.size(); ++cut) {
    std::string pieces = data;
    apply_mask(pieces.data(), cut, key, 0);
    apply_mask(pieces.data() + cut, pieces.size() - cut, key, cut);
    ASSERT_EQ(pieces, whole) << cut;
  }
  apply_mask(whole.data(), whole.size(), key);
  EXPECT_EQ(whole, data);
}

TEST(WebSocketFrame, AWholeUnmaskedMessageIsReturnedWhereItLies) {
  const std::string bytes = frame(Opcode::Text, "in place");
  WebSocketReader reader(Role::Client);
  reader.feed(bytes);
  const WsEvent e = reader.next();
  ASSERT_EQ(e.kind, Kind::Message);
  EXPECT_EQ(e.payload.data(), bytes.data() + 2) << "no copy expected";
  EXPECT_EQ(reader.next().kind, Kind::NeedMore);
  EXPECT_EQ(reader.buffered(), 0u);
}

// ---- fragmentation and splitting --------------------------------------------------------------

TEST(WebSocketFrame, FragmentsWithControlFramesBetweenThem) {
  const std::string bytes = frame(Opcode::Text, "Hel", false) + frame(Opcode::Ping, "p1") +
                            frame(Opcode::Continuation, "lo ", false) + frame(Opcode::Pong, "") +
                            frame(Opcode::Continuation, "w\xc3", false) + frame(Opcode::Continuation, "\xb6rld") +
                            frame(Opcode::Binary, std::string(300, 'b')) + frame(Opcode::Close, close_payload(1000, "bye"));
  const std::vector<Event> expected = {control(Kind::Ping, "p1"), control(Kind::Pong, ""),
                                       message(Opcode::Text, "Hello w\xc3\xb6rld"),
                                       message(Opcode::Binary, std::string(300, 'b')), close_event(1000, "bye")};
  EXPECT_EQ(read_whole(bytes), expected);
  expect_split_invariant(bytes);
}

TEST(WebSocketFrame, MaskedFragmentsSplitAnywhere) {
  const std::string bytes = frame(Opcode::Binary, "first part ", false, 0x11223344) +
                            frame(Opcode::Ping, "ping!", true, 0x55667788) +
                            frame(Opcode::Continuation, "and the second part", true, 0x99aabbcc) +
                            frame(Opcode::Text, std::string(200, 'y'), true, 0x01020304);
  const std::vector<Event> expected = {control(Kind::Ping, "ping!"),
                                       message(Opcode::Binary, "first part and the second part"),
                                       message(Opcode::Text, std::string(200, 'y'))};
  EXPECT_EQ(read_whole(bytes, Role::Server), expected);
  expect_split_invariant(bytes, Role::Server);
}

TEST(WebSocketFrame, EmptyMessagesAndEmptyFragments) {
  const std::string bytes = frame(Opcode::Text, "") + frame(Opcode::Binary, "", false) +
                            frame(Opcode::Continuation, "", false) + frame(Opcode::Continuation, "");
  EXPECT_EQ(read_whole(bytes), (std::vector<Event>{message(Opcode::Text, ""), message(Opcode::Binary, "")}));
  expect_split_invariant(bytes);
}

TEST(WebSocketFrame, FeedingAgainBeforeDrainingKeepsEverything) {
  const std::string a = frame(Opcode::Text, "one") + frame(Opcode::Text, "tw");
  const std::string b = frame(Opcode::Text, "three");
  const std::string whole = a + b;
  WebSocketReader reader(Role::Client);
  reader.feed(std::string_view(whole).substr(0, a.size() - 1));
  reader.feed(std::string_view(whole).substr(a.size() - 1));
  EXPECT_EQ(drain(reader), (std::vector<Event>{message(Opcode::Text, "one"), message(Opcode::Text, "tw"),
                                               message(Opcode::Text, "three")}));
}

TEST(WebSocketFrame, RsvOneMarksACompressedMessageWhenAllowed) {
  const std::string bytes = frame(Opcode::Text, "\xf2\x48", false, std::nullopt, true) +
                            frame(Opcode::Continuation, "\xcd\xc9");
  ReaderLimits limits;
  limits.allow_rsv1 = true;
  // A compressed text message is not UTF-8 until inflated: the reader leaves that check.
  EXPECT_EQ(read_whole(bytes, Role::Client, limits),
            std::vector<Event>{message(Opcode::Text, "\xf2\x48\xcd\xc9", /*compressed=*/true)});
  expect_split_invariant(bytes, Role::Client, limits);
}

TEST(WebSocketFrame, IdleReaderHoldsNothingAndShrinks) {
  WebSocketReader reader(Role::Client);
  const std::string big = frame(Opcode::Binary, std::string(100000, 'q'));
  reader.feed(std::string_view(big).substr(0, 50000));
  EXPECT_EQ(drain(reader).size(), 0u);
  EXPECT_GT(reader.buffered(), 49000u);
  reader.feed(std::string_view(big).substr(50000));
  const auto events = drain(reader);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].payload.size(), 100000u);
  EXPECT_EQ(reader.buffered(), 0u);
  reader.shrink();
  EXPECT_EQ(reader.buffered(), 0u);
  const std::string again = frame(Opcode::Text, "again");
  reader.feed(again);
  EXPECT_EQ(drain(reader), std::vector<Event>{message(Opcode::Text, "again")});
}

TEST(WebSocketFrame, NothingIsReadAfterAClose) {
  const std::string bytes = frame(Opcode::Close, close_payload(1001, "")) + frame(Opcode::Text, "late");
  EXPECT_EQ(read_whole(bytes), std::vector<Event>{close_event(1001, "")});
  WebSocketReader reader(Role::Client);
  reader.feed(bytes);
  drain(reader);
  EXPECT_TRUE(reader.stopped());
  const std::string later = frame(Opcode::Text, "later");
  reader.feed(later);
  EXPECT_EQ(reader.next().kind, Kind::NeedMore);
}

// ---- close frames -----------------------------------------------------------------------------

TEST(WebSocketFrame, CloseWithoutPayloadHasNoStatus) {
  EXPECT_EQ(read_whole(frame(Opcode::Close, "")), std::vector<Event>{close_event(close_code::kNoStatus, "")});
}

TEST(WebSocketFrame, ValidCloseCodesAreAccepted) {
  for (const int code : {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000,
                         4999}) {
    const auto events = read_whole(frame(Opcode::Close, close_payload(static_cast<std::uint16_t>(code), "why")));
    EXPECT_EQ(events, std::vector<Event>{close_event(static_cast<std::uint16_t>(code), "why")}) << code;
  }
}

TEST(WebSocketFrame, InvalidCloseCodesAreProtocolErrors) {
  for (const int code : {0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535}) {
    const std::string payload = bytes({code >> 8, code & 0xff});
    expect_error(frame(Opcode::Close, payload), close_code::kProtocolError, "invalid status code");
  }
}

TEST(WebSocketFrame, AOneByteClosePayloadIsAProtocolError) {
  expect_error(frame(Opcode::Close, "\x03"), close_code::kProtocolError, "1-byte payload");
}

TEST(WebSocketFrame, ACloseReasonMustBeUtf8) {
  expect_error(frame(Opcode::Close, close_payload(1000, "bad \xff")), close_code::kInvalidPayload, "not valid UTF-8");
}

TEST(WebSocketFrame, ClosePayloadCutsTheReasonAtACharacterBoundary) {
  EXPECT_EQ(close_payload(1000, "bye"), bytes({0x03, 0xe8, 'b', 'y', 'e'}));
  EXPECT_EQ(close_payload(close_code::kNoStatus, "ignored"), "");
  std::string long_reason(122, 'a');
  long_reason += "\xc3\xa9";  // 2 bytes from 122: would end at 124 > 123
  const std::string payload = close_payload(4000, long_reason);
  EXPECT_EQ(payload.size(), 2u + 122u);
  EXPECT_TRUE(is_valid_utf8(payload.substr(2)));
  EXPECT_EQ(close_payload(4000, std::string(500, 'x')).size(), 125u);
}

// ---- every protocol error ---------------------------------------------------------------------

TEST(WebSocketFrame, ReservedBitsAreProtocolErrors) {
  std::string rsv2 = frame(Opcode::Text, "x");
  rsv2[0] = static_cast<char>(rsv2[0] | 0x20);
  expect_error(rsv2, close_code::kProtocolError, "RSV2 or RSV3");
  std::string rsv3 = frame(Opcode::Text, "x");
  rsv3[0] = static_cast<char>(rsv3[0] | 0x10);
  expect_error(rsv3, close_code::kProtocolError, "RSV2 or RSV3");
  expect_error(frame(Opcode::Text, "x", true, std::nullopt, true), close_code::kProtocolError,
               "permessage-deflate was not negotiated");
  ReaderLimits deflate;
  deflate.allow_rsv1 = true;
  expect_error(frame(Opcode::Text, "x", false, std::nullopt, true) + frame(Opcode::Continuation, "y", true, std::nullopt, true),
               close_code::kProtocolError, "continuation frame has RSV1", Role::Client, deflate);
  std::string ping_rsv1 = frame(Opcode::Ping, "x");
  ping_rsv1[0] = static_cast<char>(ping_rsv1[0] | 0x40);
  expect_error(ping_rsv1, close_code::kProtocolError, "ping frame has RSV1", Role::Client, deflate);
}

TEST(WebSocketFrame, ReservedOpcodesAreProtocolErrors) {
  for (const int opcode : {0x3, 0x4, 0x5, 0x6, 0x7, 0xB, 0xC, 0xD, 0xE, 0xF}) {
    expect_error(bytes({0x80 | opcode, 0x00}), close_code::kProtocolError, "reserved opcode");
  }
}

TEST(WebSocketFrame, ControlFramesMustBeShortAndWhole) {
  expect_error(bytes({0x09, 0x00}), close_code::kProtocolError, "ping frame is fragmented");
  expect_error(bytes({0x08, 0x00}), close_code::kProtocolError, "close frame is fragmented");
  std::string long_ping = bytes({0x89, 0x7e, 0x00, 0x7e}) + std::string(126, 'p');
  expect_error(long_ping, close_code::kProtocolError, "carries 126 bytes");
  EXPECT_THROW(frame(Opcode::Ping, std::string(126, 'p')), std::invalid_argument);
  EXPECT_THROW(frame(Opcode::Close, "", false), std::invalid_argument);
  EXPECT_NO_THROW(frame(Opcode::Ping, std::string(125, 'p')));
}

TEST(WebSocketFrame, FragmentSequenceErrors) {
  expect_error(frame(Opcode::Continuation, "orphan"), close_code::kProtocolError, "no fragmented message to continue");
  expect_error(frame(Opcode::Text, "a", false) + frame(Opcode::Binary, "b"), close_code::kProtocolError,
               "new message started");
}

TEST(WebSocketFrame, MaskingMustMatchTheRole) {
  expect_error(frame(Opcode::Text, "unmasked"), close_code::kProtocolError, "unmasked frame", Role::Server);
  expect_error(frame(Opcode::Text, "masked", true, 0x01020304), close_code::kProtocolError, "masked frame",
               Role::Client);
}

TEST(WebSocketFrame, A64BitLengthWithItsTopBitSetIsAProtocolError) {
  expect_error(bytes({0x82, 0x7f, 0x80, 0, 0, 0, 0, 0, 0, 0}), close_code::kProtocolError, "most significant bit");
}

TEST(WebSocketFrame, TheSizeLimitIsJudgedFromTheHeaderAlone) {
  // 100 MiB announced, none of it sent: refused as soon as the 10 header bytes are in.
  WebSocketReader reader(Role::Client);
  const std::string header = bytes({0x82, 0x7f, 0, 0, 0, 0, 0x06, 0x40, 0, 0});
  reader.feed(std::string_view(header).substr(0, 9));
  EXPECT_EQ(reader.next().kind, Kind::NeedMore);
  reader.feed(std::string_view(header).substr(9));
  const WsEvent e = reader.next();
  ASSERT_EQ(e.kind, Kind::Error);
  EXPECT_EQ(e.error_code, close_code::kTooBig);
  EXPECT_NE(e.error.find("104857600"), std::string::npos) << e.error;
  EXPECT_LT(reader.buffered(), 64u);

  ReaderLimits small;
  small.max_message_bytes = 100;
  expect_error(frame(Opcode::Text, std::string(101, 'a')), close_code::kTooBig, "exceeds the limit of 100",
               Role::Client, small);
  EXPECT_EQ(read_whole(frame(Opcode::Text, std::string(100, 'a')), Role::Client, small),
            std::vector<Event>{message(Opcode::Text, std::string(100, 'a'))});
  // The limit is for the reassembled message: 60 + 60 fragments are too many.
  expect_error(frame(Opcode::Binary, std::string(60, 'a'), false) + frame(Opcode::Continuation, std::string(60, 'a')),
               close_code::kTooBig, "at least 120 bytes", Role::Client, small);
}

// ---- UTF-8 ------------------------------------------------------------------------------------

TEST(WebSocketFrame, TextMustBeUtf8) {
  expect_error(frame(Opcode::Text, "caf\xe9"), close_code::kInvalidPayload, "UTF-8");
  // Invalid in the first fragment: refused before the rest arrives.
  const auto events = read_whole(frame(Opcode::Text, "\xff", false));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].error_code, close_code::kInvalidPayload);
  // A character cut by the end of the message.
  expect_error(frame(Opcode::Text, "abc\xe2\x82"), close_code::kInvalidPayload, "ends inside a UTF-8 character");
  // Binary messages are not checked.
  EXPECT_EQ(read_whole(frame(Opcode::Binary, "\xff\xfe")), std::vector<Event>{message(Opcode::Binary, "\xff\xfe")});
}

TEST(Utf8Validator, AcceptsValidTextAndRejectsEveryKindOfBadSequence) {
  const std::vector<std::string> valid = {"", "plain ascii that is longer than eight bytes", "\xc2\x80", "\xdf\xbf",
                                          "\xe0\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf",
                                          "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf", "κόσμε", "日本語テキスト",
                                          "emoji \xf0\x9f\x98\x80 in text"};
  for (const auto& text : valid) EXPECT_TRUE(is_valid_utf8(text)) << text;
  const std::vector<std::string> invalid = {
      "\x80",              // a lone continuation byte
      "\xc0\xaf",          // overlong '/'
      "\xc1\xbf",          // overlong
      "\xe0\x80\xaf",      // overlong 3-byte
      "\xe0\x9f\xbf",      // overlong 3-byte (upper edge)
      "\xed\xa0\x80",      // surrogate U+D800
      "\xed\xbf\xbf",      // surrogate U+DFFF
      "\xf0\x80\x80\xaf",  // overlong 4-byte
      "\xf0\x8f\xbf\xbf",  // overlong 4-byte (upper edge)
      "\xf4\x90\x80\x80",  // above U+10FFFF
      "\xf5\x80\x80\x80",  // lead byte F5
      "\xff",              // never valid
      "\xc3",              // truncated
      "\xe2\x82",          // truncated
      "\xc3\x28",          // bad continuation
      "ascii then \xe2\x28\xa1",
  };
  for (const auto& text : invalid) EXPECT_FALSE(is_valid_utf8(text)) << "index " << (&text - invalid.data());
}

TEST(Utf8Validator, SplitAnywhereGivesTheSameVerdict) {
  const std::string text = "Grüße, 世界! \xf0\x9f\x8c\x8d and some more ASCII to cross the 8-byte fast path";
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    Utf8Validator v;
    EXPECT_TRUE(v.feed(std::string_view(text).substr(0, cut)));
    EXPECT_TRUE(v.feed(std::string_view(text).substr(cut)));
    EXPECT_TRUE(v.complete()) << cut;
  }
  Utf8Validator v;
  EXPECT_TRUE(v.feed("\xe4\xb8"));
  EXPECT_FALSE(v.complete());
  EXPECT_FALSE(v.feed("\x41"));
  EXPECT_FALSE(v.feed("more"));  // stays failed
}

}  // namespace
}  // namespace stampede::proto::ws

namespace stampede::proto::ws {
namespace {

// A large message arriving over many reads is assembled once, in a buffer sized from its
// frame header (no doubling), and handed over without a copy.
TEST(WebSocketFrame, ALargeMessageIsHeldOnceAndHandedOver) {
  const std::string payload(3'000'000, 'x');
  std::string frame;
  write_frame(frame, Opcode::Binary, payload);
  WebSocketReader reader(Role::Client, ReaderLimits{8'000'000, false});
  WsEvent event;
  for (std::size_t at = 0; at < frame.size(); at += 65536) {
    const std::string_view piece = std::string_view(frame).substr(at, 65536);
    reader.feed(piece);
    event = reader.next();
    if (event.kind == WsEvent::Kind::Message) break;
    ASSERT_EQ(event.kind, WsEvent::Kind::NeedMore);
  }
  ASSERT_EQ(event.kind, WsEvent::Kind::Message);
  const char* assembled = event.payload.data();
  std::string taken = reader.take_payload(event);
  EXPECT_EQ(taken.size(), payload.size());
  EXPECT_EQ(taken.capacity(), payload.size());  // reserved from the header, never grown
  EXPECT_EQ(taken.data(), assembled);           // moved out, not copied
  EXPECT_EQ(taken, payload);
  EXPECT_EQ(reader.next().kind, WsEvent::Kind::NeedMore);

  // A whole message in one read is returned where it lies: taking it copies it.
  std::string small;
  write_frame(small, Opcode::Text, "hello");
  reader.feed(small);
  const WsEvent whole = reader.next();
  ASSERT_EQ(whole.kind, WsEvent::Kind::Message);
  EXPECT_EQ(reader.take_payload(whole), "hello");
}

}  // namespace
}  // namespace stampede::proto::ws
