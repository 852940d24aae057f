#include <gtest/gtest.h>

#include <chrono>

#include "report/timestamp.hpp"
#include "report/utf8_text.hpp"
#include "report/xml_text.hpp"

namespace stampede::report {
namespace {

TEST(Utf8Text, KeepsValidTextAndReplacesEveryInvalidByte) {
  EXPECT_EQ(to_valid_utf8("plain µs ✓ 😀"), "plain µs ✓ 😀");
  EXPECT_EQ(to_valid_utf8("a\xFF" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(to_valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(to_valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(to_valid_utf8("\xF4\x90\x80\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // > U+10FFFF
  EXPECT_EQ(to_valid_utf8("cut \xE2\x9C"), "cut \xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(to_valid_utf8(std::string_view("nul\0in", 6)), std::string("nul\0in", 6));  // valid UTF-8
}

TEST(XmlText, EscapesMarkupQuotesAndForbiddenCharacters) {
  EXPECT_EQ(xml_escape("<script>alert(\"x\" & 'y')</script>"),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &apos;y&apos;)&lt;/script&gt;");
  EXPECT_EQ(xml_escape("tab\tline\nok"), "tab\tline\nok");
  EXPECT_EQ(xml_escape(std::string_view("nul\0bel\x07", 8)), "nul\xEF\xBF\xBD" "bel\xEF\xBF\xBD");
  EXPECT_EQ(xml_escape("µs"), "µs");
}

TEST(Timestamp, Iso8601UtcWithMilliseconds) {
  using namespace std::chrono;
  const system_clock::time_point t = sys_days{year{2024} / 5 / 1} + hours{12} + minutes{3} + seconds{4} + milliseconds{56};
  EXPECT_EQ(iso8601_utc(t), "2024-05-01T12:03:04.056Z");
  EXPECT_EQ(iso8601_utc(system_clock::time_point{}), "1970-01-01T00:00:00.000Z");
}

}  // namespace
}  // namespace stampede::report
