// Which LiveView a page comes from, read from its session token before the join.
#include "clients/liveview_version.hpp"

#include <gtest/gtest.h>

namespace stampede::clients {
namespace {

namespace lv = proto::lv;

TEST(LiveViewVersion, TheSessionTokensFormatNumberTellsTheDialect) {
  // data-phx-session of lv-0.20/counter.json (format 5) and lv-1.x/counter.json (format 6).
  EXPECT_EQ(version_from_session_token("SFMyNTY.g2gDaAJhBXQAAAAIZAACaWRtAAAAFHBoeC1HT3k4YXhJZUtUT2M4Z1pC.sig"),
            (lv::Version{0, 20, 17}));
  EXPECT_EQ(version_from_session_token("SFMyNTY.g2gDaAJhBnQAAAAIZAACaWRtAAAAFHBoeC1HT3k4YnZ0U2k0bG9PWktD.sig"),
            (lv::Version{1, 2, 10}));
}

TEST(LiveViewVersion, AnythingElseSaysNothing) {
  EXPECT_EQ(version_from_session_token(""), std::nullopt);
  EXPECT_EQ(version_from_session_token("not a token"), std::nullopt);
  EXPECT_EQ(version_from_session_token("SFMyNTY.short"), std::nullopt);
  EXPECT_EQ(version_from_session_token("SFMyNTY.g2gDaAJhB3QAAAAI.sig"), std::nullopt);  // format 7
  EXPECT_EQ(version_from_session_token("SFMyNTY.!!!!!!!!!!!!!!!!.sig"), std::nullopt);
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
