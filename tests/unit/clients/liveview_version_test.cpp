// Which LiveView a page comes from, read from its session token before the join: a dialect,
// never a release the server did not name.
#include "clients/liveview_version.hpp"

#include <gtest/gtest.h>

#include "proto/liveview_session_token.hpp"

namespace stampede::clients {
namespace {

namespace lv = proto::lv;

// data-phx-session of lv-0.20/counter.json (format 5) and lv-1.x/counter.json (format 6).
constexpr std::string_view kFormat5 = "SFMyNTY.g2gDaAJhBXQAAAAIZAACaWRtAAAAFHBoeC1HT3k4YXhJZUtUT2M4Z1pC.sig";
constexpr std::string_view kFormat6 = "SFMyNTY.g2gDaAJhBnQAAAAIZAACaWRtAAAAFHBoeC1HT3k4YnZ0U2k0bG9PWktD.sig";

TEST(LiveViewSessionToken, TheFormatNumber) {
  EXPECT_EQ(lv::session_token_format(kFormat5), 5);
  EXPECT_EQ(lv::session_token_format(kFormat6), 6);
  EXPECT_EQ(lv::session_token_format("SFMyNTY.g2gDaAJhB3QAAAAI.sig"), 7);
}

TEST(LiveViewSessionToken, AnythingElseSaysNothing) {
  EXPECT_EQ(lv::session_token_format(""), std::nullopt);
  EXPECT_EQ(lv::session_token_format("not a token"), std::nullopt);
  EXPECT_EQ(lv::session_token_format("SFMyNTY.short"), std::nullopt);
  EXPECT_EQ(lv::session_token_format("SFMyNTY.!!!!!!!!!!!!!!!!.sig"), std::nullopt);
  EXPECT_EQ(lv::session_token_format("SFMyNTY.g3QAAAABbQAAAAtf.sig"), std::nullopt);  // a map, not {{N, _}, _, _}
}

TEST(LiveViewVersion, ThePageTellsADialectNotARelease) {
  const PageDialect five = page_dialect(kFormat5);
  EXPECT_EQ(five.text, "0.20 to 1.0.5 (session token format 5)");
  EXPECT_EQ(five.join_as, (lv::Version{0, 20, 17}));  // joins as 0.20 joins: no _mount_attempts
  const PageDialect six = page_dialect(kFormat6);
  EXPECT_EQ(six.text, "1.0.6 or later (session token format 6)");
  EXPECT_EQ(six.join_as, lv::kNewestCheckedVersion);
  EXPECT_EQ(page_dialect("SFMyNTY.g2gDaAJhB3QAAAAI.sig").text, "unknown (not joined)");
  EXPECT_EQ(page_dialect("").text, "unknown (not joined)");
  for (const auto& text : {five.text, six.text}) {
    EXPECT_EQ(text.find("0.20.17"), std::string::npos) << text;
    EXPECT_EQ(text.find("1.2.10"), std::string::npos) << text;
  }
}

TEST(LiveViewVersion, SupportedAre020And10To12) {
  EXPECT_TRUE(supported_version({0, 20, 0}));
  EXPECT_TRUE(supported_version({0, 20, 17}));
  EXPECT_TRUE(supported_version({1, 0, 0}));
  EXPECT_TRUE(supported_version({1, 2, 10}));
  EXPECT_FALSE(supported_version({0, 19, 5}));
  EXPECT_FALSE(supported_version({1, 3, 0}));
  EXPECT_FALSE(supported_version({2, 0, 0}));
  EXPECT_NE(unsupported_version_message("1.3.0").find("0.20.x and 1.0 to 1.2"), std::string::npos);
}

}  // namespace
}  // namespace stampede::clients
