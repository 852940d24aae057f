// Redirects: the cookie jar on every hop, method rewriting, cross-origin hops, limits.
#include <gtest/gtest.h>

#include "clients/http_fixture.hpp"
#include "clients/scripted_server.hpp"

namespace stampede::testing {
namespace {

using clients::HttpRequest;
using clients::HttpSession;

class HttpRedirects : public HttpFixture {};

TEST_F(HttpRedirects, CookiesAreStoredAndSentOnEveryHopAcrossOrigins) {
  // B is reached as "localhost", so A's cookies (host-only for 127.0.0.1) must not go there.
  ScriptedServer b([](ServerConnection& conn) {
    while (auto req = conn.read_request()) {
      conn.send(http_response(200, "cookie=" + req->header("cookie"), "set-cookie: b=3; Path=/\r\n"));
    }
  });
  const std::string final_url = b.url("/end", "localhost");
  ScriptedServer a([&final_url](ServerConnection& conn) {
    while (auto req = conn.read_request()) {
      if (req->target == "/start") {
        conn.send(http_response(302, "", "location: /next\r\nset-cookie: a=1; Path=/\r\n"));
      } else {
        conn.send(http_response(307, "", "location: " + final_url + "\r\nset-cookie: a2=2; Path=/\r\n"));
      }
    }
  });

  HttpSession session(ctx);
  HttpRequest req;
  req.method = "POST";
  req.url = a.url("/start");
  req.body = "form=1";
  req.headers = {{"content-type", "application/x-www-form-urlencoded"}, {"authorization", "Bearer secret"}};
  auto res = fetch(session, req);
  EXPECT_EQ(res.error, "");
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.url, final_url);
  EXPECT_EQ(res.body, "cookie=");

  const auto hops = a.requests();
  ASSERT_EQ(hops.size(), 2u);
  EXPECT_EQ(hops[0].method, "POST");
  EXPECT_EQ(hops[0].body, "form=1");
  EXPECT_EQ(hops[1].method, "GET");  // 302 after POST: GET without body, like browsers
  EXPECT_EQ(hops[1].target, "/next");
  EXPECT_EQ(hops[1].body, "");
  EXPECT_FALSE(hops[1].has_header("content-type"));
  EXPECT_EQ(hops[1].header("cookie"), "a=1");
  EXPECT_EQ(hops[1].header("authorization"), "Bearer secret");  // same origin
  const auto last = b.requests();
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].method, "GET");  // 307 keeps the method (GET by then)
  EXPECT_FALSE(last[0].has_header("authorization"));  // cross-origin: credentials stay behind
  EXPECT_EQ(last[0].header("host"), "localhost:" + std::to_string(b.port()));

  std::vector<std::string> names;
  for (const auto& c : session.cookies().cookies()) names.push_back(c.name + "@" + c.domain);
  EXPECT_EQ(names.size(), 3u);

  // The jar keeps working on the next request.
  auto again = get(session, b.url("/end", "localhost"));
  EXPECT_EQ(again.body, "cookie=b=3");

  auto snapshot = take();
  EXPECT_EQ(timing_count(snapshot, "http.request"), 4u);  // every hop's response is timed
  EXPECT_EQ(snapshot.requests.sent, 4u);
  EXPECT_EQ(snapshot.requests.completed, 4u);
}

TEST_F(HttpRedirects, SeeOtherBecomesGetAndTemporaryKeepsPostWithBody) {
  ScriptedServer server([](ServerConnection& conn) {
    while (auto req = conn.read_request()) {
      if (req->target == "/303") {
        conn.send(http_response(303, "", "location: /done\r\n"));
      } else if (req->target == "/307") {
        conn.send(http_response(307, "", "location: /done\r\n"));
      } else {
        conn.send(http_response(200, req->method + ":" + req->body));
      }
    }
  });
  HttpSession session(ctx);
  HttpRequest post;
  post.method = "POST";
  post.body = "payload";
  post.url = server.url("/303");
  EXPECT_EQ(fetch(session, post).body, "GET:");
  post.url = server.url("/307");
  EXPECT_EQ(fetch(session, post).body, "POST:payload");
  EXPECT_EQ(server.accepted(), 1);  // same-origin hops reuse the keep-alive connection
}

TEST_F(HttpRedirects, LoopStopsWithReasonRedirects) {
  ScriptedServer server([](ServerConnection& conn) {
    while (conn.read_request()) conn.send(http_response(302, "", "location: /loop\r\n"));
  });
  HttpSession session(ctx);
  HttpRequest req;
  req.url = server.url("/loop");
  req.max_redirects = 3;
  auto res = fetch(session, req);
  EXPECT_EQ(res.error_reason, "redirects");
  EXPECT_NE(res.error.find("/loop"), std::string::npos) << res.error;
  EXPECT_EQ(res.status, 302);  // the last response is kept
  EXPECT_EQ(server.requests().size(), 4u);

  auto snapshot = take();
  EXPECT_EQ(timing_count(snapshot, "http.request"), 4u);
  EXPECT_EQ(errors(snapshot, "redirects"), 1u);
  EXPECT_EQ(snapshot.requests.sent, 4u);
  EXPECT_EQ(snapshot.requests.completed, 3u);
  EXPECT_EQ(snapshot.requests.failed, 1u);
}

TEST_F(HttpRedirects, DefaultLimitCatchesAnEndlessLoop) {
  ScriptedServer server([](ServerConnection& conn) {
    int n = 0;
    while (conn.read_request()) conn.send(http_response(301, "", "location: /r" + std::to_string(++n) + "\r\n"));
  });
  HttpSession session(ctx);
  auto res = get(session, server.url("/r0"));
  EXPECT_EQ(res.error_reason, "redirects");
  EXPECT_EQ(server.requests().size(), 11u);  // the request and 10 redirects
}

TEST_F(HttpRedirects, ZeroMaxRedirectsReturnsTheRedirectItself) {
  ScriptedServer server([](ServerConnection& conn) {
    while (conn.read_request()) conn.send(http_response(302, "moved", "location: /elsewhere\r\n"));
  });
  HttpSession session(ctx);
  HttpRequest req;
  req.url = server.url("/here");
  req.max_redirects = 0;
  auto res = fetch(session, req);
  EXPECT_EQ(res.error, "");
  EXPECT_EQ(res.status, 302);
  EXPECT_EQ(res.body, "moved");
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(HttpRedirects, UnsupportedLocationIsAUrlError) {
  ScriptedServer server([](ServerConnection& conn) {
    while (conn.read_request()) conn.send(http_response(302, "", "location: ftp://files.example/x\r\n"));
  });
  HttpSession session(ctx);
  auto res = get(session, server.url("/"));
  EXPECT_EQ(res.error_reason, "url");
  EXPECT_NE(res.error.find("ftp://files.example/x"), std::string::npos) << res.error;
}

TEST_F(HttpRedirects, NamedRequestRecordsEveryHopUnderItsName) {
  ScriptedServer server([](ServerConnection& conn) {
    while (auto req = conn.read_request()) {
      conn.send(req->target == "/a" ? http_response(302, "", "location: /b\r\n") : http_response(200, "ok"));
    }
  });
  HttpSession session(ctx);
  HttpRequest req;
  req.url = server.url("/a");
  req.name = "login";
  EXPECT_EQ(fetch(session, req).body, "ok");
  EXPECT_EQ(fetch(session, req).body, "ok");
  auto snapshot = take();
  EXPECT_EQ(timing_count(snapshot, "http.request.login"), 4u);
  EXPECT_EQ(timing_count(snapshot, "http.request"), 4u);
}

}  // namespace
}  // namespace stampede::testing
