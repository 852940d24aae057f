// URL -> where the connection goes, for both clients: default ports per scheme, the Host
// header's form, IPv6, the request target, and the errors for what neither client takes.
#include "clients/url_target.hpp"

#include <gtest/gtest.h>

#include <string>

namespace stampede::clients {
namespace {

UrlTarget parse(std::string_view text, UrlSchemes schemes) {
  UrlTarget out;
  std::string why;
  EXPECT_TRUE(parse_url_target(text, schemes, out, why)) << text << ": " << why;
  return out;
}

std::string refusal(std::string_view text, UrlSchemes schemes) {
  UrlTarget out;
  std::string why;
  EXPECT_FALSE(parse_url_target(text, schemes, out, why)) << text;
  return why;
}

TEST(UrlTarget, EachSchemeHasItsDefaultPortAndTls) {
  struct Case {
    const char* url;
    UrlSchemes schemes;
    bool tls;
    std::uint16_t port;
    const char* origin;
  };
  for (const Case& c : {Case{"http://example.com/", UrlSchemes::http, false, 80, "http://example.com:80"},
                        Case{"https://example.com/", UrlSchemes::http, true, 443, "https://example.com:443"},
                        Case{"ws://example.com/", UrlSchemes::websocket, false, 80, "ws://example.com:80"},
                        Case{"wss://example.com/", UrlSchemes::websocket, true, 443, "wss://example.com:443"}}) {
    const UrlTarget t = parse(c.url, c.schemes);
    EXPECT_EQ(t.url, c.url);
    EXPECT_EQ(t.tls, c.tls) << c.url;
    EXPECT_EQ(t.port, c.port) << c.url;
    EXPECT_EQ(t.host, "example.com");
    EXPECT_EQ(t.host_header, "example.com") << c.url;  // the default port is left out
    EXPECT_EQ(t.origin, c.origin);
  }
}

TEST(UrlTarget, PortHostAndRequestTarget) {
  const UrlTarget t = parse("HTTPS://Example.COM:8443/a/b%20c?x=1&y=%2F#frag", UrlSchemes::http);
  EXPECT_TRUE(t.tls);
  EXPECT_EQ(t.host, "example.com");
  EXPECT_EQ(t.port, 8443);
  EXPECT_EQ(t.host_header, "example.com:8443");
  EXPECT_EQ(t.path, "/a/b%20c");
  EXPECT_EQ(t.request_target, "/a/b%20c?x=1&y=%2F");
  EXPECT_EQ(t.origin, "https://example.com:8443");

  const UrlTarget bare = parse("ws://127.0.0.1:9000", UrlSchemes::websocket);
  EXPECT_EQ(bare.host, "127.0.0.1");
  EXPECT_EQ(bare.host_header, "127.0.0.1:9000");
  EXPECT_EQ(bare.path, "/");
  EXPECT_EQ(bare.request_target, "/");

  const UrlTarget v6 = parse("wss://[::1]:4443/socket/websocket?vsn=2.0.0", UrlSchemes::websocket);
  EXPECT_EQ(v6.host, "::1");  // as DNS and SNI see it
  EXPECT_EQ(v6.host_header, "[::1]:4443");
  EXPECT_EQ(v6.request_target, "/socket/websocket?vsn=2.0.0");
  EXPECT_EQ(v6.origin, "wss://[::1]:4443");

  EXPECT_EQ(parse("http://[::1]/", UrlSchemes::http).host_header, "[::1]");
}

TEST(UrlTarget, EachClientTakesOnlyItsSchemes) {
  EXPECT_EQ(refusal("ws://example.com/", UrlSchemes::http),
            "an HTTP URL starts with http:// or https:// (ws is a WebSocket scheme): did you mean http://example.com/?");
  EXPECT_EQ(refusal("ftp://example.com/file", UrlSchemes::http), "an HTTP URL starts with http:// or https://, not ftp://");
  EXPECT_EQ(refusal("https://example.com/", UrlSchemes::websocket),
            "a WebSocket URL starts with ws:// or wss:// (https is an HTTP scheme): did you mean wss://example.com/?");
}

// The mistakes a scenario's author makes, each named with its fix (tests/integration's
// bad-input suite shows them in a run's output).
TEST(UrlTarget, MistakesAreNamedWithTheFix) {
  EXPECT_EQ(refusal("127.0.0.1:38981/big.bin", UrlSchemes::http),
            "missing scheme: did you mean http://127.0.0.1:38981/big.bin?");
  EXPECT_EQ(refusal("localhost:4000/x", UrlSchemes::http), "missing scheme: did you mean http://localhost:4000/x?");
  EXPECT_EQ(refusal("example.com", UrlSchemes::websocket), "missing scheme: did you mean ws://example.com?");
  EXPECT_EQ(refusal("/api/posts", UrlSchemes::http),
            "it is a path, not a whole URL: give the scheme and the host too, e.g. http://localhost:4000/api/posts");
  EXPECT_EQ(refusal("http:/localhost/x", UrlSchemes::http),
            "\"http:\" must be followed by \"//\": did you mean http://localhost/x?");
  EXPECT_EQ(refusal("ws:/relative", UrlSchemes::websocket),
            "\"ws:\" must be followed by \"//\": did you mean ws://relative?");
  EXPECT_EQ(refusal("htp://localhost/", UrlSchemes::http), "unknown scheme \"htp\": did you mean http://localhost/?");
  EXPECT_EQ(refusal("wws://localhost/", UrlSchemes::websocket), "unknown scheme \"wws\": did you mean ws://localhost/?");
  EXPECT_EQ(refusal("hhtp://localhost/", UrlSchemes::http), "unknown scheme \"hhtp\": did you mean http://localhost/?");
  EXPECT_EQ(refusal("", UrlSchemes::http), "the URL is empty");
  EXPECT_EQ(refusal(" http://localhost/", UrlSchemes::http), "it starts or ends with a space: trim it");
  EXPECT_EQ(refusal("http://exa mple.com:99999/", UrlSchemes::http),
            "it has a space at character 11, which a URL cannot carry as it is: percent-encode it (a space is %20)");
  EXPECT_EQ(refusal("http://h/caf\xc3\xa9", UrlSchemes::http),
            "it has '\xc3\xa9' at character 13, which a URL cannot carry as it is: percent-encode it (a space is %20)");
  EXPECT_EQ(refusal("http://h:http/", UrlSchemes::http), "its port \"http\" is not a number");
  EXPECT_EQ(refusal("http://[::1/", UrlSchemes::http), "its IPv6 address has no closing ']'");
  EXPECT_EQ(refusal("http://h/100%", UrlSchemes::http),
            "it has a '%' that two hex digits do not follow: write %25 for a percent sign");
}

TEST(UrlTarget, RefusalsSayWhatIsWrong) {
  EXPECT_EQ(refusal("http:///nohost", UrlSchemes::http), "it has no host");
  for (const char* url : {"http://h:99999/", "http://h:0/", "http://h:65536/"}) {
    EXPECT_EQ(refusal(url, UrlSchemes::http), "its port is not a valid port number") << url;
  }
  EXPECT_EQ(parse("http://h:65535/", UrlSchemes::http).port, 65535);
  EXPECT_EQ(parse("http://h:/", UrlSchemes::http).port, 80);  // an empty port is the default
}

TEST(UrlTargetCache, ParsesEachUrlOnceAndSharesTheResult) {
  UrlTargetCache cache(UrlSchemes::http);
  std::string why;
  const auto first = cache.find_or_parse("http://127.0.0.1:4000/api/posts", why);
  ASSERT_NE(first, nullptr) << why;
  EXPECT_EQ(first->request_target, "/api/posts");
  EXPECT_EQ(cache.find_or_parse("http://127.0.0.1:4000/api/posts", why), first);  // the same object
  const auto other = cache.find_or_parse("http://127.0.0.1:4000/api/posts?page=2", why);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(other->request_target, "/api/posts?page=2");
  EXPECT_EQ(cache.size(), 2u);
}

TEST(UrlTargetCache, KeepsNoFailureAndTakesOnlyItsSchemes) {
  UrlTargetCache cache(UrlSchemes::http);
  std::string why;
  EXPECT_EQ(cache.find_or_parse("ws://127.0.0.1:4000/socket", why), nullptr);
  EXPECT_NE(why.find("did you mean http://127.0.0.1:4000/socket?"), std::string::npos) << why;
  why.clear();
  EXPECT_EQ(cache.find_or_parse("not a url", why), nullptr);
  EXPECT_FALSE(why.empty());
  EXPECT_EQ(cache.size(), 0u);
}

TEST(UrlTargetCache, StartsOverWhenFullSoUniqueUrlsCannotGrowIt) {
  UrlTargetCache cache(UrlSchemes::http);
  std::string why;
  for (std::size_t i = 0; i < 3 * UrlTargetCache::kCapacity; ++i) {
    const auto t = cache.find_or_parse("http://127.0.0.1:4000/api/posts/" + std::to_string(i), why);
    ASSERT_NE(t, nullptr) << why;
    EXPECT_EQ(t->path, "/api/posts/" + std::to_string(i));
    ASSERT_LE(cache.size(), UrlTargetCache::kCapacity);
  }
}

}  // namespace
}  // namespace stampede::clients
