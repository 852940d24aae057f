// The one URL resolver (Boost.URL's RFC 3986 resolve), with the leniency of a browser's href.
#include "proto/url_resolve.hpp"

#include <gtest/gtest.h>

namespace stampede::proto {
namespace {

TEST(ResolveUrl, ResolvesLikeTheBrowser) {
  const std::string base = "http://127.0.0.1:4000/posts/new?x=1#top";
  EXPECT_EQ(resolve_url(base, "/assets/app.js"), "http://127.0.0.1:4000/assets/app.js");
  EXPECT_EQ(resolve_url(base, "edit"), "http://127.0.0.1:4000/posts/edit");
  EXPECT_EQ(resolve_url(base, "../a/./b"), "http://127.0.0.1:4000/a/b");
  EXPECT_EQ(resolve_url(base, "?page=2"), "http://127.0.0.1:4000/posts/new?page=2");
  EXPECT_EQ(resolve_url(base, "#x"), "http://127.0.0.1:4000/posts/new?x=1#x");
  EXPECT_EQ(resolve_url(base, ""), "http://127.0.0.1:4000/posts/new?x=1");
  EXPECT_EQ(resolve_url(base, "//cdn.example/x.js"), "http://cdn.example/x.js");
  EXPECT_EQ(resolve_url(base, "https://other/"), "https://other/");
  EXPECT_EQ(resolve_url("http://h", "a"), "http://h/a");
  EXPECT_EQ(resolve_url(base, ".."), "http://127.0.0.1:4000/");
  EXPECT_EQ(resolve_url("https://h/a/b/", "../../../c"), "https://h/c");
}

// Boost.URL 1.81 keeps both; RFC 3986 §5.2 (and every browser) drops them.
TEST(ResolveUrl, NoBaseFragmentAndNoSegmentsAboveTheRoot) {
  EXPECT_EQ(resolve_url("http://h/p?x=1#top", "?y=2"), "http://h/p?y=2");
  EXPECT_EQ(resolve_url("http://h/p?x=1#top", "/q"), "http://h/q");
  EXPECT_EQ(resolve_url("http://h/p#top", "#next"), "http://h/p#next");
  EXPECT_EQ(resolve_url("http://h/a/b/c", "../../../.."), "http://h/");
  EXPECT_EQ(resolve_url("http://h/a/b/c/", "../../../../"), "http://h/");
  EXPECT_EQ(resolve_url("http://h/a/b/c/", "../../../../d/e?f"), "http://h/d/e?f");
  EXPECT_EQ(resolve_url("http://h/a", "/../x"), "http://h/x");
  EXPECT_EQ(resolve_url("http://h/a", "/..x"), "http://h/..x");  // a name, not a dot segment
}

TEST(ResolveUrl, EncodesWhatAUrlCannotHoldAsABrowserDoes) {
  const std::string base = "http://h/dir/page";
  EXPECT_EQ(resolve_url(base, "/posts?q=a b"), "http://h/posts?q=a%20b");
  EXPECT_EQ(resolve_url(base, "caf\xC3\xA9"), "http://h/dir/caf%C3%A9");
  EXPECT_EQ(resolve_url(base, "/a%20b"), "http://h/a%20b");  // escapes are kept
  EXPECT_EQ(resolve_url(base, "/100%"), "http://h/100%25");  // a lone "%" is not one
  EXPECT_EQ(resolve_url(base, "/a\"b<c>"), "http://h/a%22b%3Cc%3E");
}

TEST(ResolveUrl, WhatCannotBeResolvedStaysAsGiven) {
  EXPECT_FALSE(resolve_reference("/relative/base", "x"));
  EXPECT_EQ(resolve_url("/relative/base", "x"), "x");
  EXPECT_EQ(resolve_url("not a url", "/x"), "/x");
  const auto resolved = resolve_reference("http://h/a", "b?c=1");
  ASSERT_TRUE(resolved);
  EXPECT_EQ(resolved->encoded_path(), "/b");
  EXPECT_EQ(resolved->encoded_query(), "c=1");
}

}  // namespace
}  // namespace stampede::proto
