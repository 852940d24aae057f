// Misbehaving servers and networks: every failure ends the request once, with a sentence
// naming the URL and a reason word, and is counted.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clients/http_fixture.hpp"
#include "clients/scripted_server.hpp"
#include "wait_until.hpp"

namespace stampede::testing {
namespace {

using clients::HttpRequest;
using clients::HttpResponse;
using clients::HttpSession;

// A loopback port with nothing listening: bound (so no one else takes it) but not listening,
// so connecting is refused.
class ClosedPort {
 public:
  ClosedPort() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address);
    socklen_t size = sizeof address;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size);
    port_ = ntohs(address.sin_port);
  }
  ~ClosedPort() { ::close(fd_); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/nothing"; }

 private:
  int fd_;
  std::uint16_t port_ = 0;
};

class HttpErrors : public HttpFixture {
 protected:
  void expect_error(const HttpResponse& res, const std::string& reason, const std::string& url) {
    EXPECT_EQ(res.error_reason, reason) << res.error;
    EXPECT_NE(res.error.find(url), std::string::npos) << "the message names the URL: " << res.error;
    EXPECT_EQ(res.status, 0);
  }
};

TEST_F(HttpErrors, ConnectionRefused) {
  ClosedPort port;
  HttpSession session(ctx);
  auto res = get(session, port.url());
  expect_error(res, "refused", port.url());
  EXPECT_NE(res.error.find("refused"), std::string::npos) << res.error;
  auto snapshot = take();
  EXPECT_EQ(errors(snapshot, "refused"), 1u);
  EXPECT_EQ(timing_count(snapshot, "http.request"), 0u);  // no response, no timing
  EXPECT_EQ(snapshot.requests.sent, 1u);
  EXPECT_EQ(snapshot.requests.failed, 1u);
}

TEST_F(HttpErrors, RefusedOnEveryAddressOfLocalhost) {
  ClosedPort port;
  HttpSession session(ctx);
  const std::string url = "http://localhost:" + port.url().substr(std::string("http://127.0.0.1:").size());
  expect_error(get(session, url), "refused", url);
}

TEST_F(HttpErrors, GarbageResponseIsAProtocolError) {
  ScriptedServer server([](ServerConnection& conn) {
    if (conn.read_request()) conn.send("SSH-2.0-OpenSSH_9.2\r\n\r\n");
    conn.wait_for_close();
  });
  HttpSession session(ctx);
  auto res = get(session, server.url("/x"));
  expect_error(res, "protocol", server.url("/x"));
  EXPECT_EQ(errors(take(), "protocol"), 1u);
}

TEST_F(HttpErrors, ABodyOverTheRequestsOwnLimitIsAProtocolError) {
  // Announced (Content-Length) and not announced (chunked): refused as soon as it is seen to
  // be too large, whatever the rest would have been.
  ScriptedServer server([](ServerConnection& conn) {
    while (auto req = conn.read_request()) {
      if (req->target == "/announced") {
        conn.send("HTTP/1.1 200 OK\r\ncontent-length: 5000\r\n\r\n" + std::string(5000, 'x'));
      } else if (req->target == "/chunked") {
        conn.send("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n800\r\n" + std::string(2048, 'x') +
                  "\r\n800\r\n" + std::string(2048, 'x') + "\r\n0\r\n\r\n");
      } else {
        conn.send(http_response(200, std::string(1000, 'x')));
      }
    }
  });
  HttpSession session(ctx);
  for (const char* path : {"/announced", "/chunked"}) {
    HttpRequest req;
    req.url = server.url(path);
    req.max_body_bytes = 3000;
    auto res = fetch(session, req);
    expect_error(res, "protocol", server.url(path));
    EXPECT_NE(res.error.find("larger than the limit of 3000 bytes"), std::string::npos) << res.error;
  }
  HttpRequest small;
  small.url = server.url("/small");
  small.max_body_bytes = 3000;
  EXPECT_EQ(fetch(session, small).body.size(), 1000u);
  // Without a limit of its own, the parser's (256 MB) applies: the same 5000 bytes are fine.
  EXPECT_EQ(get(session, server.url("/announced")).body.size(), 5000u);
}

TEST_F(HttpErrors, CloseMidBodyIsClosed) {
  ScriptedServer server([](ServerConnection& conn) {
    if (conn.read_request()) conn.send("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly ten b");
    conn.close();
  });
  HttpSession session(ctx);
  auto res = get(session, server.url("/cut"));
  expect_error(res, "closed", server.url("/cut"));
  EXPECT_EQ(errors(take(), "closed"), 1u);
}

TEST_F(HttpErrors, ResetMidBodyIsReset) {
  ScriptedServer server([](ServerConnection& conn) {
    if (conn.read_request()) conn.send("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly ten b");
    wait_until("the client read the first part", [&] { return conn.read_by_client(); });  // mid-body, then
    conn.reset();
  });
  HttpSession session(ctx);
  auto res = get(session, server.url("/rst"));
  expect_error(res, "reset", server.url("/rst"));
}

TEST_F(HttpErrors, CloseBeforeAnyByteOnAFreshConnectionIsNotRetried) {
  ScriptedServer server([](ServerConnection& conn) {
    conn.read_request();
    conn.close();
  });
  HttpSession session(ctx);
  auto res = get(session, server.url());
  expect_error(res, "closed", server.url());
  EXPECT_EQ(server.accepted(), 1);
}

