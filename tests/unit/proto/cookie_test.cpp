#include "proto/cookie.hpp"

#include <gtest/gtest.h>

namespace stampede::proto {
namespace {

// 2024-01-01T00:00:00Z
constexpr std::int64_t kNow = 1'704'067'200;

TEST(ParseSetCookie, NameValueAndFlags) {
  const auto c = parse_set_cookie(" session = abc123 ; Path=/app; Secure; HttpOnly; SameSite=Lax", kNow);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->name, "session");
  EXPECT_EQ(c->value, "abc123");
  EXPECT_EQ(c->path, "/app");
  EXPECT_TRUE(c->secure);
  EXPECT_TRUE(c->http_only);
  EXPECT_EQ(c->same_site, "lax");
  EXPECT_TRUE(c->host_only);
  EXPECT_EQ(c->domain, "");
  EXPECT_FALSE(c->expires_unix);
}

TEST(ParseSetCookie, AttributeNamesIgnoreCaseAndValuesMayBeEmptyOrQuoted) {
  const auto c = parse_set_cookie("a=\"quoted value\"; secure; HTTPONLY; samesite=STRICT", kNow);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->value, "\"quoted value\"");
  EXPECT_TRUE(c->secure);
  EXPECT_TRUE(c->http_only);
  EXPECT_EQ(c->same_site, "strict");
  const auto empty = parse_set_cookie("a=; Path=/", kNow);
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->value, "");
}

TEST(ParseSetCookie, NoNameValuePairIsIgnored) {
  EXPECT_FALSE(parse_set_cookie("", kNow));
  EXPECT_FALSE(parse_set_cookie("novalue", kNow));
  EXPECT_FALSE(parse_set_cookie("novalue; a=b", kNow));
  EXPECT_FALSE(parse_set_cookie("=value", kNow));
  EXPECT_FALSE(parse_set_cookie("a=b\r\nX-Injected: 1", kNow));
  EXPECT_FALSE(parse_set_cookie("a=" + std::string(5000, 'x'), kNow));
}

