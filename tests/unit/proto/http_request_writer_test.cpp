#include "proto/http_request_writer.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>

namespace stampede::proto {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

std::string head(std::string_view method, std::string_view target, const Headers& headers = {},
                 std::size_t length = 0, bool has_body = false) {
  std::string out;
  write_request_head(out, method, target, "example.com:8080", headers, length, has_body);
  return out;
}

TEST(WriteRequestHead, GetWithHostFirst) {
  EXPECT_EQ(head("GET", "/path?q=1", {{"Accept", "*/*"}, {"X-Trace", "abc"}}),
            "GET /path?q=1 HTTP/1.1\r\nHost: example.com:8080\r\nAccept: */*\r\nX-Trace: abc\r\n\r\n");
}

TEST(WriteRequestHead, AppendsToWhatIsAlreadyThere) {
  std::string out = "previous request bytes|";
  write_request_head(out, "GET", "/", "h", {}, 0, false);
  EXPECT_EQ(out, "previous request bytes|GET / HTTP/1.1\r\nHost: h\r\n\r\n");
}

TEST(WriteRequestHead, CallerHostHeaderWins) {
  EXPECT_EQ(head("GET", "/", {{"host", "other.example"}}), "GET / HTTP/1.1\r\nhost: other.example\r\n\r\n");
}

TEST(WriteRequestHead, ContentLengthForBodiesAndForPostPutPatch) {
  EXPECT_EQ(head("POST", "/form", {{"Content-Type", "application/x-www-form-urlencoded"}}, 7, true),
            "POST /form HTTP/1.1\r\nHost: example.com:8080\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            "Content-Length: 7\r\n\r\n");
  EXPECT_EQ(head("POST", "/empty"), "POST /empty HTTP/1.1\r\nHost: example.com:8080\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(head("PUT", "/x"), "PUT /x HTTP/1.1\r\nHost: example.com:8080\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(head("PATCH", "/x", {}, 12345678901, true),
            "PATCH /x HTTP/1.1\r\nHost: example.com:8080\r\nContent-Length: 12345678901\r\n\r\n");
  EXPECT_EQ(head("DELETE", "/x", {}, 2, true), "DELETE /x HTTP/1.1\r\nHost: example.com:8080\r\nContent-Length: 2\r\n\r\n");
  EXPECT_EQ(head("DELETE", "/x"), "DELETE /x HTTP/1.1\r\nHost: example.com:8080\r\n\r\n");
  EXPECT_EQ(head("GET", "/x"), "GET /x HTTP/1.1\r\nHost: example.com:8080\r\n\r\n");
}

TEST(WriteRequestHead, ComputedContentLengthReplacesTheCallers) {
  EXPECT_EQ(head("POST", "/", {{"content-length", "999"}, {"X", "y"}}, 3, true),
            "POST / HTTP/1.1\r\nHost: example.com:8080\r\nX: y\r\nContent-Length: 3\r\n\r\n");
  // Without a body of ours, a caller's Content-Length is theirs to send.
  EXPECT_EQ(head("GET", "/", {{"Content-Length", "0"}}), "GET / HTTP/1.1\r\nHost: example.com:8080\r\nContent-Length: 0\r\n\r\n");
}

TEST(WriteRequestHead, EmptyHeaderValueIsAllowed) {
  EXPECT_EQ(head("GET", "/", {{"X-Empty", ""}}), "GET / HTTP/1.1\r\nHost: example.com:8080\r\nX-Empty: \r\n\r\n");
}

void expect_rejected(const std::function<void()>& write, const std::string& message) {
  try {
    write();
    FAIL() << "expected std::invalid_argument: " << message;
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(WriteRequestHead, RejectsHeaderInjection) {
  expect_rejected([] { head("GET", "/", {{"X-Evil", "a\r\nSet-Cookie: x=1"}}); },
                  "invalid value for header \"X-Evil\": \"a\\r\\nSet-Cookie: x=1\" contains CR, LF or NUL");
  expect_rejected([] { head("GET", "/", {{"X-Evil", std::string("a\0b", 3)}}); },
                  "invalid value for header \"X-Evil\": \"a\\x00b\" contains CR, LF or NUL");
  expect_rejected([] { head("GET", "/", {{"X-Evil", "lf\nonly"}}); },
                  "invalid value for header \"X-Evil\": \"lf\\nonly\" contains CR, LF or NUL");
  expect_rejected([] { head("GET", "/", {{"X-Evil\r\nInjected", "v"}}); },
                  "invalid header name \"X-Evil\\r\\nInjected\": a name is letters, digits and !#$%&'*+-.^_`|~ only");
  expect_rejected([] { head("GET", "/", {{"Bad Name", "v"}}); },
                  "invalid header name \"Bad Name\": a name is letters, digits and !#$%&'*+-.^_`|~ only");
  expect_rejected([] { head("GET", "/", {{"Name:", "v"}}); },
                  "invalid header name \"Name:\": a name is letters, digits and !#$%&'*+-.^_`|~ only");
  expect_rejected([] { head("GET", "/", {{"", "v"}}); },
                  "invalid header name \"\": a name is letters, digits and !#$%&'*+-.^_`|~ only");
  expect_rejected(
      [] {
        std::string out;
        write_request_head(out, "GET", "/", "h\r\nX: y", {}, 0, false);
      },
      "invalid Host header value \"h\\r\\nX: y\": it contains CR, LF or NUL");
}

TEST(WriteRequestHead, RejectsBadMethodsAndTargets) {
  expect_rejected([] { head("GET /x HTTP/1.1\r\n", "/"); }, "invalid HTTP method \"GET /x HTTP/1.1\\r\\n\"");
  expect_rejected([] { head("", "/"); }, "invalid HTTP method \"\"");
  expect_rejected([] { head("GET", ""); }, "empty request target");
  expect_rejected([] { head("GET", "/a b"); },
                  "invalid request target \"/a b\": spaces and control characters must be percent-encoded");
  expect_rejected([] { head("GET", "/a\r\nX: y"); },
                  "invalid request target \"/a\\r\\nX: y\": spaces and control characters must be percent-encoded");
}

TEST(WriteRequestHead, RejectionLeavesTheBufferUnchanged) {
  std::string out = "kept";
  EXPECT_THROW(write_request_head(out, "GET", "/", "h", {{"A", "1"}, {"B", "\n"}}, 0, false), std::invalid_argument);
  EXPECT_EQ(out, "kept");
}

}  // namespace
}  // namespace stampede::proto

namespace stampede::proto {
namespace {

// The headers a client adds itself (defaults, cookies) come after the caller's, under the
// same rules, without being copied into the caller's vector.
TEST(WriteRequestHead, ExtraHeadersFollowTheCallersUnderTheSameRules) {
  const std::vector<HeaderView> extra{{"user-agent", "stampede/0.1"}, {"cookie", "a=1; b=2"}};
  std::string out;
  write_request_head(out, "GET", "/", "h", {{"Accept", "*/*"}}, 0, false, extra);
  EXPECT_EQ(out, "GET / HTTP/1.1\r\nHost: h\r\nAccept: */*\r\nuser-agent: stampede/0.1\r\ncookie: a=1; b=2\r\n\r\n");

  out.clear();
  const std::vector<HeaderView> host_and_length{{"Host", "other"}, {"content-length", "99"}};
  write_request_head(out, "POST", "/p", "h", {}, 2, true, host_and_length);
  EXPECT_EQ(out, "POST /p HTTP/1.1\r\nHost: other\r\nContent-Length: 2\r\n\r\n");

  out = "kept";
  const std::vector<HeaderView> injected{{"cookie", "a=1\r\nX-Evil: 1"}};
  EXPECT_THROW(write_request_head(out, "GET", "/", "h", {}, 0, false, injected), std::invalid_argument);
  const std::vector<HeaderView> bad_name{{"bad name", "v"}};
  EXPECT_THROW(write_request_head(out, "GET", "/", "h", {}, 0, false, bad_name), std::invalid_argument);
  EXPECT_EQ(out, "kept");
}

}  // namespace
}  // namespace stampede::proto
