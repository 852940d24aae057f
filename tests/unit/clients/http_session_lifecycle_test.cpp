// The session's end: close_all() and the destructor with requests in flight, and the
// promise that `done` runs once, later, from the loop (or, if the owner asks, never after
// the destructor).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "clients/http_fixture.hpp"
#include "clients/scripted_server.hpp"
#include "wait_until.hpp"

namespace stampede::testing {
namespace {

using clients::HttpRequest;
using clients::HttpResponse;
using clients::HttpSession;

void stall(ServerConnection& conn) {
  conn.read_request();
  conn.wait_for_close();
}

class HttpLifecycle : public HttpFixture {
 protected:
  // Runs the loop until the first completion has come, then everything already queued
  // behind it (a second completion would be there too).
  void run_until_called(const int& calls) {
    EXPECT_TRUE(run_until([&] { return calls > 0; })) << "no completion";
    io.restart();
    io.poll();
  }

  // Starts a request against a server that never answers and runs until it was written.
  void start_stalled(HttpSession& session, ScriptedServer& server, int& calls, HttpResponse& last) {
    HttpRequest req;
    req.url = server.url("/pending");
    session.request(req, [&calls, &last](HttpResponse r) {
      ++calls;
      last = std::move(r);
    });
    ASSERT_TRUE(run_until([&] { return server.requests().size() == 1; }));
  }
};

TEST_F(HttpLifecycle, CloseAllCompletesPendingRequestsWithClosedLater) {
  ScriptedServer server(stall);
  HttpSession session(ctx);
  int calls = 0;
  HttpResponse last;
  start_stalled(session, server, calls, last);
  session.close_all();
  EXPECT_EQ(calls, 0);  // not from inside close_all()
  run_until_called(calls);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(last.error_reason, "closed");
  EXPECT_NE(last.error.find(server.url("/pending")), std::string::npos) << last.error;

  // Cut off, not failed: the request stays in flight in the tally.
  auto snapshot = take();
  EXPECT_EQ(snapshot.requests.sent, 1u);
  EXPECT_EQ(snapshot.requests.completed + snapshot.requests.failed, 0u);
  EXPECT_EQ(errors(snapshot, "closed"), 0u);

  // The session still works afterwards.
  ScriptedServer other([](ServerConnection& conn) {
    while (conn.read_request()) conn.send(http_response(200, "again"));
  });
  EXPECT_EQ(get(session, other.url()).body, "again");
}

TEST_F(HttpLifecycle, CloseAllClosesIdleConnections) {
  ScriptedServer server([](ServerConnection& conn) {
    while (conn.read_request()) conn.send(http_response(200));
  });
  HttpSession session(ctx);
  EXPECT_EQ(get(session, server.url()).status, 200);
  EXPECT_EQ(session.idle_connections(), 1u);
  session.close_all();
  EXPECT_EQ(session.idle_connections(), 0u);
  EXPECT_EQ(get(session, server.url()).status, 200);
  EXPECT_EQ(server.accepted(), 2);
}

TEST_F(HttpLifecycle, DestructorCompletesPendingRequestsByDefault) {
  ScriptedServer server(stall);
  int calls = 0;
  HttpResponse last;
  {
    HttpSession session(ctx);
    start_stalled(session, server, calls, last);
  }
  EXPECT_EQ(calls, 0);
  run_until_called(calls);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(last.error_reason, "closed");
}

TEST_F(HttpLifecycle, DestructorInDiscardModeNeverCallsBack) {
  ScriptedServer server(stall);
  int calls = 0;
  HttpResponse last;
  {
    HttpSession session(ctx, HttpSession::OnDestroy::discard);
    start_stalled(session, server, calls, last);
    session.close_all();  // queued completions are discarded as well
  }
  run_for(std::chrono::milliseconds(100));
  EXPECT_EQ(calls, 0);
}

TEST_F(HttpLifecycle, DiscardModeStillCompletesWhileTheSessionLives) {
  ScriptedServer server(stall);
  HttpSession session(ctx, HttpSession::OnDestroy::discard);
  int calls = 0;
  HttpResponse last;
  start_stalled(session, server, calls, last);
  session.close_all();
  run_until_called(calls);
  EXPECT_EQ(calls, 1);
}

TEST_F(HttpLifecycle, DestroyingTheSessionFromItsOwnCallbackIsSafe) {
  ScriptedServer server([](ServerConnection& conn) {
    while (conn.read_request()) conn.send(http_response(200));
  });
  auto session = std::make_unique<HttpSession>(ctx);
  bool done = false;
  HttpRequest req;
  req.url = server.url();
  session->request(req, [&](HttpResponse r) {
    EXPECT_EQ(r.status, 200);
    session.reset();
    done = true;
  });
  EXPECT_TRUE(run_until([&] { return done; }));
  run_for(std::chrono::milliseconds(20));
}

TEST_F(HttpLifecycle, DestroyingTheSessionWhileConnectingAndResolvingIsSafe) {
  ScriptedServer server(stall);
  int calls = 0;
  {
    HttpSession session(ctx, HttpSession::OnDestroy::discard);
    for (int i = 0; i < 3; ++i) {
      HttpRequest req;
      // A literal, "localhost", and a name only the system resolver reads ("127.1").
      req.url = server.url("/", i == 0 ? "127.0.0.1" : i == 1 ? "localhost" : "127.1");
      session.request(req, [&calls](HttpResponse) { ++calls; });
    }
    io.poll();  // connects in progress
  }
  run_for(std::chrono::milliseconds(50));
  EXPECT_EQ(calls, 0);
}

TEST_F(HttpLifecycle, ConcurrentRequestsFromOneSessionAllAnswer) {
  // No answer before all 20 requests have arrived: they can only all answer if the session
  // sent them in parallel, not one after another.
  constexpr int kRequests = 20;
  std::atomic<int> arrived{0};
  ScriptedServer server([&arrived](ServerConnection& conn) {
    while (auto req = conn.read_request()) {
      ++arrived;
      if (!wait_until("all requests in flight at once", [&] { return arrived.load() >= kRequests; })) return;
      conn.send(http_response(200, req->target));
    }
  });
  HttpSession session(ctx);
  std::vector<HttpRequest> batch(kRequests);
  for (std::size_t i = 0; i < batch.size(); ++i) batch[i].url = server.url("/" + std::to_string(i));
  auto results = fetch_all(session, batch);
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].body, "/" + std::to_string(i)) << results[i].error;
  }
  EXPECT_EQ(server.accepted(), kRequests);
  EXPECT_EQ(session.idle_connections(), 6u);
}

TEST_F(HttpLifecycle, NewConnectionsRotateOverSourceAddresses) {
  ScriptedServer server([](ServerConnection& conn) {
    while (conn.read_request()) conn.send(http_response(200));
  });
  ctx.local_addresses = {boost::asio::ip::make_address("127.0.0.2"), boost::asio::ip::make_address("127.0.0.3")};
  HttpSession first(ctx);
  HttpSession second(ctx);
  EXPECT_EQ(get(first, server.url()).status, 200);
  EXPECT_EQ(get(second, server.url()).status, 200);
  std::vector<HttpRequest> batch(2);
  for (auto& r : batch) r.url = server.url();
  HttpSession third(ctx);
  for (const auto& res : fetch_all(third, batch)) EXPECT_EQ(res.status, 200) << res.error;
  EXPECT_EQ(server.peers(), (std::vector<std::string>{"127.0.0.2", "127.0.0.3", "127.0.0.2", "127.0.0.3"}));
}

}  // namespace
}  // namespace stampede::testing
