// What a keep-alive request costs the heap once the worker is warm (docs/design/031): the
// request head, the response's headers, body and URL, the parser, the batched send's
// callbacks and the request's URL all come from the worker's pools; only the exchange
// itself is allocated. Before the pools, a request like this one made 12 allocations.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "clients/counted_heap.hpp"
#include "clients/http_fixture.hpp"
#include "clients/scripted_server.hpp"

namespace stampede::testing {
namespace {

using clients::HttpRequest;
using clients::HttpResponse;
using clients::HttpSession;

class HttpAllocations : public HttpFixture {};

TEST_F(HttpAllocations, AWarmKeepAliveGetAllocatesOnlyItsExchange) {
  // Header values, body and URL all longer than a string's inline buffer (15 bytes).
  constexpr std::string_view kBody = "{\"posts\": [1, 2, 3], \"next\": \"/page/2\"}";
  ScriptedServer server([kBody](ServerConnection& conn) {
    while (conn.read_request()) {
      conn.send(http_response(200, kBody,
                              "date: Fri, 04 Dec 2026 21:04:32 GMT\r\ncontent-type: application/json; charset=utf-8\r\n"));
    }
  });
  HttpSession session(ctx);
  const std::string url = server.url("/api/posts?page=1");
  struct Seen {
    int status = 0;
    std::size_t body = 0;
    int answered = 0;
  } seen;
  // As the Lua module does: the URL's string from the worker's pool, a callback that reads
  // the response and moves nothing out of it (one pointer of captures: std::function keeps
  // it inline).
  const auto request = [&] {
    HttpRequest req;
    req.url = ctx.take_text();
    req.url.assign(url);
    const int before = seen.answered;
    session.request(std::move(req), [s = &seen](HttpResponse&& r) {
      s->status = r.status;
      s->body = r.body.size();
      ++s->answered;
    });
    ASSERT_TRUE(run_until([&] { return seen.answered > before; }));
  };
  for (int i = 0; i < 5; ++i) request();  // the connection, the pools, the metric's buckets

  // Counted on this thread only: the scripted server's allocations are not the client's.
  constexpr long kRequests = 50;
  counted_heap::allocations = 0;
  counted_heap::counting = true;
  for (long i = 0; i < kRequests; ++i) request();
  counted_heap::counting = false;
  const long long made = counted_heap::allocations;

  EXPECT_EQ(seen.status, 200);
  EXPECT_EQ(seen.body, kBody.size());
  EXPECT_EQ(server.accepted(), 1);
  std::cout << "[ heap     ] " << static_cast<double>(made) / kRequests << " allocations per warm request\n";
  // One per request (the exchange), and a little room for a histogram bucket or two.
  EXPECT_LE(made, kRequests + 10);
}

}  // namespace
}  // namespace stampede::testing
