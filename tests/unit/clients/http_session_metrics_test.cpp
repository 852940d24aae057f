// What the session records: service time from the write to the last byte, per name, and
// the request tally.
#include <gtest/gtest.h>

#include <stdexcept>

#include "clients/http_fixture.hpp"
#include "clients/scripted_server.hpp"

namespace stampede::testing {
namespace {

using clients::HttpRequest;
using clients::HttpSession;

class HttpMetrics : public HttpFixture {};

TEST_F(HttpMetrics, ServiceTimeRunsFromTheWriteToTheLastByte) {
  // The server's pauses are what is measured (a slow server, a body that ends later), not
  // waits for the client to have done something.
  constexpr auto kThink = std::chrono::milliseconds(30);
  ScriptedServer server([&](ServerConnection& conn) {
    while (conn.read_request()) {
      std::this_thread::sleep_for(kThink);
      conn.send("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n01234");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the last byte comes later
      conn.send("56789");
    }
  });
  HttpSession session(ctx);
  HttpRequest req;
  req.url = server.url();
  req.name = "slow";
  const Nanos asked = SteadyClock::monotonic_now();
  auto res = fetch(session, req);
  const Nanos answered = SteadyClock::monotonic_now();
  ASSERT_EQ(res.body, "0123456789");
  // Both pauses in it; and inside the call (from the write, not from some earlier moment).
  EXPECT_GE(res.duration, 40 * kMilli);
  EXPECT_LE(res.duration, answered - asked);

  auto snapshot = take();
  const auto* timing = metric(snapshot, "http.request");
  ASSERT_NE(timing, nullptr);
  EXPECT_EQ(timing->histogram.count(), 1u);
  EXPECT_NEAR(static_cast<double>(timing->histogram.max()), static_cast<double>(res.duration), 0.001 * res.duration);
  EXPECT_EQ(timing_count(snapshot, "http.request.slow"), 1u);
  EXPECT_EQ(snapshot.requests.sent, 1u);
  EXPECT_EQ(snapshot.requests.completed, 1u);
  EXPECT_EQ(snapshot.requests.failed, 0u);
}

TEST_F(HttpMetrics, ManyRequestsAreEachCountedOnce) {
  ScriptedServer server([](ServerConnection& conn) {
    while (auto req = conn.read_request()) {
      conn.send(req->target == "/bad" ? http_response(404) : http_response(200, "ok"));
    }
  });
  HttpSession session(ctx);
  for (int i = 0; i < 50; ++i) get(session, server.url(i % 5 == 0 ? "/bad" : "/good"));
  auto snapshot = take();
  EXPECT_EQ(timing_count(snapshot, "http.request"), 50u);
  EXPECT_EQ(errors(snapshot, "status 404"), 10u);
  EXPECT_EQ(snapshot.requests.sent, 50u);
  EXPECT_EQ(snapshot.requests.completed, 40u);
  EXPECT_EQ(snapshot.requests.failed, 10u);
  EXPECT_EQ(server.accepted(), 1);
}

// The name's row is found in request() itself: a clash used to throw when the response
// arrived, inside the loop's read handler, and end the process.
TEST_F(HttpMetrics, ANameWhoseRowIsAnotherKindThrowsFromRequestBeforeAnythingIsSent) {
  ScriptedServer server([](ServerConnection& conn) {
    while (conn.read_request()) conn.send(http_response(200, "ok"));
  });
  HttpSession session(ctx);
  sink.id("http.request.login", metrics::Kind::Counter);  // a scenario's stampede.increment
  for (const char* name : {"errors", "login"}) {
    HttpRequest req;
    req.url = server.url();
    req.name = name;
    bool called = false;
    EXPECT_THROW(session.request(std::move(req), [&](clients::HttpResponse) { called = true; }),
                 std::invalid_argument)
        << name;
    run_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(called) << name;
  }
  EXPECT_EQ(server.accepted(), 0);
  EXPECT_EQ(take().requests.sent, 0u);

  // The session is still usable, and a good name is still recorded.
  HttpRequest req;
  req.url = server.url();
  req.name = "posts";
  EXPECT_EQ(fetch(session, req).status, 200);
  EXPECT_EQ(timing_count(take(), "http.request.posts"), 1u);
}

}  // namespace
}  // namespace stampede::testing
