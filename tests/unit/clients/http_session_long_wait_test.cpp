// HttpRequest::long_wait: a request the server holds (a LongPoll GET) waits owning no receive
// buffer, no response parser and no formatted head, and its answer still arrives whole.
// Heap use is counted per thread (clients/counted_heap.hpp): the server's threads are not.
#include <gtest/gtest.h>

#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clients/counted_heap.hpp"
#include "clients/http_fixture.hpp"
#include "clients/scripted_server.hpp"

namespace stampede::testing {
namespace {

using clients::HttpRequest;
using clients::HttpResponse;
using clients::HttpSession;

class HttpLongWait : public HttpFixture {
 protected:
  // `n` sessions each with one request the server holds until `release`; the heap bytes this
  // thread holds per waiting request, above the sessions themselves.
  long long bytes_per_waiting_request(ScriptedServer& server, bool long_wait, int n,
                                      std::vector<std::unique_ptr<HttpSession>>& sessions, int& answered) {
    for (int i = 0; i < n; ++i) sessions.push_back(std::make_unique<HttpSession>(ctx));
    counted_heap::counting = true;
    counted_heap::live_bytes = 0;
    const std::size_t before = server.requests().size();
    for (auto& session : sessions) {
      HttpRequest req;
      req.url = server.url("/poll");
      req.long_wait = long_wait;
      session->request(std::move(req), [&answered](HttpResponse&& r) {
        EXPECT_EQ(r.error, "");
        EXPECT_EQ(r.status, 200);
        EXPECT_EQ(r.body, std::string(3000, 'm'));
        ++answered;
      });
    }
    // Written and waiting: the server has them all.
    EXPECT_TRUE(run_until([&] { return server.requests().size() == before + static_cast<std::size_t>(n); }));
    const long long held = counted_heap::live_bytes;
    counted_heap::counting = false;
    return held / n;
  }
};

TEST_F(HttpLongWait, AWaitingRequestHoldsNoBufferNorParserAndItsAnswerArrivesWhole) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  ScriptedServer server([released](ServerConnection& conn) {
    while (conn.read_request()) {
      released.wait();
      conn.send(http_response(200, std::string(3000, 'm')));  // more than one 2 KiB read
    }
  });
  constexpr int kRequests = 50;
  // Warm the worker's pools first (parsers, texts, receive buffers) with ordinary requests,
  // so that what is measured is what a waiting request holds, not the pools' growth.
  std::vector<std::unique_ptr<HttpSession>> plain_sessions, long_sessions;
  int plain_answered = 0, long_answered = 0;
  const long long plain = bytes_per_waiting_request(server, false, kRequests, plain_sessions, plain_answered);
  const long long waiting = bytes_per_waiting_request(server, true, kRequests, long_sessions, long_answered);
  std::cout << "[ memory   ] heap per request held by the server: " << plain << " bytes, with long_wait " << waiting
            << std::endl;
  // The 2 KiB receive buffer alone is gone; the parser and head too.
  EXPECT_LT(waiting + 2048, plain);
  release.set_value();
  EXPECT_TRUE(run_until([&] { return plain_answered == kRequests && long_answered == kRequests; }));
}

TEST_F(HttpLongWait, AReusedConnectionTheServerClosedIsRetriedWithItsHeadWrittenAgain) {
  // The first connection answers once, then closes as the next request arrives: the long wait
  // went on it and is sent again on a new connection (the head was given back once written).
  ScriptedServer server([](ServerConnection& conn) {
    if (conn.number() == 1) {
      if (conn.read_request()) conn.send(http_response(200, "first"));
      conn.read_request();
      conn.close();
      return;
    }
    while (auto req = conn.read_request()) conn.send(http_response(200, req->target));
  });
  HttpSession session(ctx);
  EXPECT_EQ(get(session, server.url("/a")).body, "first");
  HttpRequest req;
  req.url = server.url("/held");
  req.long_wait = true;
  std::optional<HttpResponse> res;
  session.request(std::move(req), [&res](HttpResponse&& r) { res = std::move(r); });
  ASSERT_TRUE(run_until([&] { return res.has_value(); }));
  EXPECT_EQ(res->error, "");
  EXPECT_EQ(res->body, "/held");
  EXPECT_EQ(server.accepted(), 2);
}

}  // namespace
}  // namespace stampede::testing
