// The HTTP client's HTTP/2 side over real sockets, against our own server codec in a thread
// (tests/integration/test_http2.py has Node's http2, curl and misbehaving servers): one
// connection per origin for concurrent requests, the counting rules of http_session.hpp,
// timeouts that reset only their stream, close_all and the destroy modes.
#include <gtest/gtest.h>

#include "clients/h2_test_server.hpp"
#include "clients/http_fixture.hpp"

namespace stampede::testing {
namespace {

using clients::HttpRequest;
using clients::HttpResponse;
using clients::HttpSession;

HttpRequest h2(const std::string& url, Nanos timeout = 5 * kSecond) {
  HttpRequest req;
  req.url = url;
  req.http2 = true;
  req.timeout = timeout;
  return req;
}

class Http2Session : public HttpFixture {};

TEST_F(Http2Session, ConcurrentRequestsAreStreamsOfOneConnection) {
  H2TestServer server;
  HttpSession session(ctx);
  std::vector<HttpRequest> reqs;
  for (int i = 0; i < 10; ++i) reqs.push_back(h2(server.url("/slow")));
  const auto responses = fetch_all(session, std::move(reqs));
  for (const auto& r : responses) {
    EXPECT_EQ(r.status, 200) << r.error;
    EXPECT_EQ(r.proto, "HTTP/2");
    EXPECT_EQ(r.body, "slow");
    EXPECT_GE(r.duration, 100 * kMilli);
  }
  EXPECT_EQ(server.accepted(), 1);
  EXPECT_EQ(session.http2_connections(), 1u);
  EXPECT_EQ(session.idle_connections(), 0u);  // the HTTP/1.1 pool is untouched
  const auto snapshot = take();
  EXPECT_EQ(snapshot.requests.sent, 10u);
  EXPECT_EQ(snapshot.requests.completed, 10u);
  EXPECT_EQ(timing_count(snapshot, "http.request"), 10u);
}

TEST_F(Http2Session, ATimeoutResetsItsStreamAndTheConnectionCarriesOn) {
  H2TestServer server;
  HttpSession session(ctx);
  const HttpResponse stalled = fetch(session, h2(server.url("/stall"), 100 * kMilli));
  EXPECT_EQ(stalled.error_reason, "timeout");
  EXPECT_EQ(stalled.proto, "HTTP/2");
  const HttpResponse ok = fetch(session, h2(server.url("/ok")));
  EXPECT_EQ(ok.status, 200) << ok.error;
  EXPECT_TRUE(run_until([&] { return server.resets() == 1; })) << "the stalled stream was not reset";
  EXPECT_EQ(server.accepted(), 1);
  const auto snapshot = take();
  EXPECT_EQ(snapshot.requests.sent, 2u);
  EXPECT_EQ(snapshot.requests.completed, 1u);
  EXPECT_EQ(snapshot.requests.failed, 1u);
  EXPECT_EQ(errors(snapshot, "timeout"), 1u);
}

TEST_F(Http2Session, CloseAllCutsRequestsOffUncountedAndClosesTheConnection) {
  H2TestServer server;
  HttpSession session(ctx);
  int answered = 0;
  std::vector<std::string> reasons;
  for (int i = 0; i < 3; ++i) {
    session.request(h2(server.url("/stall")), [&](HttpResponse&& r) {
      reasons.push_back(r.error_reason);
      ++answered;
    });
  }
  ASSERT_TRUE(run_until([&] { return server.requests() == 3; }));
  session.close_all();
  EXPECT_EQ(answered, 0);  // never inside close_all
  ASSERT_TRUE(run_until([&] { return answered == 3; }));
  EXPECT_EQ(reasons, std::vector<std::string>(3, "closed"));
  EXPECT_TRUE(run_until([&] { return server.closed_by_client() == 1; }));
  EXPECT_EQ(session.http2_connections(), 0u);
  const auto snapshot = take();
  EXPECT_EQ(snapshot.requests.sent, 3u);
  EXPECT_EQ(snapshot.requests.completed + snapshot.requests.failed, 0u);  // cut off: still in flight
}

TEST_F(Http2Session, DiscardModeCallsNothingAfterTheSessionIsGone) {
  H2TestServer server;
  bool called = false;
  {
    HttpSession session(ctx, HttpSession::OnDestroy::discard);
    session.request(h2(server.url("/slow")), [&](HttpResponse&&) { called = true; });
    ASSERT_TRUE(run_until([&] { return server.requests() == 1; }));
  }
  run_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(called);
}

TEST_F(Http2Session, CompleteModeAnswersClosedAfterTheSessionIsGone) {
  H2TestServer server;
  std::string reason;
  {
    HttpSession session(ctx);
    session.request(h2(server.url("/stall")), [&](HttpResponse&& r) { reason = r.error_reason; });
    ASSERT_TRUE(run_until([&] { return server.requests() == 1; }));
  }
  ASSERT_TRUE(run_until([&] { return !reason.empty(); }));
  EXPECT_EQ(reason, "closed");
}

TEST_F(Http2Session, ABatchAnswersInOrderWithinItsParallelism) {
  H2TestServer server;
  HttpSession session(ctx);
  std::vector<HttpRequest> reqs{h2(server.url("/slow")), h2(server.url("/ok")), h2(server.url("/slow"))};
  reqs[1].http2 = false;  // HTTP/1.1 to an HTTP/2-only server: an error in its place, not a failed batch
  std::vector<HttpResponse> got;
  const Nanos start = clock.now();
  session.batch(std::move(reqs), 1, [&](std::vector<HttpResponse>&& responses) { got = std::move(responses); });
  ASSERT_TRUE(run_until([&] { return !got.empty(); }));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].body, "slow");
  EXPECT_EQ(got[1].status, 0);
  EXPECT_EQ(got[1].proto, "HTTP/1.1");
  EXPECT_EQ(got[2].body, "slow");
  EXPECT_GE(clock.now() - start, 200 * kMilli);  // one at a time
  EXPECT_THROW(session.batch({}, 1, [](std::vector<HttpResponse>&&) {}), std::invalid_argument);
  EXPECT_THROW(session.batch({h2(server.url("/ok"))}, 0, [](std::vector<HttpResponse>&&) {}), std::invalid_argument);
}

TEST_F(Http2Session, RefusedConnectionIsAnErrorWithTheTransportsReason) {
  HttpSession session(ctx);
  const HttpResponse r = fetch(session, h2("http://127.0.0.1:1/"));
  EXPECT_EQ(r.error_reason, "refused");
  const auto snapshot = take();
  EXPECT_EQ(snapshot.requests.sent, 1u);
  EXPECT_EQ(snapshot.requests.failed, 1u);
}

}  // namespace
}  // namespace stampede::testing
