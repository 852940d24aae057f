#include "proto/http_response_parser.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "proto/chunked_framing_failures.hpp"

namespace stampede::proto {
namespace {

using State = HttpResponseParser::State;

// ---- helpers --------------------------------------------------------------------------------

std::string compress(std::string_view data, int window_bits) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, static_cast<uLong>(data.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}
std::string gzip(std::string_view data) { return compress(data, 15 + 16); }
std::string zlib_wrapped(std::string_view data) { return compress(data, 15); }
std::string raw_deflate(std::string_view data) { return compress(data, -15); }

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng() & 0xff);
  return s;
}

std::string text_body(std::size_t n) {
  std::string s;
  while (s.size() < n) s += "the quick brown fox jumps over the lazy dog " + std::to_string(s.size()) + "\n";
  s.resize(n);
  return s;
}

std::string with_length(std::string_view headers, std::string_view body, std::string_view status = "200 OK") {
  return "HTTP/1.1 " + std::string(status) + "\r\n" + std::string(headers) +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

// Chunks of `chunk` bytes, every other one with an extension, and a trailer section.
std::string chunked(std::string_view headers, std::string_view body, std::size_t chunk) {
  std::string out = "HTTP/1.1 200 OK\r\n" + std::string(headers) + "Transfer-Encoding: chunked\r\n\r\n";
  bool extension = false;
  for (std::size_t i = 0; i < body.size(); i += chunk) {
    const std::string_view piece = body.substr(i, chunk);
    char size[32];
    std::snprintf(size, sizeof size, "%zx", piece.size());
    out += size;
    if (extension) out += ";name=\"va;lue\"";
    extension = !extension;
    out += "\r\n";
    out += piece;
    out += "\r\n";
  }
  out += "0\r\nServer-Timing: total;dur=12\r\nX-Checksum: abc\r\n\r\n";
  return out;
}

struct Outcome {
  State state = State::Head;
  int status = 0;
  std::string body;
  std::string error;
  std::size_t consumed = 0;
  bool keep_alive = false;
  std::vector<std::pair<std::string, std::string>> headers;

  bool operator==(const Outcome&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  return os << "{state " << static_cast<int>(o.state) << ", status " << o.status << ", body " << o.body.size()
            << " bytes, error \"" << o.error << "\", consumed " << o.consumed << "}";
}

struct RunOptions {
  bool head_request = false;
  bool eof = false;  // the peer closes after the bytes
  HttpParserLimits limits{};
};

// Feeds `bytes` cut at `cuts` (ascending offsets) the way a connection would: stops feeding
// once the parser stops consuming, then reports the peer's close when asked to.
Outcome run(std::string_view bytes, const std::vector<std::size_t>& cuts, const RunOptions& options = {}) {
  HttpResponseParser p(options.limits);
  p.reset(options.head_request);
  Outcome o;
  std::size_t from = 0;
  std::vector<std::size_t> ends = cuts;
  ends.push_back(bytes.size());
  for (const std::size_t end : ends) {
    const std::string_view piece = bytes.substr(from, end - from);
    from = end;
    const std::size_t used = p.feed(piece);
    o.consumed += used;
    if (used < piece.size() || p.done() || p.failed()) break;
  }
  if (options.eof) p.finish_eof();
  o.state = p.state();
  o.status = p.head().status;
  o.body = p.body();
  o.error = p.error();
  o.keep_alive = p.keep_alive();
  for (const auto& h : p.head().headers) o.headers.emplace_back(h.name, h.value);
  if (p.failed()) {
    // After an error the connection is dropped: how far the parser got is not part of the
    // result, and depends on where the bytes were cut.
    o.body.clear();
    o.consumed = 0;
  }
  return o;
}

Outcome run_whole(std::string_view bytes, const RunOptions& options = {}) { return run(bytes, {}, options); }

Outcome run_bytewise(std::string_view bytes, const RunOptions& options = {}) {
  std::vector<std::size_t> cuts;
  for (std::size_t i = 1; i < bytes.size(); ++i) cuts.push_back(i);
  return run(bytes, cuts, options);
}

// The invariant that makes the parser safe to use on a socket: however the bytes arrive, the
// result is the same.
void expect_split_invariant(std::string_view bytes, const RunOptions& options = {}) {
  const Outcome whole = run_whole(bytes, options);
  for (std::size_t cut = 0; cut <= bytes.size(); ++cut) {
    ASSERT_EQ(run(bytes, {cut}, options), whole) << "split at " << cut;
  }
  ASSERT_EQ(run_bytewise(bytes, options), whole) << "one byte at a time";
}

// ---- framing --------------------------------------------------------------------------------

TEST(HttpResponseParser, ContentLengthBodyWithHeadersLowercasedAndTrimmed) {
  const std::string bytes = with_length("Content-Type:  text/plain \r\nX-Request-ID:\tabc\t\r\n", "hello world");
  const Outcome o = run_whole(bytes);
  EXPECT_EQ(o.state, State::Done);
  EXPECT_EQ(o.status, 200);
  EXPECT_EQ(o.body, "hello world");
  EXPECT_EQ(o.consumed, bytes.size());
  EXPECT_TRUE(o.keep_alive);
  ASSERT_EQ(o.headers.size(), 3u);
  EXPECT_EQ(o.headers[0], (std::pair<std::string, std::string>{"content-type", "text/plain"}));
  EXPECT_EQ(o.headers[1], (std::pair<std::string, std::string>{"x-request-id", "abc"}));
  EXPECT_EQ(o.headers[2], (std::pair<std::string, std::string>{"content-length", "11"}));
  expect_split_invariant(bytes);
}

TEST(HttpResponseParser, HeadInPiecesOfOneByteThenTheRest) {
  const std::string bytes = with_length("Content-Type: text/plain\r\n", "hello");
  const Outcome whole = run_whole(bytes);
  ASSERT_EQ(whole.state, State::Done);
  EXPECT_EQ(run(bytes, {1, 2}), whole);
  EXPECT_EQ(run(bytes, {1, 2, 3}), whole);
}

TEST(HttpResponseParser, ReasonPhraseIsKeptAndMayBeAbsent) {
  HttpResponseParser p;
  p.feed("HTTP/1.1 404 Not Found Here\r\nContent-Length: 0\r\n\r\n");
  EXPECT_TRUE(p.done());
  EXPECT_EQ(p.head().reason, "Not Found Here");
  EXPECT_EQ(p.head().version_minor, 1);

  p.reset();
  p.feed("HTTP/1.0 503 \r\nContent-Length: 0\r\n\r\n");
  EXPECT_TRUE(p.done());
  EXPECT_EQ(p.head().status, 503);
  EXPECT_EQ(p.head().reason, "");
  EXPECT_EQ(p.head().version_minor, 0);

  // The space after the status is required (RFC 9112 4), as Beast reads it.
  p.reset();
  p.feed("HTTP/1.1 503\r\nContent-Length: 0\r\n\r\n");
  EXPECT_TRUE(p.failed());
  EXPECT_EQ(p.error(), "malformed status line \"HTTP/1.1 503\"");
}

TEST(HttpResponseParser, ChunkedWithExtensionsAndTrailers) {
  const std::string body = text_body(300);
  const std::string bytes = chunked("", body, 37);
  const Outcome o = run_whole(bytes);
  EXPECT_EQ(o.state, State::Done) << o.error;
  EXPECT_EQ(o.body, body);
  EXPECT_EQ(o.consumed, bytes.size());
  EXPECT_TRUE(o.keep_alive);
  expect_split_invariant(bytes);
}

TEST(HttpResponseParser, ChunkedAcceptsUppercaseHex) {
  const std::string bytes = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n";
  const Outcome o = run_whole(bytes);
  EXPECT_EQ(o.state, State::Done) << o.error;
  EXPECT_EQ(o.body, "0123456789");
  EXPECT_EQ(o.consumed, bytes.size());
  expect_split_invariant(bytes);
}

// Beast's grammar wants CRLF line ends (RFC 9112 2.2 allows a recipient to accept a bare LF;
// Beast does not): a head or chunk line ended by LF alone fails, however the bytes arrive,
// and a head fails as soon as its bare LF arrives, not when the peer gives up.
TEST(HttpResponseParser, BareLfLineEndsFail) {
  for (const std::string bytes : {"HTTP/1.1 200 OK\nContent-Length: 0\n\n", "HTTP/1.1 200 OK\r\nContent-Length: 0\n\r\n\r\n",
                                  "HTTP/1.1 200 OK\r\nX: 1\r\n\n"}) {
    const Outcome o = run_whole(bytes);
    EXPECT_EQ(o.state, State::Error) << bytes;
    EXPECT_EQ(o.error, "bare LF in the response head (HTTP/1.1 lines end with CRLF)");
    expect_split_invariant(bytes);
  }
  const std::string chunk_line = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\n0123456789\r\n0\r\n\r\n";
  EXPECT_EQ(run_whole(chunk_line).state, State::Error);
  expect_split_invariant(chunk_line);
  // A LF alone in the body is the body's.
  const Outcome body = run_whole(with_length("", "a\nb\n\n"));
  EXPECT_EQ(body.state, State::Done) << body.error;
  expect_split_invariant(with_length("", "a\nb\n\n"));
}

// Both framings in one response is how responses are split (RFC 9112 6.3: "ought to be
// handled as an error"); Beast refuses it in either order.
TEST(HttpResponseParser, ContentLengthWithTransferEncodingFails) {
  for (const std::string bytes :
       {"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 100\r\n\r\n3\r\nabc\r\n0\r\n\r\n"}) {
    const Outcome o = run_whole(bytes);
    EXPECT_EQ(o.state, State::Error);
    EXPECT_EQ(o.error.rfind("both Content-Length and Transfer-Encoding: chunked", 0), 0u) << o.error;
    expect_split_invariant(bytes);
  }
}

TEST(HttpResponseParser, CloseDelimitedBodyEndsAtEof) {
  const std::string bytes = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>until the end</html>";
  RunOptions eof;
  eof.eof = true;
  const Outcome o = run_whole(bytes, eof);
  EXPECT_EQ(o.state, State::Done) << o.error;
  EXPECT_EQ(o.body, "<html>until the end</html>");
  EXPECT_FALSE(o.keep_alive);
  expect_split_invariant(bytes, eof);

  const Outcome waiting = run_whole(bytes);
  EXPECT_EQ(waiting.state, State::Body);
  EXPECT_EQ(waiting.consumed, bytes.size());
  EXPECT_FALSE(waiting.keep_alive);
}

TEST(HttpResponseParser, EmptyCloseDelimitedBody) {
  RunOptions eof;
  eof.eof = true;
  const Outcome o = run_whole("HTTP/1.0 200 OK\r\n\r\n", eof);
  EXPECT_EQ(o.state, State::Done);
  EXPECT_EQ(o.body, "");
}

TEST(HttpResponseParser, HeadResponseHasNoBodyDespiteContentLength) {
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n";
  const std::string bytes = head + "HTTP/1.1 200 OK\r\n";  // the next response follows at once
  RunOptions head_request;
  head_request.head_request = true;
  const Outcome o = run_whole(bytes, head_request);
  EXPECT_EQ(o.state, State::Done);
  EXPECT_EQ(o.body, "");
  EXPECT_EQ(o.consumed, head.size());
  EXPECT_TRUE(o.keep_alive);
  expect_split_invariant(bytes, head_request);
}

TEST(HttpResponseParser, NoContentAndNotModifiedHaveNoBody) {
  for (const char* status : {"204 No Content", "304 Not Modified"}) {
    const std::string head =
        std::string("HTTP/1.1 ") + status + "\r\nContent-Length: 10\r\nContent-Encoding: gzip\r\n\r\n";
    const Outcome o = run_whole(head + "HTTP/1.1 200 OK\r\n");
    EXPECT_EQ(o.state, State::Done) << status;
    EXPECT_EQ(o.consumed, head.size()) << status;
    EXPECT_EQ(o.body, "") << status;
    EXPECT_TRUE(o.keep_alive) << status;
  }
}

TEST(HttpResponseParser, ZeroContentLengthCompletesWithTheHead) {
  HttpResponseParser p;
  const std::string bytes = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  EXPECT_EQ(p.feed(bytes), bytes.size());
  EXPECT_TRUE(p.done());
}

TEST(HttpResponseParser, InterimResponsesAreSkipped) {
  const std::string final_response = with_length("X-Final: yes\r\n", "done");
  const std::string bytes = "HTTP/1.1 100 Continue\r\n\r\n"
                            "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n" +
                            final_response;
  const Outcome o = run_whole(bytes);
  EXPECT_EQ(o.state, State::Done) << o.error;
  EXPECT_EQ(o.status, 200);
  EXPECT_EQ(o.body, "done");
  EXPECT_EQ(o.consumed, bytes.size());
  ASSERT_EQ(o.headers.size(), 2u);
  EXPECT_EQ(o.headers[0].first, "x-final");  // the interim headers are gone
  expect_split_invariant(bytes);
}

TEST(HttpResponseParser, SwitchingProtocolsEndsAtTheHeadAndLeavesTheRest) {
  const std::string head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
  const std::string bytes = head + "\x81\x05hello";
  const Outcome o = run_whole(bytes);
  EXPECT_EQ(o.state, State::Done);
  EXPECT_EQ(o.status, 101);
  EXPECT_EQ(o.consumed, head.size());
  EXPECT_FALSE(o.keep_alive);  // the connection now speaks another protocol
  expect_split_invariant(bytes);
}

TEST(HttpResponseParser, PipelinedResponsesInOneBuffer) {
  const std::string first = with_length("", "first");
  const std::string second = chunked("", "second body", 4);
  const std::string bytes = first + second;

  HttpResponseParser p;
  std::string_view rest = bytes;
  const std::size_t used = p.feed(rest);
  EXPECT_EQ(used, first.size());
  ASSERT_TRUE(p.done());
  EXPECT_EQ(p.body(), "first");
  EXPECT_EQ(p.feed(rest.substr(used)), 0u) << "a finished parser takes nothing until reset";

  rest.remove_prefix(used);
  p.reset();
  EXPECT_EQ(p.feed(rest), second.size());
  ASSERT_TRUE(p.done()) << p.error();
  EXPECT_EQ(p.body(), "second body");
}

TEST(HttpResponseParser, StrayLineBreaksBeforeTheStatusLineAreSkippedAndDoNotStartTheResponse) {
  HttpResponseParser p;
  EXPECT_EQ(p.feed("\r\n\r\n"), 4u);
  EXPECT_FALSE(p.started());
  EXPECT_EQ(p.state(), State::Head);
  p.feed("H");
  EXPECT_TRUE(p.started());
  p.feed("TTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
  EXPECT_TRUE(p.done());
  EXPECT_EQ(p.body(), "ok");
}

TEST(HttpResponseParser, ObsoleteLineFoldingJoinsWithASpace) {
  const Outcome o = run_whole("HTTP/1.1 200 OK\r\nX-Long: first\r\n  second\r\n\tthird\r\nContent-Length: 0\r\n\r\n");
  ASSERT_EQ(o.state, State::Done) << o.error;
  EXPECT_EQ(o.headers[0], (std::pair<std::string, std::string>{"x-long", "first second third"}));
}

TEST(HttpResponseParser, DuplicateEqualContentLengthsAreAccepted) {
  const Outcome o = run_whole("HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc");
  EXPECT_EQ(o.state, State::Done) << o.error;
  EXPECT_EQ(o.body, "abc");
}

TEST(HttpResponseParser, BodyIsReservedFromContentLength) {
  HttpResponseParser p;
  p.feed("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\nab");
  EXPECT_GE(p.body().capacity(), 100000u);
}

// ---- keep-alive ------------------------------------------------------------------------------

TEST(HttpResponseParser, KeepAliveFollowsVersionAndConnectionHeader) {
  struct Case {
    std::string head;
    bool keep_alive;
  };
  const std::vector<Case> cases = {
      {"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true},
      {"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", false},
      {"HTTP/1.1 200 OK\r\nConnection: Upgrade, CLOSE\r\nContent-Length: 0\r\n\r\n", false},
      {"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false},
      {"HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n", true},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", true},
  };
  for (const auto& c : cases) {
    HttpResponseParser p;
    p.feed(c.head);
    ASSERT_TRUE(p.done()) << c.head << p.error();
    EXPECT_EQ(p.keep_alive(), c.keep_alive) << c.head;
  }
}

TEST(HttpResponseParser, KeepAliveIsFalseBeforeTheHeadAndOnError) {
  HttpResponseParser p;
  EXPECT_FALSE(p.keep_alive());
  p.feed("HTTP/1.1 200 OK\r\nContent-Le");
  EXPECT_FALSE(p.keep_alive());
  p.feed("ngth: x\r\n\r\n");
  EXPECT_TRUE(p.failed());
  EXPECT_FALSE(p.keep_alive());
}

// ---- content coding --------------------------------------------------------------------------

TEST(HttpResponseParser, GzipBodyIsDecoded) {
  const std::string body = text_body(2000);
  const std::string bytes = with_length("Content-Encoding: gzip\r\n", gzip(body));
  const Outcome o = run_whole(bytes);
  EXPECT_EQ(o.state, State::Done) << o.error;
  EXPECT_EQ(o.body, body);
  expect_split_invariant(bytes);
}

TEST(HttpResponseParser, XGzipAndZlibDeflateAndRawDeflateAreDecoded) {
  const std::string body = text_body(777);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"x-gzip", gzip(body)},
      {"deflate", zlib_wrapped(body)},
      {"deflate", raw_deflate(body)},
      {"Deflate", raw_deflate(body)},
      {"gzip", zlib_wrapped(body)},  // a mislabelled zlib stream still decodes
  };
  for (const auto& [coding, encoded] : cases) {
    const std::string bytes = with_length("Content-Encoding: " + coding + "\r\n", encoded);
    const Outcome o = run_whole(bytes);
    EXPECT_EQ(o.state, State::Done) << coding << ": " << o.error;
    EXPECT_EQ(o.body, body) << coding;
    expect_split_invariant(bytes);
  }
}

TEST(HttpResponseParser, ChunkedGzip) {
  const std::string body = text_body(5000);
  const std::string bytes = chunked("Content-Encoding: gzip\r\n", gzip(body), 50);
  const Outcome o = run_whole(bytes);
  EXPECT_EQ(o.state, State::Done) << o.error;
  EXPECT_EQ(o.body, body);
  expect_split_invariant(bytes);
}

TEST(HttpResponseParser, CloseDelimitedGzip) {
  const std::string body = text_body(1000);
  const std::string bytes = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n" + gzip(body);
  RunOptions eof;
  eof.eof = true;
  const Outcome o = run_whole(bytes, eof);
  EXPECT_EQ(o.state, State::Done) << o.error;
  EXPECT_EQ(o.body, body);
  expect_split_invariant(bytes, eof);
}

TEST(HttpResponseParser, LargeGzipBodiesInRealisticPieces) {
  // 3 MB of text (many output buffers per input piece) and 300 KB of noise (output smaller
  // than the input, stored blocks), each fed in 1460-byte segments as TCP would deliver them.
  for (const std::string& body : {text_body(3 * 1024 * 1024), random_bytes(300 * 1024, 7)}) {
    const std::string bytes = chunked("Content-Encoding: gzip\r\n", gzip(body), 8192);
    std::vector<std::size_t> cuts;
    for (std::size_t i = 1460; i < bytes.size(); i += 1460) cuts.push_back(i);
    const Outcome o = run(bytes, cuts);
    EXPECT_EQ(o.state, State::Done) << o.error;
    EXPECT_EQ(o.body.size(), body.size());
    EXPECT_TRUE(o.body == body);
  }
}

TEST(HttpResponseParser, ConcatenatedGzipMembersAreAllDecoded) {
  const std::string bytes = with_length("Content-Encoding: gzip\r\n", gzip("first ") + gzip("second"));
  const Outcome o = run_whole(bytes);
  EXPECT_EQ(o.state, State::Done) << o.error;
  EXPECT_EQ(o.body, "first second");
  expect_split_invariant(bytes);
}

TEST(HttpResponseParser, PaddingAfterTheCompressedStreamIsIgnored) {
  const std::string bytes = with_length("Content-Encoding: gzip\r\n", gzip("payload") + std::string(5, '\0'));
  const Outcome o = run_whole(bytes);
  EXPECT_EQ(o.state, State::Done) << o.error;
  EXPECT_EQ(o.body, "payload");
  expect_split_invariant(bytes);
}

TEST(HttpResponseParser, EmptyGzipBodyIsEmpty) {
  const Outcome o = run_whole("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(o.state, State::Done) << o.error;
  EXPECT_EQ(o.body, "");
}

TEST(HttpResponseParser, IdentityCodingIsNotDecoded) {
  const Outcome o = run_whole(with_length("Content-Encoding: identity\r\n", "plain"));
  EXPECT_EQ(o.state, State::Done);
  EXPECT_EQ(o.body, "plain");
}

TEST(HttpResponseParser, UnknownCodingIsPassedThroughAsReceived) {
  const std::string encoded = "\x0b\x02\x80hi\x03";
  const Outcome br = run_whole(with_length("Content-Encoding: br\r\n", encoded));
  EXPECT_EQ(br.state, State::Done);
  EXPECT_EQ(br.body, encoded);

  const std::string twice = gzip(gzip("x"));
  const Outcome stacked = run_whole(with_length("Content-Encoding: gzip, gzip\r\n", twice));
  EXPECT_EQ(stacked.state, State::Done);
  EXPECT_EQ(stacked.body, twice);
}

TEST(HttpResponseParser, CorruptGzipFails) {
  std::string encoded = gzip(text_body(500));
  encoded[encoded.size() / 2] ^= 0x55;
  encoded[encoded.size() / 2 + 1] ^= 0x55;
  const std::string bytes = with_length("Content-Encoding: gzip\r\n", encoded);
  const Outcome o = run_whole(bytes);
  EXPECT_EQ(o.state, State::Error);
  EXPECT_NE(o.error.find("could not decode the gzip body"), std::string::npos) << o.error;
  expect_split_invariant(bytes);
}

TEST(HttpResponseParser, TruncatedGzipFails) {
  const std::string encoded = gzip(text_body(500));
  const std::string bytes = with_length("Content-Encoding: gzip\r\n", encoded.substr(0, encoded.size() - 10));
  const Outcome o = run_whole(bytes);
  EXPECT_EQ(o.state, State::Error);
  EXPECT_EQ(o.error, "gzip body ended before the end of its compressed data");
  expect_split_invariant(bytes);

  const Outcome one_byte = run_whole(with_length("Content-Encoding: deflate\r\n", "\x78"));
  EXPECT_EQ(one_byte.state, State::Error);
  EXPECT_EQ(one_byte.error, "deflate body ended before the end of its compressed data");
}

TEST(HttpResponseParser, GzipBombStopsAtTheBodyLimit) {
  const std::string bomb = gzip(std::string(10 * 1024 * 1024, 'a'));
  ASSERT_LT(bomb.size(), 20'000u);
  RunOptions small;
  small.limits.max_body_bytes = 1024 * 1024;
  const Outcome o = run_whole(with_length("Content-Encoding: gzip\r\n", bomb), small);
  EXPECT_EQ(o.state, State::Error);
  EXPECT_EQ(o.error, "response body is larger than the limit of 1048576 bytes");
  EXPECT_LE(o.body.size(), small.limits.max_body_bytes + 1);
}

TEST(HttpResponseParser, GzipBodyExactlyAtTheLimitIsAccepted) {
  RunOptions exact;
  exact.limits.max_body_bytes = 100'000;
  const std::string body = text_body(100'000);
  const Outcome o = run_whole(chunked("Content-Encoding: gzip\r\n", gzip(body), 999), exact);
  EXPECT_EQ(o.state, State::Done) << o.error;
  EXPECT_EQ(o.body, body);
}

// ---- limits and errors -----------------------------------------------------------------------

TEST(HttpResponseParser, TooLargeHeadFails) {
  RunOptions small;
  small.limits.max_head_bytes = 100;
  const std::string bytes = "HTTP/1.1 200 OK\r\nX-Big: " + std::string(200, 'x') + "\r\nContent-Length: 0\r\n\r\n";
  const Outcome o = run_whole(bytes, small);
  EXPECT_EQ(o.state, State::Error);
  EXPECT_EQ(o.error, "response head is larger than the limit of 100 bytes");
  expect_split_invariant(bytes, small);

  // Without an end in sight, the parser gives up at the limit instead of buffering forever.
  HttpResponseParser p(small.limits);
  p.feed("HTTP/1.1 200 OK\r\n");
  for (int i = 0; i < 100 && !p.failed(); ++i) p.feed("X-Header: value\r\n");
  EXPECT_TRUE(p.failed());
}

TEST(HttpResponseParser, HeadExactlyAtTheLimitIsAccepted) {
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  RunOptions exact;
  exact.limits.max_head_bytes = head.size();
  EXPECT_EQ(run_whole(head, exact).state, State::Done);
  EXPECT_EQ(run_bytewise(head, exact).state, State::Done);
  exact.limits.max_head_bytes = head.size() - 1;
  EXPECT_EQ(run_whole(head, exact).state, State::Error);
  EXPECT_EQ(run_bytewise(head, exact).state, State::Error);
}

TEST(HttpResponseParser, TooLargeBodyFails) {
  RunOptions small;
  small.limits.max_body_bytes = 10;
  const std::vector<std::string> cases = {
      with_length("", "0123456789a"),
      chunked("", "0123456789a", 4),
      "HTTP/1.1 200 OK\r\n\r\n0123456789a",
  };
  for (const auto& bytes : cases) {
    const Outcome o = run_whole(bytes, small);
    EXPECT_EQ(o.state, State::Error) << bytes;
    EXPECT_EQ(o.error, "response body is larger than the limit of 10 bytes");
    expect_split_invariant(bytes, small);
  }
  EXPECT_EQ(run_whole(with_length("", "0123456789"), small).state, State::Done);
}

TEST(HttpResponseParser, EofBeforeTheEndFails) {
  const std::string full = with_length("", "0123456789");
  const std::string chunks = chunked("", "0123456789", 3);
  RunOptions eof;
  eof.eof = true;
  for (const std::string& bytes : {full.substr(0, full.size() - 3), full.substr(0, 20), chunks.substr(0, chunks.size() - 2),
                                   std::string()}) {
    const Outcome o = run_whole(bytes, eof);
    EXPECT_EQ(o.state, State::Error) << bytes;
    EXPECT_EQ(o.error, "connection closed before the response was complete");
  }
}

TEST(HttpResponseParser, EofAfterDoneChangesNothing) {
  HttpResponseParser p;
  p.feed(with_length("", "ok"));
  p.finish_eof();
  EXPECT_TRUE(p.done());
  EXPECT_EQ(p.body(), "ok");
}

TEST(HttpResponseParser, GarbageFailsFromTheFirstBytes) {
  HttpResponseParser p;
  p.feed("<ht");
  EXPECT_TRUE(p.failed());
  EXPECT_EQ(p.error(), "response does not start with an HTTP/1.x status line: it starts with \"<\"");

  const Outcome http2 = run_whole("HTTP/2 200\r\n\r\n");
  EXPECT_EQ(http2.error, "response does not start with an HTTP/1.x status line: it starts with \"HTTP/2\"");
}

TEST(HttpResponseParser, MalformedHeadsFailWithAReason) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"HTTP/1.1 20 OK\r\n\r\n", "malformed status line"},
      {"HTTP/1.1 2000 OK\r\n\r\n", "malformed status line"},
      {"HTTP/1.1 099 Low\r\n\r\n", "malformed status line"},
      {"HTTP/1.x 200 OK\r\n\r\n", "malformed status line"},
      {"HTTP/1.1  200 OK\r\n\r\n", "malformed status line"},
      {"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "malformed header line \"no colon here\""},
      {"HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", "malformed header line"},
      {"HTTP/1.1 200 OK\r\n: empty name\r\n\r\n", "malformed header line"},
      {"HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", "invalid character in header \"X: a\\rb\""},
      {std::string("HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n", 28), "invalid character in header"},
      {"HTTP/1.1 200 OK\r\n folded first\r\n\r\n", "malformed header line \" folded first\""},
      {"HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n", "invalid Content-Length \"12abc\""},
      {"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "invalid Content-Length"},
      {"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n", "invalid Content-Length"},
      {"HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n", "invalid Content-Length"},
      {"HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n", "invalid Content-Length"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "unsupported Transfer-Encoding \"gzip, chunked\""},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", "unsupported Transfer-Encoding"},
  };
  for (const auto& [bytes, reason] : cases) {
    const Outcome o = run_whole(bytes);
    EXPECT_EQ(o.state, State::Error) << bytes;
    EXPECT_NE(o.error.find(reason), std::string::npos) << "error: " << o.error << "\nexpected: " << reason;
    expect_split_invariant(bytes);
  }
}

TEST(HttpResponseParser, MalformedChunksFailWithAReason) {
  const std::string head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::string bad_chunk = "invalid chunk: a chunk size that is not hex or too large, or data not followed by CRLF";
  const std::string too_long = "chunk size line or trailer section is longer than the limit of 65536 bytes";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"zz\r\n", bad_chunk},
      {"\r\n", bad_chunk},
      {"3x\r\nabc\r\n", "invalid chunk extension"},
      {"3\rabc", "invalid line ending in the chunked framing"},
      {"3\r\nabcd\r\n0\r\n\r\n", bad_chunk},
      {"3\r\nabc\rx\r\n", bad_chunk},
      {"fffffffffffffffff\r\n", bad_chunk},
      {"0\r\nBad Trailer: x\r\n\r\n", "invalid trailer section"},
      // Beast sets no limit on these lines; the layer shows it at most max_head_bytes of one.
      {"1;" + std::string(70'000, 'e') + "\r\nx\r\n0\r\n\r\n", too_long},
      {"0\r\nTrailer: " + std::string(70'000, 't') + "\r\n\r\n", too_long},
  };
  for (const auto& [body, reason] : cases) {
    const std::string bytes = head + body;
    const Outcome o = run_whole(bytes);
    EXPECT_EQ(o.state, State::Error) << body.substr(0, 40);
    EXPECT_EQ(o.error.find(reason), 0u) << "error: " << o.error << "\nexpected: " << reason;
    if (bytes.size() < 1000) {
      expect_split_invariant(bytes);
    } else {
      for (const std::size_t cut : {head.size() + 1, bytes.size() / 3, bytes.size() - 3}) {
        EXPECT_EQ(run(bytes, {cut}), o) << "split at " << cut;
      }
      std::vector<std::size_t> drips;
      for (std::size_t at = 777; at < bytes.size(); at += 777) drips.push_back(at);
      EXPECT_EQ(run(bytes, drips), o);
    }
  }
}

// A framing line just within the limit is read; the limit counts the whole line or section.
TEST(HttpResponseParser, ChunkLineOrTrailerUpToTheLimitIsRead) {
  RunOptions small;
  small.limits.max_head_bytes = 200;
  const std::string head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (std::size_t extension = 150; extension < 250; ++extension) {
    const std::string bytes = head + "1;" + std::string(extension, 'e') + "\r\nx\r\n0\r\nT: " +
                              std::string(300 - extension, 't') + "\r\n\r\n";
    const Outcome o = run_whole(bytes, small);
    for (const std::size_t cut : {head.size() + 2, head.size() + 190, bytes.size() - 30, bytes.size() - 1}) {
      EXPECT_EQ(run(bytes, {cut}, small), o) << extension << " split at " << cut;
    }
    EXPECT_EQ(run_bytewise(bytes, small), o) << extension;
    // "1;", the extension and CRLF against 200; then the CRLF after the data, "0\r\nT: ", the
    // value and "\r\n\r\n".
    const bool fits = 2 + extension + 2 <= 200 && 2 + 6 + (300 - extension) + 4 <= 200;
    EXPECT_EQ(o.state, fits ? State::Done : State::Error) << extension << " " << o.error;
  }
}

TEST(HttpResponseParser, RandomGarbageNeverCrashesAndNeverHangs) {
  for (unsigned seed = 0; seed < 300; ++seed) {
    std::string bytes = random_bytes(200 + seed, seed);
    if (seed % 3 == 0) bytes = "HTTP/1.1 200 OK\r\n" + bytes;
    if (seed % 3 == 1) bytes = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n" + bytes;
    RunOptions eof;
    eof.eof = true;
    const Outcome whole = run_whole(bytes, eof);
    EXPECT_NE(whole.state, State::Head);
    EXPECT_NE(whole.state, State::Body);
    EXPECT_EQ(run_bytewise(bytes, eof), whole) << "seed " << seed;
  }
}

// ---- lifecycle -------------------------------------------------------------------------------

TEST(HttpResponseParser, StartedOnlyAfterTheFirstByte) {
  HttpResponseParser p;
  EXPECT_FALSE(p.started());
  EXPECT_EQ(p.feed(""), 0u);
  EXPECT_FALSE(p.started());
  p.feed("HTTP/1.1 2");
  EXPECT_TRUE(p.started());
  EXPECT_FALSE(p.head_complete());
  p.feed("00 OK\r\nContent-Length: 4\r\n\r\nab");
  EXPECT_TRUE(p.head_complete());
  EXPECT_EQ(p.state(), State::Body);
  p.reset();
  EXPECT_FALSE(p.started());
  EXPECT_EQ(p.state(), State::Head);
  EXPECT_EQ(p.body(), "");
  EXPECT_TRUE(p.head().headers.empty());
}

TEST(HttpResponseParser, ResetAfterAnErrorParsesTheNextResponse) {
  HttpResponseParser p;
  p.feed("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 5\r\n\r\nxxxxx");
  EXPECT_TRUE(p.failed());
  p.reset();
  const std::string body = text_body(100);
  p.feed(with_length("Content-Encoding: gzip\r\n", gzip(body)));
  EXPECT_TRUE(p.done()) << p.error();
  EXPECT_EQ(p.body(), body);
  EXPECT_EQ(p.error(), "");
}

TEST(HttpResponseParser, BodyCanBeMovedOutAndTheParserReused) {
  HttpResponseParser p;
  p.feed(with_length("", "one"));
  const std::string taken = std::move(p.body());
  EXPECT_EQ(taken, "one");
  p.reset();
  p.feed(with_length("", "two"));
  EXPECT_EQ(p.body(), "two");
}

TEST(HttpResponseParser, MovedParserKeepsWorking) {
  HttpResponseParser a;
  a.feed("HTTP/1.1 200 OK\r\nContent-Le");
  HttpResponseParser b(std::move(a));
  b.feed("ngth: 2\r\n\r\nhi");
  EXPECT_TRUE(b.done());
  EXPECT_EQ(b.body(), "hi");

  HttpResponseParser c;
  c = std::move(b);
  EXPECT_EQ(c.body(), "hi");
  a.reset();  // a moved-from parser can be reset and used again
  a.feed(with_length("", "again"));
  EXPECT_EQ(a.body(), "again");
}

TEST(FindHeader, ReturnsTheFirstMatchIgnoringCase) {
  const std::vector<HttpHeader> headers = {{"set-cookie", "a=1"}, {"content-type", "text/html"}, {"set-cookie", "b=2"}};
  ASSERT_NE(find_header(headers, "set-cookie"), nullptr);
  EXPECT_EQ(*find_header(headers, "set-cookie"), "a=1");
  EXPECT_EQ(*find_header(headers, "Content-Type"), "text/html");
  EXPECT_EQ(find_header(headers, "location"), nullptr);
  EXPECT_EQ(find_header({}, "x"), nullptr);
}

}  // namespace
}  // namespace stampede::proto

namespace stampede::proto {
namespace {

// A response's headers and body handed to the user and given back (reuse) are what the
// next response is parsed into: the same strings, so their capacity is not allocated again.
TEST(HttpResponseParser, GivenBackHeadersAndBodyAreParsedIntoAgain) {
  const std::string body_text = "{\"posts\": [1, 2, 3], \"next\": \"/page/2\"}";
  const std::string response =
      "HTTP/1.1 200 OK\r\ndate: Fri, 04 Dec 2026 21:04:32 GMT\r\ncontent-type: application/json; charset=utf-8\r\n"
      "content-length: " + std::to_string(body_text.size()) + "\r\n\r\n" + body_text + "x";
  HttpResponseParser p;
  p.reset();
  ASSERT_EQ(p.feed(response), response.size() - 1);  // the stray byte is not this response's
  ASSERT_TRUE(p.done());
  std::vector<HttpHeader> headers = p.take_headers();
  std::string body = std::move(p.body());
  ASSERT_EQ(headers.size(), 3u);
  const char* date = headers[0].value.data();
  const char* content_type = headers[1].value.data();
  const char* body_bytes = body.data();

  p.reuse(std::move(headers), std::move(body));
  p.reset();
  ASSERT_EQ(p.feed(response), response.size() - 1);
  ASSERT_TRUE(p.done());
  const auto& again = p.head().headers;
  ASSERT_EQ(again.size(), 3u);
  EXPECT_EQ(again[0].name, "date");
  EXPECT_EQ(again[0].value, "Fri, 04 Dec 2026 21:04:32 GMT");
  EXPECT_EQ(again[1].value, "application/json; charset=utf-8");
  EXPECT_EQ(again[2].value, std::to_string(body_text.size()));
  EXPECT_EQ(p.body(), body_text);
  EXPECT_EQ(again[0].value.data(), date);
  EXPECT_EQ(again[1].value.data(), content_type);
  EXPECT_EQ(p.body().data(), body_bytes);
}

// Given back while the parser still holds its own (nothing was taken), or more headers
// than it keeps: ignored, and the parser's own response is untouched.
TEST(HttpResponseParser, ReuseLeavesAParserThatKeptItsOwnAlone) {
  const std::string response = "HTTP/1.1 200 OK\r\nx-a: 1\r\ncontent-length: 2\r\n\r\nok";
  HttpResponseParser p;
  p.reset();
  ASSERT_EQ(p.feed(response), response.size());
  p.reuse({HttpHeader{"x-other", "stale"}}, std::string(100, 's'));
  ASSERT_EQ(p.head().headers.size(), 2u);
  EXPECT_EQ(p.head().headers[0].name, "x-a");
  EXPECT_EQ(p.body(), "ok");

  std::vector<HttpHeader> many(1000, HttpHeader{"x-many", "value long enough to be on the heap"});
  (void)p.take_headers();
  p.reuse(std::move(many), std::string());
  EXPECT_TRUE(p.head().headers.empty());
  p.reset();
  ASSERT_EQ(p.feed(response), response.size());
  EXPECT_EQ(p.head().headers.size(), 2u);
}

}  // namespace
}  // namespace stampede::proto

namespace stampede::proto {
namespace {

// A recording proxy forwards the body bytes the parser took: when a chunked body's framing is
// refused, that is the same however the bytes arrived (the reverted first move to Beast
// failed fuzz_proxy_session on this, with a chunk-size line "41 200 OK").
TEST(HttpResponseParser, AFramingFailureTakesTheSameBytesHoweverTheyArrive) {
  HttpParserLimits limits;
  limits.max_head_bytes = 200;
  test_support::expect_framing_failures_take_the_same_bytes_however_cut(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", [&] {
        HttpResponseParser parser(limits);
        parser.reset();
        return parser;
      });
}

}  // namespace
}  // namespace stampede::proto

namespace stampede::proto {
namespace {

// Beast wants a few bytes past a short status line ("HTTP/1.1 2" needs four for a status)
// before it refuses it; what follows the head must not decide the verdict.
TEST(HttpResponseParser, AMalformedHeadFailsTheSameWhateverFollowsIt) {
  for (const std::string head : {"HTTP/1.1 2\r\n\r\n", "HTTP/1.1 200 OK\r\nX\r\n\r\n"}) {
    std::string error;
    for (const std::string after : {"", "ab", "HTTP/1.1 200 OK\r\n\r\n"}) {
      const std::string bytes = head + after;
      const Outcome o = run_whole(bytes);
      EXPECT_EQ(o.state, State::Error) << bytes;
      if (error.empty()) error = o.error;
      EXPECT_EQ(o.error, error) << bytes;
      expect_split_invariant(bytes);
    }
  }
}

}  // namespace
}  // namespace stampede::proto
