// Keep-alive: reuse per origin, more connections for concurrent requests, the idle cap,
// and what happens when the server closes a connection we meant to reuse.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

#include "clients/http_fixture.hpp"
#include "clients/scripted_server.hpp"
#include "wait_until.hpp"

namespace stampede::testing {
namespace {

using clients::HttpRequest;
using clients::HttpSession;

class HttpKeepAlive : public HttpFixture {};

TEST_F(HttpKeepAlive, SequentialRequestsShareOneConnection) {
  ScriptedServer server(echo_target);
  HttpSession session(ctx);
  for (int i = 0; i < 5; ++i) {
    auto res = get(session, server.url("/n" + std::to_string(i)));
    EXPECT_EQ(res.error, "");
    EXPECT_EQ(res.status, 200);
    EXPECT_EQ(res.body, "/n" + std::to_string(i));
  }
  EXPECT_EQ(server.accepted(), 1);
  EXPECT_EQ(session.idle_connections(), 1u);
}

TEST_F(HttpKeepAlive, ConcurrentRequestsOpenMoreConnectionsThenReuseThem) {
  ScriptedServer server(echo_target);
  HttpSession session(ctx);
  std::vector<HttpRequest> batch(3);
  for (auto& r : batch) r.url = server.url("/c");
  for (const auto& res : fetch_all(session, batch)) EXPECT_EQ(res.status, 200) << res.error;
  EXPECT_EQ(server.accepted(), 3);
  EXPECT_EQ(session.idle_connections(), 3u);

  for (const auto& res : fetch_all(session, batch)) EXPECT_EQ(res.status, 200) << res.error;
  EXPECT_EQ(server.accepted(), 3);
}

TEST_F(HttpKeepAlive, AtMostSixConnectionsStayIdlePerOrigin) {
  ScriptedServer server(echo_target);
  HttpSession session(ctx);
  std::vector<HttpRequest> batch(8);
  for (auto& r : batch) r.url = server.url("/");
  for (const auto& res : fetch_all(session, batch)) EXPECT_EQ(res.status, 200) << res.error;
  EXPECT_EQ(server.accepted(), 8);
  EXPECT_EQ(session.idle_connections(), 6u);
}

TEST_F(HttpKeepAlive, OriginsArePooledSeparately) {
  ScriptedServer a(echo_target);
  ScriptedServer b(echo_target);
  HttpSession session(ctx);
  EXPECT_EQ(get(session, a.url("/")).status, 200);
  EXPECT_EQ(get(session, b.url("/")).status, 200);
  EXPECT_EQ(get(session, a.url("/")).status, 200);
  EXPECT_EQ(get(session, b.url("/", "localhost")).status, 200);  // another host name: another origin
  EXPECT_EQ(a.accepted(), 1);
  EXPECT_EQ(b.accepted(), 2);
  EXPECT_EQ(session.idle_connections(), 3u);
}

TEST_F(HttpKeepAlive, ConnectionCloseIsHonoured) {
  ScriptedServer server([](ServerConnection& conn) {
    if (conn.read_request()) conn.send(http_response(200, "bye", "connection: close\r\n"));
    conn.close();
  });
  HttpSession session(ctx);
  EXPECT_EQ(get(session, server.url()).body, "bye");
  EXPECT_EQ(session.idle_connections(), 0u);
  EXPECT_EQ(get(session, server.url()).body, "bye");
  EXPECT_EQ(server.accepted(), 2);
}

TEST_F(HttpKeepAlive, AYoungConnectionCarriesGetsWithoutAPeekButAPostIsChecked) {
  ScriptedServer server(echo_target);
  HttpSession session(ctx);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(get(session, server.url("/")).status, 200);
  EXPECT_EQ(session.liveness_checks(), 0u);  // the second and third GET took it unchecked
  HttpRequest post;
  post.method = "POST";
  post.url = server.url("/p");
  post.body = "x=1";
  EXPECT_EQ(fetch(session, post).body, "/p");
  EXPECT_EQ(session.liveness_checks(), 1u);  // a POST cannot be sent twice: checked first
  EXPECT_EQ(server.accepted(), 1);
}

// Answers once and closes; `closed` is set once the FIN is at the client (its kernel
// acknowledged it), where the session's next look at the connection finds it.
ScriptedServer::Script answer_once_then_close(std::atomic<bool>& closed, bool echo_method = false) {
  return [&closed, echo_method](ServerConnection& conn) {
    if (auto req = conn.read_request()) conn.send(http_response(200, echo_method ? req->method : req->target));
    conn.close();
    if (wait_until("the FIN reached the client", [&] { return conn.delivered(); })) closed = true;
  };
}

TEST_F(HttpKeepAlive, AYoungConnectionTheServerClosedCostsAGetARetryNotAnError) {
  std::atomic<bool> closed{false};
  ScriptedServer server(answer_once_then_close(closed));
  HttpSession session(ctx);
  EXPECT_EQ(get(session, server.url("/a")).body, "/a");
  ASSERT_TRUE(wait_until("the server closed", [&] { return closed.load(); }));  // the FIN is there before the reuse
  auto res = get(session, server.url("/b"));
  EXPECT_EQ(res.error, "");
  EXPECT_EQ(res.body, "/b");
  EXPECT_EQ(session.liveness_checks(), 0u);
  EXPECT_EQ(server.accepted(), 2);
  auto snapshot = take();
  EXPECT_EQ(errors(snapshot, "closed"), 0u);
  EXPECT_EQ(snapshot.requests.completed, 2u);
}

// The steady clock, moved forward by hand: a connection ages without the test waiting.
class AgedClock final : public Clock {
 public:
  Nanos now() const override { return SteadyClock::monotonic_now() + offset; }
  Nanos offset = 0;
};

TEST_F(HttpKeepAlive, AConnectionIdleForSecondsIsCheckedEvenForAGet) {
  // As a server's idle timeout might: a 408 nobody asked for, once the client has the answer
  // (`answered`), and there (`timed_out`: its kernel acknowledged it) before the next request.
  std::atomic<bool> answered{false};
  std::atomic<bool> timed_out{false};
  ScriptedServer server([&](ServerConnection& conn) {
    if (conn.number() == 1) {
      if (conn.read_request()) conn.send(http_response(200, "first"));
      if (!wait_until("the client has the first answer", [&] { return answered.load(); })) return;
      conn.send("HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\n\r\n");
      if (wait_until("the 408 reached the client", [&] { return conn.delivered(); })) timed_out = true;
      conn.read_request();
      return;
    }
    echo_target(conn);
  });
  AgedClock aged;
  clients::ClientContext aged_ctx{io, sink, aged};
  HttpSession session(aged_ctx);
  EXPECT_EQ(get(session, server.url("/a")).body, "first");
  answered = true;
  ASSERT_TRUE(wait_until("the server sent its 408", [&] { return timed_out.load(); }));
  aged.offset = 2 * kSecond;
  auto res = get(session, server.url("/b"));
  EXPECT_EQ(res.status, 200) << res.error;
  EXPECT_EQ(res.body, "/b");
  EXPECT_EQ(session.liveness_checks(), 1u);
  EXPECT_EQ(server.accepted(), 2);
}

TEST_F(HttpKeepAlive, IdleConnectionClosedByServerIsNotReusedEvenForPost) {
  // The server answers once and closes; by the next request the FIN has arrived, so the
  // session sees the connection is dead before writing on it.
  std::atomic<bool> closed{false};
  ScriptedServer server(answer_once_then_close(closed, /*echo_method=*/true));
  HttpSession session(ctx);
  EXPECT_EQ(get(session, server.url()).body, "GET");
  ASSERT_TRUE(wait_until("the server closed", [&] { return closed.load(); }));
  HttpRequest post;
  post.method = "POST";
  post.url = server.url();
  post.body = "x=1";
  auto res = fetch(session, post);
  EXPECT_EQ(res.error, "");
  EXPECT_EQ(res.body, "POST");
  EXPECT_EQ(server.accepted(), 2);
}

// The race no liveness check can see: the server takes the request, then closes without
// answering (as when its idle timeout fires just as the request arrives).
void answer_first_then_drop(ServerConnection& conn) {
  if (conn.number() == 1) {
    if (auto req = conn.read_request()) conn.send(http_response(200, "first"));
    conn.read_request();
    conn.close();
    return;
  }
  echo_target(conn);
}

TEST_F(HttpKeepAlive, GetIsRetriedOnceOnAFreshConnectionWhenAReusedOneDrops) {
  ScriptedServer server(answer_first_then_drop);
  HttpSession session(ctx);
  EXPECT_EQ(get(session, server.url("/a")).body, "first");
  auto res = get(session, server.url("/b"));
  EXPECT_EQ(res.error, "");
  EXPECT_EQ(res.body, "/b");
  EXPECT_EQ(server.accepted(), 2);
  auto snapshot = take();
  EXPECT_EQ(errors(snapshot, "closed"), 0u);
  EXPECT_EQ(snapshot.requests.sent, 2u);  // the retry is the same request
  EXPECT_EQ(snapshot.requests.completed, 2u);
}

TEST_F(HttpKeepAlive, PostIsNotRetried) {
  ScriptedServer server(answer_first_then_drop);
  HttpSession session(ctx);
  EXPECT_EQ(get(session, server.url("/a")).body, "first");
  HttpRequest post;
  post.method = "POST";
  post.url = server.url("/b");
  post.body = "once";
  auto res = fetch(session, post);
  EXPECT_EQ(res.error_reason, "closed");
  EXPECT_EQ(res.status, 0);
  EXPECT_NE(res.error.find(server.url("/b")), std::string::npos) << res.error;
  EXPECT_EQ(server.accepted(), 1);
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST_F(HttpKeepAlive, RetryHappensOnlyOnce) {
  // Every connection drops the request it should answer second; the retry's fresh
  // connection drops its first one too.
  ScriptedServer server([](ServerConnection& conn) {
    if (conn.number() == 1) {
      if (conn.read_request()) conn.send(http_response(200, "first"));
    }
    conn.read_request();
    conn.close();
  });
  HttpSession session(ctx);
  EXPECT_EQ(get(session, server.url()).body, "first");
  auto res = get(session, server.url());
  EXPECT_EQ(res.error_reason, "closed");
  EXPECT_EQ(server.accepted(), 2);
}

TEST_F(HttpKeepAlive, ResetOnReusedConnectionIsRetriedForGet) {
  ScriptedServer server([](ServerConnection& conn) {
    if (conn.number() == 1) {
      if (conn.read_request()) conn.send(http_response(200, "first"));
      conn.read_request();
      conn.reset();
      return;
    }
    echo_target(conn);
  });
  HttpSession session(ctx);
  EXPECT_EQ(get(session, server.url()).body, "first");
  auto res = get(session, server.url("/again"));
  EXPECT_EQ(res.error, "");
  EXPECT_EQ(res.body, "/again");
}

}  // namespace
}  // namespace stampede::testing
