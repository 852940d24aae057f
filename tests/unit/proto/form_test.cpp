#include "proto/form.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <stdexcept>

namespace stampede::proto {
namespace {

TEST(UrlEncodeComponent, KeepsUnreservedAndEncodesTheRest) {
  EXPECT_EQ(url_encode_component("AZaz09-._~"), "AZaz09-._~");
  EXPECT_EQ(url_encode_component("a b&c=d/e?f#g"), "a%20b%26c%3Dd%2Fe%3Ff%23g");
  EXPECT_EQ(url_encode_component("+*%"), "%2B%2A%25");
  EXPECT_EQ(url_encode_component("\xC3\xA9t\xC3\xA9"), "%C3%A9t%C3%A9");
  EXPECT_EQ(url_encode_component(std::string("\0\xff", 2)), "%00%FF");
  EXPECT_EQ(url_encode_component(""), "");
}

TEST(FormEncodeComponent, EncodesAsBrowsersDo) {
  EXPECT_EQ(form_encode_component("a b"), "a+b");
  EXPECT_EQ(form_encode_component("AZaz09*-._"), "AZaz09*-._");
  EXPECT_EQ(form_encode_component("~"), "%7E");
  EXPECT_EQ(form_encode_component("1+1=2&x"), "1%2B1%3D2%26x");
  EXPECT_EQ(form_encode_component("caf\xC3\xA9"), "caf%C3%A9");
}

TEST(EncodeForm, JoinsFieldsInOrder) {
  EXPECT_EQ(encode_form({{"a", "1"}, {"b", "2"}}), "a=1&b=2");
  EXPECT_EQ(encode_form({{"user[name]", "Jo Doe"}, {"empty", ""}, {"a", "1"}}), "user%5Bname%5D=Jo+Doe&empty=&a=1");
  EXPECT_EQ(encode_form({}), "");
}

TEST(AppendQuery, AddsQuestionMarkOrAmpersand) {
  EXPECT_EQ(append_query("/search", {{"q", "a b"}}), "/search?q=a+b");
  EXPECT_EQ(append_query("http://h/p?x=1", {{"y", "2"}}), "http://h/p?x=1&y=2");
  EXPECT_EQ(append_query("/p?", {{"y", "2"}}), "/p?y=2");
  EXPECT_EQ(append_query("/p?x=1&", {{"y", "2"}}), "/p?x=1&y=2");
  EXPECT_EQ(append_query("/p", {{"a", "1"}, {"b", "2"}}), "/p?a=1&b=2");
}

TEST(AppendQuery, KeepsTheFragmentLast) {
  EXPECT_EQ(append_query("/page#top", {{"a", "1"}}), "/page?a=1#top");
  EXPECT_EQ(append_query("/page?x=1#frag?not=query", {{"a", "1"}}), "/page?x=1&a=1#frag?not=query");
}

TEST(AppendQuery, NoFieldsLeavesTheUrlAlone) {
  EXPECT_EQ(append_query("/p?x#f", {}), "/p?x#f");
  EXPECT_EQ(append_query("", {}), "");
  EXPECT_EQ(append_query("", {{"a", "1"}}), "?a=1");
}

TEST(DecodeForm, PlusPercentAndMissingValues) {
  using Fields = FormFields;
  EXPECT_EQ(decode_form("a=1&b=2"), (Fields{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(decode_form("q=a+b%20c&x%5B%5D=%e2%82%ac"), (Fields{{"q", "a b c"}, {"x[]", "\xE2\x82\xAC"}}));
  EXPECT_EQ(decode_form("flag&k="), (Fields{{"flag", ""}, {"k", ""}}));
  EXPECT_EQ(decode_form("&&a=1&&"), (Fields{{"a", "1"}}));
  EXPECT_EQ(decode_form("a=b=c"), (Fields{{"a", "b=c"}}));
  EXPECT_EQ(decode_form(""), Fields{});
}

TEST(DecodeForm, BadEscapesAreKeptLiterally) {
  using Fields = FormFields;
  EXPECT_EQ(decode_form("a=100%&b=%zz&c=%4&d=%"), (Fields{{"a", "100%"}, {"b", "%zz"}, {"c", "%4"}, {"d", "%"}}));
}

TEST(DecodeForm, RoundTripsEncodeForm) {
  const FormFields fields = {{"name", "Jo Doe"}, {"text", "1+1=2 & 100% \xC3\xA9~*"}, {"", "empty name"}};
  EXPECT_EQ(decode_form(encode_form(fields)), fields);
}

// Plug's nested names, as the liveview binding hands a Lua table over (as JSON).
TEST(NestedFormFields, NamesNestAsPlugReadsThem) {
  const auto fields = nested_form_fields(boost::json::parse(
      R"({"post":{"title":"Hi","body":"x y"},"tags":["a","b"],"ok":true,"n":3,"f":1.5,"big":1e20,"z":null,
          "rows":[{"a":1},{"a":2}],"":{"":"e"}})"));
  const FormFields expected = {{"[]", "e"},  // an empty name nests like any other
                               {"big", "1e+20"},       {"f", "1.5"},          {"n", "3"},
                               {"ok", "true"},         {"post[body]", "x y"}, {"post[title]", "Hi"},
                               {"rows[][a]", "1"},     {"rows[][a]", "2"},    {"tags[]", "a"},
                               {"tags[]", "b"},        {"z", ""}};
  EXPECT_EQ(fields, expected);
  EXPECT_EQ(encode_form(nested_form_fields(boost::json::parse(R"({"user":{"name":"Jo"}})"))), "user%5Bname%5D=Jo");
}

TEST(NestedFormFields, NamesAreSortedSoEveryRunSendsTheSameForm) {
  const auto fields = nested_form_fields(boost::json::parse(R"({"b":"2","a":"1","B":"0","a[":"x"})"));
  const FormFields expected = {{"B", "0"}, {"a", "1"}, {"a[", "x"}, {"b", "2"}};
  EXPECT_EQ(fields, expected);
  EXPECT_TRUE(nested_form_fields(boost::json::parse("{}")).empty());
  EXPECT_TRUE(nested_form_fields(boost::json::parse(R"({"empty":[],"none":{}})")).empty());
}

TEST(NestedFormFields, AFormNeedsNames) {
  EXPECT_THROW(nested_form_fields(boost::json::parse(R"(["a"])")), std::invalid_argument);
  EXPECT_THROW(nested_form_fields(boost::json::parse(R"("a=1")")), std::invalid_argument);
}

}  // namespace
}  // namespace stampede::proto