TEST_F(HttpErrors, StallEndsWithTimeoutOnTime) {
  ScriptedServer server([](ServerConnection& conn) {
    conn.read_request();
    conn.wait_for_close();
  });
  HttpSession session(ctx);
  HttpRequest req;
  req.url = server.url("/slow");
  req.timeout = 200 * kMilli;
  const auto start = std::chrono::steady_clock::now();
  auto res = fetch(session, req);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  expect_error(res, "timeout", server.url("/slow"));
  EXPECT_GE(elapsed, std::chrono::milliseconds(200));  // never early; how late is not a unit test's
  EXPECT_EQ(session.idle_connections(), 0u);  // a timed-out connection is never reused
  auto snapshot = take();
  EXPECT_EQ(errors(snapshot, "timeout"), 1u);
  EXPECT_EQ(snapshot.requests.failed, 1u);
}

TEST_F(HttpErrors, TimeoutCoversTheWholeRequestAcrossRedirects) {
  // A slow server (the pause is what is tested): every hop takes 60 ms, well within the
  // 250 ms, so a timeout that restarted with each hop would follow the redirects to the
  // session's limit of 10 and fail with "redirects".
  ScriptedServer server([](ServerConnection& conn) {
    while (auto req = conn.read_request()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(60));
      conn.send(http_response(302, "", "location: /again\r\n"));
    }
  });
  HttpSession session(ctx);
  HttpRequest req;
  req.url = server.url("/");
  req.timeout = 250 * kMilli;
  const auto start = std::chrono::steady_clock::now();
  auto res = fetch(session, req);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  const auto hops = server.requests().size();
  EXPECT_EQ(res.error_reason, "timeout") << res.error << " after " << hops << " requests";
  EXPECT_GE(elapsed, std::chrono::milliseconds(250));
  EXPECT_GE(hops, 1u);
}

TEST_F(HttpErrors, Status500IsAResponseCountedAsAnError) {
  ScriptedServer server([](ServerConnection& conn) {
    while (conn.read_request()) conn.send(http_response(500, "boom"));
  });
  HttpSession session(ctx);
  auto res = get(session, server.url());
  EXPECT_EQ(res.status, 500);
  EXPECT_EQ(res.body, "boom");
  EXPECT_EQ(res.error, "");
  EXPECT_EQ(res.error_reason, "");
  auto snapshot = take();
  EXPECT_EQ(errors(snapshot, "status 500"), 1u);
  EXPECT_EQ(timing_count(snapshot, "http.request"), 1u);
  EXPECT_EQ(snapshot.requests.completed, 0u);
  EXPECT_EQ(snapshot.requests.failed, 1u);
  EXPECT_EQ(session.idle_connections(), 1u);  // an error status does not spoil the connection
}

TEST_F(HttpErrors, BadUrlsNameTheUrl) {
  HttpSession session(ctx);
  for (const std::string url : {"ftp://example.com/file", "not a url", "http:///nohost", "http://[::1/", "http://h:99999/"}) {
    auto res = get(session, url);
    EXPECT_EQ(res.error_reason, "url") << url;
    EXPECT_NE(res.error.find(url), std::string::npos) << res.error;
  }
  EXPECT_EQ(errors(take(), "url"), 5u);
}

TEST_F(HttpErrors, CallbackNeverRunsInsideRequest) {
  HttpSession session(ctx);
  bool called = false;
  HttpRequest req;
  req.url = "bogus";
  session.request(req, [&](HttpResponse) { called = true; });
  EXPECT_FALSE(called);
  EXPECT_TRUE(run_until([&] { return called; }));
}

TEST_F(HttpErrors, OutOfFileDescriptorsSaysWhatToDo) {
  ScriptedServer server([](ServerConnection& conn) { conn.wait_for_close(); });
  HttpSession session(ctx);
  HttpRequest req;
  req.url = server.url();
  bool done = false;
  HttpResponse res;
  session.request(req, [&](HttpResponse r) {
    res = std::move(r);
    done = true;
  });
  rlimit saved{};
  ::getrlimit(RLIMIT_NOFILE, &saved);
  rlimit tight = saved;
  const int lowest_free = ::dup(0);
  ::close(lowest_free);
  tight.rlim_cur = static_cast<rlim_t>(lowest_free);  // the next descriptor is one too many
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &tight), 0);
  io.run_one_for(std::chrono::milliseconds(100));  // the connect attempt opens its socket here
  ::setrlimit(RLIMIT_NOFILE, &saved);
  ASSERT_TRUE(run_until([&] { return done; }));
  EXPECT_EQ(res.error_reason, "fd") << res.error;
  EXPECT_NE(res.error.find("file descriptors"), std::string::npos) << res.error;
  EXPECT_NE(res.error.find("ulimit -n"), std::string::npos) << res.error;
  EXPECT_NE(res.error.find("fewer VUs per process"), std::string::npos) << res.error;
}

TEST_F(HttpErrors, SourceAddressNotOnThisMachineIsAPortsError) {
  ScriptedServer server([](ServerConnection& conn) { conn.wait_for_close(); });
  ctx.local_addresses = {boost::asio::ip::make_address("192.0.2.1")};  // TEST-NET-1: never assigned
  HttpSession session(ctx);
  auto res = get(session, server.url());
  EXPECT_EQ(res.error_reason, "ports") << res.error;
  EXPECT_NE(res.error.find("local_addresses"), std::string::npos) << res.error;
  EXPECT_EQ(server.accepted(), 0);
}

TEST_F(HttpErrors, SourceAddressesOfTheWrongFamilyAreAPortsError) {
  ScriptedServer server([](ServerConnection& conn) { conn.wait_for_close(); });
  ctx.local_addresses = {boost::asio::ip::make_address("::1")};
  HttpSession session(ctx);
  auto res = get(session, server.url());
  EXPECT_EQ(res.error_reason, "ports") << res.error;
  EXPECT_NE(res.error.find("address family"), std::string::npos) << res.error;
}

}  // namespace
}  // namespace stampede::testing
