// The one base64 (OpenSSL's coder behind a strict check): both alphabets, every length, the
// RFC 4648 §10 vectors, and the inputs OpenSSL alone would let through.
#include "proto/base64.hpp"

#include <gtest/gtest.h>

#include <string>

namespace stampede::proto {
namespace {

using namespace std::string_literals;

TEST(Base64, TheRfcVectors) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foob"), "Zm9vYg==");
  EXPECT_EQ(base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64url("fooba"), "Zm9vYmE");
  EXPECT_EQ(base64("\xfb\xff"s), "+/8=");
  EXPECT_EQ(base64url("\xfb\xff"s), "-_8");
}

TEST(Base64, RoundTripsEveryLengthInBothAlphabets) {
  std::string bytes;
  for (int n = 0; n < 40; ++n) {
    const auto standard = base64(bytes);
    EXPECT_EQ(standard.size() % 4, 0u);
    EXPECT_EQ(decode_base64(standard), bytes);
    const auto url = base64url(bytes);
    EXPECT_EQ(url.find_first_of("=+/"), std::string::npos) << url;
    EXPECT_EQ(decode_base64url(url), bytes);
    EXPECT_EQ(decode_base64(standard.substr(0, standard.find('='))), bytes);  // padding may be left out
    bytes.push_back(static_cast<char>(n * 37 + 251));
  }
}

TEST(Base64, AppendsAfterWhatIsThere) {
  std::string out = "b";
  append_base64(out, "fo");
  append_base64url(out, "fo");
  EXPECT_EQ(out, "bZm8=Zm8");
}

TEST(Base64, RefusesWhatOpenSslAloneWouldAccept) {
  EXPECT_FALSE(decode_base64("Zm9vY"));      // 4n+1 characters
  EXPECT_FALSE(decode_base64("Zm9v YmE="));  // white space
  EXPECT_FALSE(decode_base64(" Zm9v"));
  EXPECT_FALSE(decode_base64("Zm9v\n"));
  EXPECT_FALSE(decode_base64("Zm=vYmE="));   // padding inside
  EXPECT_FALSE(decode_base64("Zg==Zg=="));
  EXPECT_FALSE(decode_base64("Z==="));
  EXPECT_FALSE(decode_base64("===="));
  EXPECT_FALSE(decode_base64("Zm9vYmE_"));  // the URL-safe alphabet is not this one
  EXPECT_FALSE(decode_base64url("ab+c"));   // nor this one the standard
  EXPECT_FALSE(decode_base64url("abcde"));
  EXPECT_FALSE(decode_base64url("Zg=="));   // Phoenix never pads
  EXPECT_FALSE(decode_base64url("Zm\0v"s));
}

TEST(Base64, LongInputsGoThroughInPieces) {
  std::string bytes(7 * 1024 * 1024 + 1, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 131 + i / 7);
  const auto standard = base64(bytes);
  EXPECT_EQ(standard.size(), 4 * ((bytes.size() + 2) / 3));
  EXPECT_EQ(decode_base64(standard), bytes);
  EXPECT_EQ(decode_base64url(base64url(bytes)), bytes);
}

}  // namespace
}  // namespace stampede::proto
