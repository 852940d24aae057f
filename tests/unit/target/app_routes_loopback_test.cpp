// The JSON API and the client test helpers, over loopback.
#include <gtest/gtest.h>
#include <zlib.h>

#include <boost/json.hpp>
#include <chrono>

#include "target/loopback_client.hpp"
#include "target/target_server.hpp"

namespace stampede::target {
namespace {

using testing::LoopbackClient;
namespace json = boost::json;

class AppRoutes : public ::testing::Test {
 protected:
  void SetUp() override {
    TargetOptions options;
    options.listen.port = 0;
    options.delay = FixedDelay{0};
    server_ = std::make_unique<TargetServer>(options);
    server_->start();
    client_ = std::make_unique<LoopbackClient>(server_->port());
  }

  testing::ClientResponse post(std::string_view path, std::string_view body) {
    client_->send("POST " + std::string(path) + " HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: " +
                  std::to_string(body.size()) + "\r\n\r\n" + std::string(body));
    return client_->read_response();
  }

  std::unique_ptr<TargetServer> server_;
  std::unique_ptr<LoopbackClient> client_;
};

std::string gunzip(const std::string& compressed) {
  z_stream stream{};
  EXPECT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);
  std::string out(4096, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  inflateEnd(&stream);
  return out;
}

TEST_F(AppRoutes, ListsPosts) {
  const auto r = client_->get("/api/posts");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "application/json");
  const auto posts = json::parse(r.body).as_array();
  ASSERT_EQ(posts.size(), 3u);
  EXPECT_EQ(posts[0].at("id").as_int64(), 1);
  EXPECT_TRUE(posts[2].at("title").is_string());
}

TEST_F(AppRoutes, ShowsOnePostOr404) {
  const auto found = client_->get("/api/posts/3");
  EXPECT_EQ(found.status, 200);
  EXPECT_EQ(json::parse(found.body).at("id").as_int64(), 3);
  for (const auto* missing : {"/api/posts/0", "/api/posts/4", "/api/posts/abc", "/api/posts/1x"}) {
    const auto r = client_->get(missing);
    EXPECT_EQ(r.status, 404) << missing;
    EXPECT_EQ(json::parse(r.body).at("error").as_string(), "post not found");
  }
}

TEST_F(AppRoutes, CreatesAPostByEchoingItWithAnId) {
  const auto created = post("/api/posts", R"({"title":"new","tags":["a","b"],"id":"ignored"})");
  EXPECT_EQ(created.status, 201);
  const auto body = json::parse(created.body).as_object();
  EXPECT_EQ(body.at("title").as_string(), "new");
  EXPECT_EQ(body.at("tags").as_array().size(), 2u);
  const auto id = body.at("id").as_int64();
  EXPECT_EQ(id, 4);
  EXPECT_EQ(created.header("location"), "/api/posts/4");
  EXPECT_EQ(json::parse(post("/api/posts", "{}").body).at("id").as_int64(), 5);
}

TEST_F(AppRoutes, RejectsInvalidJsonWith400) {
  for (const auto* body : {"{", "not json", "[1,2]", ""}) {
    const auto r = post("/api/posts", body);
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_TRUE(json::parse(r.body).at("error").is_string());
  }
}

TEST_F(AppRoutes, WrongMethodIs405UnknownPathIs404AndBothAreCounted) {
  client_->send("DELETE /api/posts HTTP/1.1\r\n\r\n");
  EXPECT_EQ(client_->read_response().status, 405);
  EXPECT_EQ(client_->get("/does/not/exist").status, 404);
  EXPECT_EQ(server_->truth().count, 2u);
}

TEST_F(AppRoutes, SetsAndEchoesCookies) {
  const auto set = client_->get("/api/cookie");
  EXPECT_EQ(set.status, 200);
  EXPECT_EQ(set.header("set-cookie"), "stampede_session=s3cr3t; Path=/; HttpOnly");
  EXPECT_EQ(client_->get("/api/cookie?name=flavour&value=oat").header("set-cookie"), "flavour=oat; Path=/; HttpOnly");
  EXPECT_EQ(client_->get("/api/cookie?name=a%3Bb").status, 400);

  const auto who = client_->get("/api/whoami", "Cookie: stampede_session=s3cr3t; flavour=oat\r\n");
  EXPECT_EQ(json::parse(who.body).at("cookie").as_string(), "stampede_session=s3cr3t; flavour=oat");
  EXPECT_EQ(json::parse(client_->get("/api/whoami").body).at("cookie").as_string(), "");
}

TEST_F(AppRoutes, RedirectsNTimesThenToTheTarget) {
  std::string location = "/redirect?to=%2Fapi%2Fposts%3Fpage%3D2&n=3";
  int hops = 0;
  while (location.rfind("/redirect", 0) == 0) {
    const auto r = client_->get(location);
    ASSERT_EQ(r.status, 302) << location;
    location = r.header("location");
    ++hops;
  }
  EXPECT_EQ(hops, 3);
  EXPECT_EQ(location, "/api/posts?page=2");
  EXPECT_EQ(client_->get("/redirect?to=/api/posts").header("location"), "/api/posts");
  EXPECT_EQ(client_->get("/redirect").status, 400);
  EXPECT_EQ(client_->get("/redirect?to=/x&n=0").status, 400);
}

TEST_F(AppRoutes, GzipOnlyWhenAccepted) {
  const auto zipped = client_->get("/gzip", "Accept-Encoding: deflate, gzip\r\n");
  EXPECT_EQ(zipped.header("content-encoding"), "gzip");
  EXPECT_EQ(zipped.header("vary"), "Accept-Encoding");
  ASSERT_GE(zipped.body.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(zipped.body[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(zipped.body[1]), 0x8b);
  const auto plain = client_->get("/gzip");
  EXPECT_FALSE(plain.has_header("content-encoding"));
  EXPECT_EQ(gunzip(zipped.body), plain.body);
}

TEST_F(AppRoutes, ChunkedResponse) {
  const auto r = client_->get("/chunked");
  EXPECT_EQ(r.header("transfer-encoding"), "chunked");
  EXPECT_FALSE(r.has_header("content-length"));
  EXPECT_EQ(r.body, "This body was sent with Transfer-Encoding: chunked, sixteen bytes per chunk.\n");
}

TEST_F(AppRoutes, AnswersTheAskedStatus) {
  EXPECT_EQ(client_->get("/status/418").status, 418);
  EXPECT_EQ(client_->get("/status/503").status, 503);
  const auto no_content = client_->get("/status/204");
  EXPECT_EQ(no_content.status, 204);
  EXPECT_EQ(client_->get("/").status, 200);  // nothing was left over from the 204
  EXPECT_EQ(client_->get("/status/101").status, 400);
  EXPECT_EQ(client_->get("/status/abc").status, 400);
}

TEST_F(AppRoutes, SlowOverridesTheDelay) {
  const auto sent = std::chrono::steady_clock::now();
  const auto r = client_->get("/slow?ms=40");
  EXPECT_GE(std::chrono::steady_clock::now() - sent, std::chrono::milliseconds(40));
  EXPECT_EQ(json::parse(r.body).at("slept_ms").to_number<double>(), 40);
  EXPECT_GE(server_->truth().max, 40 * kMilli);
  EXPECT_EQ(client_->get("/slow?ms=-1").status, 400);
  EXPECT_EQ(client_->get("/slow").status, 400);
}

}  // namespace
}  // namespace stampede::target
