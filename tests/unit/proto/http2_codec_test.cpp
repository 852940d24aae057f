// The HTTP/2 codecs against each other, in memory: our client codec's bytes go to our server
// codec and back (both over libnghttp2), and hand-made frames stand in for a server that
// resets streams, goes away or breaks the protocol.
#include <gtest/gtest.h>
#include <zlib.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "proto/http2_client_codec.hpp"
#include "proto/http2_server_codec.hpp"

namespace stampede::proto {
namespace {

struct ClientEvents : Http2ClientCodec::Listener {
  struct End {
    Http2StreamEnd how;
    std::uint32_t code;
    std::string detail;
    Http2Response response;
  };
  std::map<int, End> ends;  // by request tag
  std::vector<int> sent;
  int goaways = 0;
  std::int32_t goaway_last = -1;
  std::uint32_t goaway_code = 0;

  void on_request_sent(void* request) override { sent.push_back(*static_cast<int*>(request)); }
  void on_stream_end(void* request, Http2StreamEnd how, std::uint32_t code, std::string_view detail,
                     Http2Response& response) override {
    const int tag = *static_cast<int*>(request);
    EXPECT_EQ(ends.count(tag), 0u) << "two ends for request " << tag;
    ends[tag] = End{how, code, std::string(detail), std::move(response)};
  }
  void on_goaway(std::int32_t last, std::uint32_t code, std::string_view) override {
    ++goaways;
    goaway_last = last;
    goaway_code = code;
  }
};

struct ServerEvents : Http2ServerCodec::Listener {
  std::vector<std::pair<std::int32_t, HttpRequest>> requests;
  std::vector<std::int32_t> sent;
  std::vector<std::int32_t> closed;
  void on_request(std::int32_t id, HttpRequest& request) override { requests.emplace_back(id, std::move(request)); }
  void on_response_sent(std::int32_t id) override { sent.push_back(id); }
  void on_stream_closed(std::int32_t id) override { closed.push_back(id); }
};

// A frame as RFC 9113 4.1 lays it out.
std::string frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream, std::string_view payload) {
  std::string f;
  const auto n = static_cast<std::uint32_t>(payload.size());
  f += static_cast<char>(n >> 16);
  f += static_cast<char>(n >> 8);
  f += static_cast<char>(n);
  f += static_cast<char>(type);
  f += static_cast<char>(flags);
  for (int shift = 24; shift >= 0; shift -= 8) f += static_cast<char>((stream >> shift) & 0xff);
  f += payload;
  return f;
}

std::string u32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

constexpr std::uint8_t kRstStream = 3, kSettings = 4, kGoaway = 7;

class Http2Codecs : public ::testing::Test {
 protected:
  explicit Http2Codecs(Http2ServerLimits limits = {}) : client(client_events), server(server_events, limits) {}

  // Moves bytes both ways until neither side has anything to say.
  void pump() {
    for (int rounds = 0; rounds < 10000; ++rounds) {
      std::string to_server, to_client;
      ASSERT_TRUE(client.take_output(to_server)) << client.error();
      if (!to_server.empty()) {
        ASSERT_TRUE(server.feed(to_server)) << server.error();
      }
      ASSERT_TRUE(server.take_output(to_client)) << server.error();
      if (!to_client.empty()) {
        ASSERT_TRUE(client.feed(to_client)) << client.error();
      }
      if (to_server.empty() && to_client.empty()) return;
    }
    FAIL() << "the codecs kept talking";
  }

  std::int32_t get(int& tag, std::string_view path, std::string_view method = "GET", std::string_view body = {}) {
    const std::array<Http2Field, 5> fields{{{":method", method},
                                            {":scheme", "http"},
                                            {":authority", "example.test:8080"},
                                            {":path", path},
                                            {"user-agent", "stampede-test"}}};
    std::string error;
    const std::int32_t id = client.submit(fields, body, !body.empty() || method == "POST", &tag, error);
    EXPECT_GT(id, 0) << error;
    return id;
  }

  void respond_all(int status, std::string_view body, std::span<const Http2Field> fields = {}) {
    for (const auto& [id, request] : server_events.requests) server.respond(id, status, fields, body, request.method == "HEAD");
    server_events.requests.clear();
  }

