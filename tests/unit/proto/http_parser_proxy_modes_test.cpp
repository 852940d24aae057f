// The parsers' modes for a proxy (record/proxy_session): feed_head() stops where the head
// ends so the body can be forwarded as it came, drop_body() and drop_large_bodies frame a
// body without keeping it, and interim responses are shown instead of skipped. Whatever
// the pieces, the bytes used and the messages framed are the same as feed()'s.
#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <vector>

#include "proto/http_request_parser.hpp"
#include "proto/http_response_parser.hpp"

namespace stampede::proto {
namespace {

std::string gzip_best(std::string_view data) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
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

// ---- requests -------------------------------------------------------------------------------

TEST(HttpRequestParserProxy, FeedHeadStopsWhereTheBodyStarts) {
  const std::string head = "POST /posts HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n";
  const std::string wire = head + "hello" + "GET /next HTTP/1.1\r\n\r\n";
  HttpRequestParser parser;
  EXPECT_EQ(parser.feed_head(wire), head.size());
  ASSERT_TRUE(parser.head_complete());
  EXPECT_EQ(parser.request().body, "");
  EXPECT_EQ(parser.feed_head(std::string_view(wire).substr(head.size())), 0u) << "nothing once the head is read";
  EXPECT_EQ(parser.feed(std::string_view(wire).substr(head.size())), 5u);
  EXPECT_TRUE(parser.done());
  EXPECT_EQ(parser.request().body, "hello");
}

TEST(HttpRequestParserProxy, FeedHeadInPiecesConsumesEverythingUntilTheEnd) {
  const std::string head = "\r\nGET /x HTTP/1.1\r\nHost: a\r\n\r\n";  // a stray CRLF before it is skipped
  for (std::size_t cut = 1; cut < head.size(); ++cut) {
    HttpRequestParser parser;
    EXPECT_EQ(parser.feed_head(std::string_view(head).substr(0, cut)), cut);
    EXPECT_FALSE(parser.head_complete());
    EXPECT_EQ(parser.feed_head(head.substr(cut) + "rest"), head.size() - cut) << cut;
    EXPECT_TRUE(parser.done());
    EXPECT_EQ(parser.request().target, "/x");
  }
}

TEST(HttpRequestParserProxy, DroppedBodyIsFramedButNotKept) {
  const std::string wire = "POST /u HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3\r\nabc\r\n0\r\n\r\nGET";
  HttpRequestParser parser;
  const auto head = parser.feed_head(wire);
  parser.drop_body();
  EXPECT_EQ(parser.feed(std::string_view(wire).substr(head)), wire.size() - head - 3);
  EXPECT_TRUE(parser.done());
  EXPECT_TRUE(parser.body_dropped());
  EXPECT_EQ(parser.request().body, "");
  parser.reset();
  EXPECT_FALSE(parser.body_dropped());
}

TEST(HttpRequestParserProxy, LargeBodiesAreDroppedInsteadOfRefused) {
  HttpRequestLimits limits;
  limits.max_body_bytes = 4;
  limits.drop_large_bodies = true;
  for (const std::string& wire : {std::string("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789"),
                                 std::string("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n"
                                             "7\r\ndefghij\r\n0\r\n\r\n")}) {
    HttpRequestParser parser(limits);
    EXPECT_EQ(parser.feed(wire), wire.size());
    EXPECT_TRUE(parser.done()) << parser.error();
    EXPECT_TRUE(parser.body_dropped());
    EXPECT_EQ(parser.request().body, "");
  }
  limits.drop_large_bodies = false;
  HttpRequestParser refusing(limits);
  refusing.feed("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n");
  EXPECT_EQ(refusing.error_status(), 413);
}

// ---- responses ------------------------------------------------------------------------------

TEST(HttpResponseParserProxy, FeedHeadStopsWhereTheBodyStarts) {
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n";
  const std::string wire = head + "abcHTTP/1.1 204 No Content\r\n\r\n";
  HttpResponseParser parser;
  EXPECT_EQ(parser.feed_head(wire), head.size());
  ASSERT_TRUE(parser.head_complete());
  EXPECT_EQ(parser.feed_head(std::string_view(wire).substr(head.size())), 0u);
  EXPECT_EQ(parser.feed(std::string_view(wire).substr(head.size())), 3u);
  EXPECT_TRUE(parser.done());
  EXPECT_EQ(parser.body(), "abc");
}

TEST(HttpResponseParserProxy, InterimResponsesAreShownOneByOne) {
  const std::string interim = "HTTP/1.1 100 Continue\r\n\r\n";
  const std::string hints = "HTTP/1.1 103 Early Hints\r\nLink: </app.css>; rel=preload\r\n\r\n";
  const std::string final_head = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n";
  const std::string wire = interim + hints + final_head + "ok";
  HttpResponseParser parser;
  std::string_view rest = wire;
  rest.remove_prefix(parser.feed_head(rest));
  ASSERT_TRUE(parser.interim());
  EXPECT_EQ(parser.head().status, 100);
  EXPECT_FALSE(parser.head_complete());
  rest.remove_prefix(parser.feed_head(rest));
  ASSERT_TRUE(parser.interim());
  EXPECT_EQ(parser.head().status, 103);
  ASSERT_NE(find_header(parser.head().headers, "link"), nullptr);
  rest.remove_prefix(parser.feed_head(rest));
  EXPECT_FALSE(parser.interim());
  ASSERT_TRUE(parser.head_complete());
  EXPECT_EQ(parser.head().status, 200);
  EXPECT_EQ(rest, "ok");
  // feed() still skips them, as the clients want.
  HttpResponseParser plain;
  EXPECT_EQ(plain.feed(wire), wire.size());
  EXPECT_EQ(plain.head().status, 200);
  EXPECT_EQ(plain.body(), "ok");
}

TEST(HttpResponseParserProxy, SwitchingProtocolsEndsWithItsHead) {
  const std::string head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
  HttpResponseParser parser;
  EXPECT_EQ(parser.feed_head(head + "\x81\x02hi"), head.size());
  EXPECT_TRUE(parser.done());
  EXPECT_FALSE(parser.interim());
}

TEST(HttpResponseParserProxy, DroppedBodyIsFramedButNotKeptNorDecoded) {
  const std::string body = gzip_best(std::string(5000, 'x'));
  const std::string wire = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + std::to_string(body.size()) +
                           "\r\n\r\n" + body + "HTTP/1.1";
  HttpResponseParser parser;
  const auto head = parser.feed_head(wire);
  parser.drop_body();
  EXPECT_EQ(parser.feed(std::string_view(wire).substr(head)), body.size());
  EXPECT_TRUE(parser.done());
  EXPECT_TRUE(parser.body_dropped());
  EXPECT_EQ(parser.body(), "");
  EXPECT_TRUE(parser.keep_alive());
}

TEST(HttpResponseParserProxy, LargeOrUndecodableBodiesAreDroppedAndStillFramed) {
  HttpParserLimits limits;
  limits.max_body_bytes = 100;
  limits.drop_large_bodies = true;
  const std::string big = gzip_best(std::string(1000, 'y'));  // small compressed, 1000 bytes decoded
  const std::string corrupt = "\x1f\x8b\x08\x00garbage-not-deflate";
  const std::vector<std::string> wires = {
      "HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\n" + std::string(200, 'z'),
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n50\r\n" + std::string(80, 'a') + "\r\n50\r\n" +
          std::string(80, 'b') + "\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + std::to_string(big.size()) + "\r\n\r\n" + big,
      "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + std::to_string(corrupt.size()) + "\r\n\r\n" +
          corrupt,
  };
  for (const auto& wire : wires) {
    for (std::size_t piece = 1; piece <= wire.size(); piece += 7) {
      HttpResponseParser parser(limits);
      std::size_t used = 0;
      for (std::size_t at = 0; at < wire.size() && !parser.done() && !parser.failed(); at += piece)
        used += parser.feed(std::string_view(wire).substr(at, piece));
      EXPECT_TRUE(parser.done()) << parser.error() << " in " << wire.substr(0, 60);
      EXPECT_EQ(used, wire.size());
      EXPECT_TRUE(parser.body_dropped());
      EXPECT_EQ(parser.body(), "");
      EXPECT_EQ(parser.error(), "");
    }
  }
  limits.drop_large_bodies = false;
  HttpResponseParser refusing(limits);
  refusing.feed(wires[2]);
  EXPECT_TRUE(refusing.failed());
}

}  // namespace
}  // namespace stampede::proto