TEST(ParseSetCookie, ExpiresInTheThreeDateForms) {
  constexpr std::int64_t k1994 = 784'111'777;  // Sun, 06 Nov 1994 08:49:37 GMT
  for (const char* date : {"Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
                           "Sun Nov  6 08:49:37 1994", "sun, 6 nov 1994 8:49:37 gmt"}) {
    const auto c = parse_set_cookie(std::string("a=b; Expires=") + date, kNow);
    ASSERT_TRUE(c) << date;
    EXPECT_EQ(c->expires_unix, k1994) << date;
  }
  const auto future = parse_set_cookie("a=b; expires=Wed, 09 Jun 2038 10:18:14 GMT", kNow);
  EXPECT_EQ(future->expires_unix, 2'159'691'494);
  const auto leap = parse_set_cookie("a=b; expires=Thu, 29 Feb 2024 23:59:59 GMT", kNow);
  EXPECT_EQ(leap->expires_unix, 1'709'251'199);
  const auto two_digit_2000s = parse_set_cookie("a=b; expires=Tue, 01-Jan-30 00:00:00 GMT", kNow);
  EXPECT_EQ(two_digit_2000s->expires_unix, 1'893'456'000);
}

TEST(ParseSetCookie, UnreadableExpiresIsIgnored) {
  for (const char* date : {"tomorrow", "Sun, 31 Feb 2024 00:00:00 GMT", "Sun, 06 Nov 1994 25:00:00 GMT",
                           "Sun, 06 Nov 1500 08:49:37 GMT", "06 Nov 1994", "Sun, 06 Xyz 1994 08:49:37 GMT", ""}) {
    const auto c = parse_set_cookie(std::string("a=b; Expires=") + date, kNow);
    ASSERT_TRUE(c) << date;
    EXPECT_FALSE(c->expires_unix) << date;
  }
}

TEST(ParseSetCookie, MaxAgeWinsOverExpiresInEitherOrder) {
  const auto after = parse_set_cookie("a=b; Max-Age=60; Expires=Sun, 06 Nov 1994 08:49:37 GMT", kNow);
  EXPECT_EQ(after->expires_unix, kNow + 60);
  const auto before = parse_set_cookie("a=b; Expires=Sun, 06 Nov 1994 08:49:37 GMT; Max-Age=60", kNow);
  EXPECT_EQ(before->expires_unix, kNow + 60);
  const auto zero = parse_set_cookie("a=b; Max-Age=0", kNow);
  EXPECT_LE(*zero->expires_unix, kNow);
  const auto negative = parse_set_cookie("a=b; Max-Age=-5", kNow);
  EXPECT_LE(*negative->expires_unix, kNow);
  const auto bad = parse_set_cookie("a=b; Max-Age=5s", kNow);
  EXPECT_FALSE(bad->expires_unix);
  const auto huge = parse_set_cookie("a=b; Max-Age=99999999999999999999999", kNow);
  EXPECT_GT(*huge->expires_unix, kNow);
}

TEST(ParseSetCookie, DomainIsLowercasedWithoutItsLeadingDot) {
  const auto c = parse_set_cookie("a=b; Domain=.Example.COM", kNow);
  EXPECT_EQ(c->domain, "example.com");
  EXPECT_FALSE(c->host_only);
  const auto empty = parse_set_cookie("a=b; Domain=", kNow);
  EXPECT_TRUE(empty->host_only);
}

TEST(ParseSetCookie, PathMustStartWithSlash) {
  EXPECT_EQ(parse_set_cookie("a=b; Path=relative", kNow)->path, "");
  EXPECT_EQ(parse_set_cookie("a=b; Path=/x; Path=bad", kNow)->path, "");
  EXPECT_EQ(parse_set_cookie("a=b; Path=bad; Path=/x", kNow)->path, "/x");
}

TEST(CookieJar, HostOnlyCookieGoesBackToThatHostOnly) {
  CookieJar jar;
  jar.store("sid=1", "App.Example.com", "/", kNow);
  ASSERT_EQ(jar.cookies().size(), 1u);
  EXPECT_EQ(jar.cookies()[0].domain, "app.example.com");
  EXPECT_EQ(jar.header_for("app.example.com", "/", false, kNow), "sid=1");
  EXPECT_EQ(jar.header_for("APP.example.com", "/", false, kNow), "sid=1");
  EXPECT_EQ(jar.header_for("sub.app.example.com", "/", false, kNow), "");
  EXPECT_EQ(jar.header_for("example.com", "/", false, kNow), "");
}

TEST(CookieJar, DomainCookieGoesToSubdomains) {
  CookieJar jar;
  jar.store("sid=1; Domain=.example.com", "www.example.com", "/", kNow);
  EXPECT_EQ(jar.header_for("example.com", "/", false, kNow), "sid=1");
  EXPECT_EQ(jar.header_for("a.b.example.com", "/", false, kNow), "sid=1");
  EXPECT_EQ(jar.header_for("badexample.com", "/", false, kNow), "");
  EXPECT_EQ(jar.header_for("example.org", "/", false, kNow), "");
}

TEST(CookieJar, RejectsDomainsTheHostDoesNotMatch) {
  CookieJar jar;
  jar.store("a=1; Domain=other.com", "www.example.com", "/", kNow);
  jar.store("b=1; Domain=www.example.com", "example.com", "/", kNow);
  jar.store("c=1; Domain=com", "example.com", "/", kNow);
  jar.store("d=1; Domain=ample.com", "example.com", "/", kNow);
  jar.store("e=1; Domain=0.0.1", "127.0.0.1", "/", kNow);
  EXPECT_TRUE(jar.cookies().empty());
}

TEST(CookieJar, SingleLabelDomainOnlyFromThatHost) {
  CookieJar jar;
  jar.store("a=1; Domain=localhost", "localhost", "/", kNow);
  EXPECT_EQ(jar.header_for("localhost", "/", false, kNow), "a=1");
  jar.store("b=1; Domain=127.0.0.1", "127.0.0.1", "/", kNow);
  EXPECT_EQ(jar.header_for("127.0.0.1", "/", false, kNow), "b=1");
}

TEST(CookieJar, DefaultPathIsTheRequestDirectory) {
  CookieJar jar;
  jar.store("a=1", "h", "/account/settings?tab=1", kNow);
  jar.store("b=1", "h", "/top", kNow);
  jar.store("c=1", "h", "", kNow);
  jar.store("d=1; Path=bad", "h", "/x/y/z", kNow);
  ASSERT_EQ(jar.cookies().size(), 4u);
  EXPECT_EQ(jar.cookies()[0].path, "/account");
  EXPECT_EQ(jar.cookies()[1].path, "/");
  EXPECT_EQ(jar.cookies()[2].path, "/");
  EXPECT_EQ(jar.cookies()[3].path, "/x/y");
}

TEST(CookieJar, PathMatching) {
  CookieJar jar;
  jar.store("a=1; Path=/docs", "h", "/", kNow);
  EXPECT_EQ(jar.header_for("h", "/docs", false, kNow), "a=1");
  EXPECT_EQ(jar.header_for("h", "/docs/", false, kNow), "a=1");
  EXPECT_EQ(jar.header_for("h", "/docs/web?x=1", false, kNow), "a=1");
  EXPECT_EQ(jar.header_for("h", "/docsweb", false, kNow), "");
  EXPECT_EQ(jar.header_for("h", "/", false, kNow), "");
  EXPECT_EQ(jar.header_for("h", "", false, kNow), "");
  jar.store("b=1; Path=/docs/", "h", "/", kNow);
  EXPECT_EQ(jar.header_for("h", "/docs/x", false, kNow), "b=1; a=1");
}

TEST(CookieJar, LongerPathsFirstThenOlderFirst) {
  CookieJar jar;
  jar.store("root1=1; Path=/", "h", "/", kNow);
  jar.store("deep=1; Path=/a/b", "h", "/", kNow);
  jar.store("mid=1; Path=/a", "h", "/", kNow);
  jar.store("root2=1; Path=/", "h", "/", kNow);
  EXPECT_EQ(jar.header_for("h", "/a/b/c", false, kNow), "deep=1; mid=1; root1=1; root2=1");
}

TEST(CookieJar, ReplacesByNameDomainAndPathKeepingItsPlace) {
  CookieJar jar;
  jar.store("a=1", "h", "/", kNow);
  jar.store("b=1", "h", "/", kNow);
  jar.store("a=2", "h", "/", kNow);
  jar.store("a=3; Path=/other", "h", "/", kNow);
  ASSERT_EQ(jar.cookies().size(), 3u);
  EXPECT_EQ(jar.header_for("h", "/", false, kNow), "a=2; b=1");
}

TEST(CookieJar, PastExpiryDeletes) {
  CookieJar jar;
  jar.store("a=1", "h", "/", kNow);
  jar.store("b=1", "h", "/", kNow);
  jar.store("a=gone; Max-Age=0", "h", "/", kNow);
  jar.store("b=gone; Expires=Thu, 01 Jan 1970 00:00:00 GMT", "h", "/", kNow);
  jar.store("c=never; Max-Age=-1", "h", "/", kNow);
  EXPECT_TRUE(jar.cookies().empty());
}

TEST(CookieJar, ExpiredCookiesAreNotSent) {
  CookieJar jar;
  jar.store("short=1; Max-Age=10", "h", "/", kNow);
  jar.store("long=1; Max-Age=1000", "h", "/", kNow);
  EXPECT_EQ(jar.header_for("h", "/", false, kNow + 5), "short=1; long=1");
  EXPECT_EQ(jar.header_for("h", "/", false, kNow + 10), "long=1");
  jar.store("other=1", "h", "/", kNow + 20);  // storing also drops what has expired
  EXPECT_EQ(jar.cookies().size(), 2u);
}

TEST(CookieJar, SecureCookiesOnlyOverSecureRequests) {
  CookieJar jar;
  jar.store("s=1; Secure", "h", "/", kNow);
  jar.store("p=1", "h", "/", kNow);
  EXPECT_EQ(jar.header_for("h", "/", false, kNow), "p=1");
  EXPECT_EQ(jar.header_for("h", "/", true, kNow), "s=1; p=1");
}

TEST(CookieJar, IgnoresUnparsableHeadersAndClears) {
  CookieJar jar;
  jar.store("garbage", "h", "/", kNow);
  EXPECT_TRUE(jar.cookies().empty());
  jar.store("a=1", "h", "/", kNow);
  jar.clear();
  EXPECT_EQ(jar.header_for("h", "/", true, kNow), "");
}

}  // namespace
}  // namespace stampede::proto