  ClientEvents client_events;
  ServerEvents server_events;
  Http2ClientCodec client;
  Http2ServerCodec server;
};

TEST_F(Http2Codecs, RequestAndResponseRoundTrip) {
  int tag = 1;
  get(tag, "/api/posts?page=2");
  pump();
  ASSERT_EQ(server_events.requests.size(), 1u);
  const HttpRequest& request = server_events.requests[0].second;
  EXPECT_EQ(request.method, "GET");
  EXPECT_EQ(request.target, "/api/posts?page=2");
  ASSERT_NE(request.header("host"), nullptr);
  EXPECT_EQ(*request.header("host"), "example.test:8080");
  ASSERT_NE(request.header("user-agent"), nullptr);
  EXPECT_EQ(client_events.sent, std::vector<int>{1});

  const std::array<Http2Field, 1> fields{{{"content-type", "application/json"}}};
  respond_all(201, R"({"id":4})", fields);
  pump();
  ASSERT_EQ(client_events.ends.count(1), 1u);
  const auto& end = client_events.ends[1];
  EXPECT_EQ(end.how, Http2StreamEnd::complete) << end.detail;
  EXPECT_EQ(end.response.status, 201);
  EXPECT_EQ(end.response.body, R"({"id":4})");
  ASSERT_NE(find_header(end.response.headers, "content-type"), nullptr);
  EXPECT_EQ(*find_header(end.response.headers, "content-type"), "application/json");
  EXPECT_EQ(*find_header(end.response.headers, "content-length"), "8");
  EXPECT_EQ(server_events.sent.size(), 1u);
  EXPECT_EQ(client.open_requests(), 0u);
  EXPECT_TRUE(client.accepts_requests());
}

TEST_F(Http2Codecs, HeadResponseHasNoBody) {
  int tag = 1;
  get(tag, "/", "HEAD");
  pump();
  respond_all(200, "twelve bytes");
  pump();
  const auto& end = client_events.ends[1];
  EXPECT_EQ(end.how, Http2StreamEnd::complete) << end.detail;
  EXPECT_EQ(end.response.body, "");
  EXPECT_EQ(*find_header(end.response.headers, "content-length"), "12");
}

TEST_F(Http2Codecs, LargeBodiesBothWaysNeedWindowUpdates) {
  // 1 MiB up (the server's default window is 64 KiB) and 3 MiB down (our stream window is
  // 1 MiB): neither arrives without the other side's WINDOW_UPDATEs.
  std::string up(1 << 20, 'u');
  for (std::size_t i = 0; i < up.size(); i += 997) up[i] = static_cast<char>('a' + i % 26);
  std::string down(3 << 20, 'd');
  for (std::size_t i = 0; i < down.size(); i += 991) down[i] = static_cast<char>('A' + i % 26);
  int tag = 1;
  get(tag, "/upload", "POST", up);
  pump();
  ASSERT_EQ(server_events.requests.size(), 1u);
  EXPECT_TRUE(server_events.requests[0].second.body == up);
  respond_all(200, down);
  pump();
  const auto& end = client_events.ends[1];
  EXPECT_EQ(end.how, Http2StreamEnd::complete) << end.detail;
  EXPECT_TRUE(end.response.body == down) << end.response.body.size();
}

Http2ServerLimits two_streams() {
  Http2ServerLimits limits;
  limits.max_concurrent_streams = 2;
  return limits;
}

class Http2CodecsTwoStreams : public Http2Codecs {
 protected:
  Http2CodecsTwoStreams() : Http2Codecs(two_streams()) {}
};

TEST_F(Http2CodecsTwoStreams, RequestsPastTheServersLimitWaitTheirTurn) {
  std::array<int, 7> tags{};
  for (int i = 0; i < 7; ++i) {
    tags[static_cast<std::size_t>(i)] = i;
    get(tags[static_cast<std::size_t>(i)], "/n/" + std::to_string(i));
  }
  // Before the server's SETTINGS, one: its limit is not known yet.
  std::string preface;
  ASSERT_TRUE(client.take_output(preface));
  EXPECT_EQ(client_events.sent.size(), 1u);
  ASSERT_TRUE(server.feed(preface));
  pump();
  // Then two: the others wait in the client's queue, none failed.
  EXPECT_EQ(server_events.requests.size(), 2u);
  EXPECT_EQ(client_events.sent.size(), 2u);
  EXPECT_TRUE(client_events.ends.empty());
  for (int round = 0; round < 10 && client_events.ends.size() < 7; ++round) {
    EXPECT_LE(server_events.requests.size(), 2u);
    respond_all(200, "ok");
    pump();
  }
  ASSERT_EQ(client_events.ends.size(), 7u);
  for (const auto& [tag, end] : client_events.ends) EXPECT_EQ(end.how, Http2StreamEnd::complete) << tag;
}

std::string gzip_default(std::string_view text) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(text.size() + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

TEST_F(Http2Codecs, GzipBodyIsDecoded) {
  const std::string text(10000, 'z');
  const std::string packed = gzip_default(text);
  int tag = 1;
  get(tag, "/");
  pump();
  const std::array<Http2Field, 1> fields{{{"content-encoding", "gzip"}}};
  respond_all(200, packed, fields);
  pump();
  const auto& end = client_events.ends[1];
  EXPECT_EQ(end.how, Http2StreamEnd::complete) << end.detail;
  EXPECT_EQ(end.response.body, text);
}

TEST_F(Http2Codecs, CorruptGzipIsMalformed) {
  int tag = 1;
  get(tag, "/");
  pump();
  const std::array<Http2Field, 1> fields{{{"content-encoding", "gzip"}}};
  respond_all(200, "\x1f\x8bnot really gzip", fields);
  pump();
  const auto& end = client_events.ends[1];
  EXPECT_EQ(end.how, Http2StreamEnd::malformed);
  EXPECT_NE(end.detail.find("gzip"), std::string::npos) << end.detail;
}

TEST_F(Http2Codecs, ServerResetIsReportedWithItsCode) {
  int tag = 1;
  get(tag, "/");
  pump();
  ASSERT_TRUE(client.feed(frame(kRstStream, 0, 1, u32(7))));  // REFUSED_STREAM
  const auto& end = client_events.ends[1];
  EXPECT_EQ(end.how, Http2StreamEnd::reset_by_server);
  EXPECT_EQ(http2_error_name(end.code), "REFUSED_STREAM");
  EXPECT_EQ(http2_error_name(0xff), "0xff");
}

TEST_F(Http2Codecs, GoawayRefusesTheStreamsAboveItsLastIdAndLetsTheOthersFinish) {
  int one = 1, two = 2, three = 3;
  get(one, "/1");
  get(two, "/2");
  pump();
  ASSERT_EQ(server_events.requests.size(), 2u);
  // The server processed stream 1 only, then went away gracefully.
  ASSERT_TRUE(client.feed(frame(kGoaway, 0, 0, u32(1) + u32(0))));
  EXPECT_EQ(client_events.goaways, 1);
  EXPECT_EQ(client_events.goaway_last, 1);
  EXPECT_FALSE(client.accepts_requests());
  ASSERT_EQ(client_events.ends.count(2), 1u);
  EXPECT_EQ(client_events.ends[2].how, Http2StreamEnd::refused);
  // A request submitted after it is refused too, never sent.
  get(three, "/3");
  std::string out;
  EXPECT_TRUE(client.take_output(out));
  EXPECT_EQ(client_events.ends[3].how, Http2StreamEnd::refused);
  // Stream 1 still gets its answer.
  server.respond(1, 200, {}, "one", false);
  std::string to_client;
  ASSERT_TRUE(server.take_output(to_client));
  ASSERT_TRUE(client.feed(to_client));
  EXPECT_EQ(client_events.ends[1].how, Http2StreamEnd::complete);
  EXPECT_EQ(client_events.ends[1].response.body, "one");
  EXPECT_TRUE(client.finished());
}

TEST_F(Http2Codecs, CancelledRequestEndsSilentlyAndResetsTheStream) {
  int tag = 1;
  const std::int32_t id = get(tag, "/");
  pump();
  client.cancel(id);
  pump();
  EXPECT_TRUE(client_events.ends.empty());
  EXPECT_EQ(server_events.closed, std::vector<std::int32_t>{id});
  EXPECT_EQ(client.open_requests(), 0u);
}

TEST_F(Http2Codecs, EndAllEndsEveryOpenRequest) {
  int one = 1, two = 2;
  get(one, "/1");
  get(two, "/2");
  pump();
  client.end_all("the server closed the connection");
  ASSERT_EQ(client_events.ends.size(), 2u);
  EXPECT_EQ(client_events.ends[1].how, Http2StreamEnd::connection_ended);
  EXPECT_EQ(client_events.ends[2].detail, "the server closed the connection");
}

TEST(Http2ClientCodec, HeadersPastTheLimitMakeTheResponseMalformed) {
  ClientEvents client_events;
  Http2ClientLimits limits;
  limits.max_header_bytes = 200;
  Http2ClientCodec client(client_events, limits);
  ServerEvents server_events;
  Http2ServerCodec server(server_events);
  int tag = 1;
  const std::array<Http2Field, 4> fields{{{":method", "GET"}, {":scheme", "http"}, {":authority", "a"}, {":path", "/"}}};
  std::string error;
  ASSERT_GT(client.submit(fields, {}, false, &tag, error), 0);
  std::string bytes;
  ASSERT_TRUE(client.take_output(bytes));
  ASSERT_TRUE(server.feed(bytes));
  const std::string big(300, 'x');
  const std::array<Http2Field, 1> response_fields{{{"x-big", big}}};
  server.respond(1, 200, response_fields, "body", false);
  bytes.clear();
  ASSERT_TRUE(server.take_output(bytes));
  ASSERT_TRUE(client.feed(bytes));
  ASSERT_EQ(client_events.ends.count(1), 1u);
  EXPECT_EQ(client_events.ends[1].how, Http2StreamEnd::malformed);
  EXPECT_NE(client_events.ends[1].detail.find("limit of 200 bytes"), std::string::npos);
}

TEST(Http2ClientCodec, AnHttp1AnswerIsNamed) {
  ClientEvents events;
  Http2ClientCodec client(events);
  std::string out;
  ASSERT_TRUE(client.take_output(out));
  EXPECT_EQ(out.substr(0, 24), "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
  EXPECT_FALSE(client.feed("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"));
  EXPECT_TRUE(client.failed());
  EXPECT_NE(client.error().find("HTTP/1.1 400 Bad Request"), std::string::npos) << client.error();
}

TEST(Http2ClientCodec, GarbageEndsTheSessionWithAReason) {
  ClientEvents events;
  Http2ClientCodec client(events);
  int tag = 1;
  const std::array<Http2Field, 4> fields{{{":method", "GET"}, {":scheme", "http"}, {":authority", "a"}, {":path", "/"}}};
  std::string error;
  ASSERT_GT(client.submit(fields, {}, false, &tag, error), 0);
  std::string out;
  ASSERT_TRUE(client.take_output(out));
  // A frame that is not SETTINGS where the server's preface must be.
  client.feed(frame(kRstStream, 0, 1, u32(0)) + std::string(40, '\xee'));
  out.clear();
  client.take_output(out);  // the GOAWAY nghttp2 sends back
  EXPECT_TRUE(client.failed());
  EXPECT_FALSE(client.error().empty());
  EXPECT_TRUE(client.finished());
  EXPECT_FALSE(client.accepts_requests());
  client.end_all(client.error());
  EXPECT_EQ(events.ends[1].how, Http2StreamEnd::connection_ended);
}

TEST(Http2ServerCodec, AClientWithoutThePrefaceIsRefused) {
  ServerEvents events;
  Http2ServerCodec server(events);
  EXPECT_FALSE(server.feed("GET / HTTP/1.1\r\nHost: a\r\n\r\n"));
  EXPECT_NE(server.error().find("preface"), std::string::npos) << server.error();
}

TEST(Http2ServerCodec, AnswersBadSettingsWithGoaway) {
  ServerEvents events;
  Http2ServerCodec server(events);
  // The preface, then a SETTINGS frame whose length is not a multiple of 6.
  std::string bytes = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(kSettings, 0, 0, std::string(5, '\0'));
  server.feed(bytes);
  std::string out;
  server.take_output(out);
  // Its last frame is the GOAWAY (type 7) that ends the session, with FRAME_SIZE_ERROR (6).
  ASSERT_GE(out.size(), 17u);
  EXPECT_EQ(out[out.size() - 17 + 3], static_cast<char>(kGoaway));
  EXPECT_EQ(out.substr(out.size() - 4), u32(6));
  EXPECT_TRUE(server.finished());
}

}  // namespace
}  // namespace stampede::proto
