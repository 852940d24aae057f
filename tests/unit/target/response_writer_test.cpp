#include "target/response_writer.hpp"

#include <gtest/gtest.h>

namespace stampede::target {
namespace {

constexpr std::string_view kDate = "Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n";

std::string write(const Response& response, ResponseFraming framing = {}) {
  std::string out;
  append_response(out, response, framing, kDate);
  return out;
}

TEST(ResponseWriter, WritesStatusHeadersAndBody) {
  Response r;
  r.set_static(200, kText, "hello");
  r.headers = "X-Test: 1\r\n";
  EXPECT_EQ(write(r),
            "HTTP/1.1 200 OK\r\nServer: stampede-target\r\nDate: Thu, 01 Jan 1970 00:00:00 GMT\r\n"
            "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\nX-Test: 1\r\n\r\nhello");
}

TEST(ResponseWriter, HeadGetsHeadersWithoutBody) {
  Response r;
  r.set_owned(200, kJson, "{}");
  const auto out = write(r, {1, true, true});
  EXPECT_NE(out.find("Content-Length: 2\r\n"), std::string::npos);
  EXPECT_EQ(out.substr(out.size() - 4), "\r\n\r\n");
}

TEST(ResponseWriter, NoBodyFor204And304) {
  Response r;
  r.set_owned(204, kJson, "{\"status\":204}");
  const auto out = write(r);
  EXPECT_EQ(out.find("Content-Length"), std::string::npos);
  EXPECT_EQ(out.substr(out.size() - 4), "\r\n\r\n");
}

TEST(ResponseWriter, ConnectionHeaderFollowsKeepAliveAndVersion) {
  Response r;
  r.set_static(200, kText, "x");
  EXPECT_EQ(write(r, {1, false, true}).find("Connection:"), std::string::npos);
  EXPECT_NE(write(r, {1, false, false}).find("Connection: close\r\n"), std::string::npos);
  EXPECT_NE(write(r, {0, false, true}).find("Connection: keep-alive\r\n"), std::string::npos);
}

TEST(ResponseWriter, ChunksTheBodyForHttp11Only) {
  Response r;
  r.set_static(200, kText, "0123456789abcdefXYZ");
  r.chunk_bytes = 8;
  const auto out = write(r);
  EXPECT_NE(out.find("Transfer-Encoding: chunked\r\n"), std::string::npos);
  EXPECT_EQ(out.find("Content-Length"), std::string::npos);
  EXPECT_EQ(out.substr(out.find("\r\n\r\n") + 4), "8\r\n01234567\r\n8\r\n89abcdef\r\n3\r\nXYZ\r\n0\r\n\r\n");
  const auto old = write(r, {0, false, false});
  EXPECT_NE(old.find("Content-Length: 19\r\n"), std::string::npos);
}

TEST(ResponseWriter, InterimContinue) {
  std::string out;
  append_continue(out);
  EXPECT_EQ(out, "HTTP/1.1 100 Continue\r\n\r\n");
}

}  // namespace
}  // namespace stampede::target
