// What goes over the wire and what comes back: request heads, bodies in every framing,
// content coding.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <stdexcept>

#include "clients/http_fixture.hpp"
#include "clients/scripted_server.hpp"
#include "wait_until.hpp"

namespace stampede::testing {
namespace {

using clients::HttpRequest;
using clients::HttpSession;

std::string gzip(std::string_view text) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2");
  }
  std::string out(deflateBound(&z, text.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string chunked(std::string_view body, std::size_t pieces) {
  std::string out;
  const std::size_t step = body.size() / pieces + 1;
  for (std::size_t at = 0; at < body.size(); at += step) {
    const auto piece = body.substr(at, step);
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
    out += size;
    out += piece;
    out += "\r\n";
  }
  return out + "0\r\n\r\n";
}

class HttpMessages : public HttpFixture {};

TEST_F(HttpMessages, RequestHeadCarriesDefaultsAndUserHeaders) {
  ScriptedServer server([](ServerConnection& conn) {
    while (auto req = conn.read_request()) conn.send(http_response(200));
  });
  HttpSession session(ctx);
  HttpRequest req;
  req.method = "POST";
  req.url = server.url("/submit?q=1");
  req.headers = {{"X-Trace", "abc"}, {"Content-Type", "text/plain"}, {"Content-Length", "999"}};
  req.body = "hello";
  ASSERT_EQ(fetch(session, req).status, 200);

  HttpRequest custom;
  custom.url = server.url("/");
  custom.headers = {{"User-Agent", "mine"}, {"Accept-Encoding", "identity"}};
  ASSERT_EQ(fetch(session, custom).status, 200);

  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].target, "/submit?q=1");
  EXPECT_EQ(seen[0].header("host"), "127.0.0.1:" + std::to_string(server.port()));
  EXPECT_EQ(seen[0].header("user-agent"), "stampede/0.1");
  EXPECT_EQ(seen[0].header("accept-encoding"), "gzip, deflate");
  EXPECT_EQ(seen[0].header("x-trace"), "abc");
  EXPECT_EQ(seen[0].header("content-length"), "5");  // computed, whatever the caller said
  EXPECT_EQ(seen[0].body, "hello");
  EXPECT_EQ(seen[1].header("user-agent"), "mine");
  EXPECT_EQ(seen[1].header("accept-encoding"), "identity");
  EXPECT_FALSE(seen[1].has_header("content-length"));
}

TEST_F(HttpMessages, ChunkedGzipBodyArrivesDecoded) {
  std::string text;
  for (int i = 0; i < 500; ++i) text += "line " + std::to_string(i) + " of a compressible body\n";
  ScriptedServer server([&text](ServerConnection& conn) {
    if (!conn.read_request()) return;
    const std::string wire = chunked(gzip(text), 5);
    conn.send("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-encoding: gzip\r\n\r\n");
    conn.send(wire.substr(0, wire.size() / 2));  // two writes: the client reads it in pieces
    wait_until("the client read the first half", [&] { return conn.read_by_client(); });
    conn.send(wire.substr(wire.size() / 2));
    conn.read_request();
  });
  HttpSession session(ctx);
  auto res = get(session, server.url("/gz"));
  EXPECT_EQ(res.error, "");
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.body, text);
  EXPECT_EQ(session.idle_connections(), 1u);
}

TEST_F(HttpMessages, BodyDelimitedByCloseIsComplete) {
  ScriptedServer server([](ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.send("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil the end");
    conn.close();
  });
  HttpSession session(ctx);
  auto res = get(session, server.url());
  EXPECT_EQ(res.error, "");
  EXPECT_EQ(res.body, "until the end");
  EXPECT_EQ(session.idle_connections(), 0u);
}

TEST_F(HttpMessages, LargeBodySpansManyReads) {
  const std::string big(3 * 1024 * 1024 + 17, 'b');
  ScriptedServer server([&big](ServerConnection& conn) {
    while (conn.read_request()) conn.send(http_response(200, big));
  });
  HttpSession session(ctx);
  auto res = get(session, server.url());
  EXPECT_EQ(res.error, "");
  EXPECT_EQ(res.body.size(), big.size());
  EXPECT_EQ(res.body, big);
  EXPECT_EQ(get(session, server.url()).body.size(), big.size());
  EXPECT_EQ(server.accepted(), 1);
}

TEST_F(HttpMessages, ARequestBodyLargerThanTheSocketTakesAtOnceIsWrittenWhole) {
  // More than the socket's send buffer: the write waits for room, several times.
  const std::string big(3 * 1024 * 1024 + 5, 'p');
  ScriptedServer server([&big](ServerConnection& conn) {
    while (auto req = conn.read_request()) conn.send(http_response(200, req->body == big ? "whole" : "differs"));
  });
  HttpSession session(ctx);
  for (int i = 0; i < 2; ++i) {
    HttpRequest post;
    post.method = "POST";
    post.url = server.url("/upload");
    post.body = big;
    auto res = fetch(session, post);
    EXPECT_EQ(res.error, "");
    EXPECT_EQ(res.body, "whole");
  }
  EXPECT_EQ(server.accepted(), 1);
}

TEST_F(HttpMessages, HeadResponseHasNoBodyAndKeepsTheConnection) {
  ScriptedServer server([](ServerConnection& conn) {
    while (auto req = conn.read_request()) {
      conn.send(req->method == "HEAD" ? "HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\n" : http_response(200, "x"));
    }
  });
  HttpSession session(ctx);
  HttpRequest head;
  head.method = "HEAD";
  head.url = server.url();
  auto res = fetch(session, head);
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.body, "");
  EXPECT_EQ(get(session, server.url()).body, "x");
  EXPECT_EQ(server.accepted(), 1);
}

TEST_F(HttpMessages, InterimResponsesAreSkipped) {
  ScriptedServer server([](ServerConnection& conn) {
    if (conn.read_request()) conn.send("HTTP/1.1 100 Continue\r\n\r\n" + http_response(201, "made"));
    conn.wait_for_close();
  });
  HttpSession session(ctx);
  auto res = get(session, server.url());
  EXPECT_EQ(res.status, 201);
  EXPECT_EQ(res.body, "made");
}

TEST_F(HttpMessages, ResponseHeadersAreReturned) {
  ScriptedServer server([](ServerConnection& conn) {
    if (conn.read_request()) conn.send(http_response(200, "", "X-Thing:  value \r\n"));
    conn.wait_for_close();
  });
  HttpSession session(ctx);
  auto res = get(session, server.url());
  const std::string* thing = proto::find_header(res.headers, "x-thing");
  ASSERT_NE(thing, nullptr);
  EXPECT_EQ(*thing, "value");
  EXPECT_EQ(res.url, server.url());
  EXPECT_GT(res.duration, 0);
}

TEST_F(HttpMessages, HeaderInjectionIsAProtocolErrorAndSendsNothing) {
  ScriptedServer server([](ServerConnection& conn) { conn.wait_for_close(); });
  HttpSession session(ctx);
  HttpRequest req;
  req.url = server.url();
  req.headers = {{"x-evil", "a\r\nx-injected: 1"}};
  auto res = fetch(session, req);
  EXPECT_EQ(res.error_reason, "protocol");
  EXPECT_NE(res.error.find(req.url), std::string::npos) << res.error;
  EXPECT_EQ(server.accepted(), 0);
  auto snapshot = take();
  EXPECT_EQ(errors(snapshot, "protocol"), 1u);
  EXPECT_EQ(snapshot.requests.sent, 1u);
  EXPECT_EQ(snapshot.requests.failed, 1u);
}

}  // namespace
}  // namespace stampede::testing
