// LiveViewSession without sockets, on a time the test chooses: an upload channel stops
// (phx_close) when no chunk came for chunk_timeout (10 s) since the last one, and keeps no
// timer once its entry is complete.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "target/liveview_posts_store.hpp"
#include "target/liveview_session.hpp"
#include "target/session_fixture.hpp"

namespace stampede::target {
namespace {

namespace json = boost::json;

std::string chunk_frame(std::string_view join_ref, std::string_view ref, std::string_view topic, std::size_t bytes) {
  std::string frame;
  frame.push_back(0);
  frame.push_back(static_cast<char>(join_ref.size()));
  frame.push_back(static_cast<char>(ref.size()));
  frame.push_back(static_cast<char>(topic.size()));
  frame.push_back(5);
  return frame + std::string(join_ref) + std::string(ref) + std::string(topic) + "chunk" + std::string(bytes, 'x');
}

class UploadTimeout : public ::testing::Test {
 protected:
  UploadTimeout()
      : secret_(new_csrf_secret(random_)),
        session_(LiveViewConnectInfo{{LiveViewDialect::V1, {}}, PlugSession{secret_, ""}}, proto::phx::Serializer::V2,
                 LiveViewServices{world_.bus, random_, posts_}, sink_) {}

  json::array take() {
    EXPECT_FALSE(sink_.frames.empty());
    if (sink_.frames.empty()) return {};
    auto frame = json::parse(sink_.frames.front().data).as_array();
    sink_.frames.pop_front();
    return frame;
  }

  // Joins /upload, registers an entry of `size` bytes and joins its upload channel "lvu:0".
  void open_upload(std::size_t size) {
    const auto id = new_phx_id(random_);
    json::object join{{"url", "http://127.0.0.1:4000/upload"},
                      {"params", json::object{{"_csrf_token", mask_csrf_token(secret_, random_)}}},
                      {"session", sign_view_session(LiveViewDialect::V1, {id, "Elixir.DemoWeb.UploadLive", "default"},
                                                    wall_clock_ms())},
                      {"static", nullptr}};
    topic_ = "lv:" + id;
    session_.handle_frame(R"(["1","1",")" + topic_ + R"(","phx_join",)" + json::serialize(join) + "]", false, 0);
    const auto reply = take();
    ASSERT_EQ(reply.at(4).as_object().at("status"), "ok");
    const std::string input(reply.at(4)
                                .as_object()
                                .at("response")
                                .as_object()
                                .at("rendered")
                                .as_object()
                                .at("2")
                                .as_object()
                                .at("0")
                                .as_object()
                                .at("0")
                                .as_string());
    const auto ref = input.substr(5, 20);
    const std::string entry = R"({"ref":"0","name":"f","size":)" + std::to_string(size) + "}";
    session_.handle_frame(
        R"(["1","2",")" + topic_ + R"(","allow_upload",{"ref":")" + ref + R"(","entries":[)" + entry + "]}]", false, 0);
    const auto allowed = take();
    const std::string token(
        allowed.at(4).as_object().at("response").as_object().at("entries").as_object().at("0").as_string());
    session_.handle_frame(R"(["3","3","lvu:0","phx_join",{"token":")" + token + R"("}])", false, 0);
    ASSERT_EQ(take().at(4).as_object().at("status"), "ok");
    ASSERT_EQ(take().at(3), "diff");
  }

  testing::SessionWorld world_;
  TokenRandom random_{17};
  LiveViewPostsStore posts_;
  testing::RecordingSink sink_;
  std::string secret_;  // the CSRF secret of the socket's session
  LiveViewSession session_;
  std::string topic_;
};

TEST_F(UploadTimeout, AChannelWithoutChunksForTenSecondsStops) {
  open_upload(100);
  EXPECT_FALSE(session_.next_due());  // the timer starts with the first chunk
  session_.handle_frame(chunk_frame("3", "4", "lvu:0", 40), true, 1 * kSecond);
  EXPECT_EQ(take().at(4).as_object().at("status"), "ok");
  ASSERT_TRUE(session_.next_due());
  EXPECT_EQ(*session_.next_due(), 11 * kSecond);
  session_.handle_frame(chunk_frame("3", "5", "lvu:0", 40), true, 5 * kSecond);
  EXPECT_EQ(take().at(4).as_object().at("status"), "ok");
  session_.handle_time(14 * kSecond);
  EXPECT_TRUE(sink_.frames.empty());
  session_.handle_time(15 * kSecond);
  const auto close = take();
  EXPECT_EQ(close.at(3), "phx_close");
  EXPECT_EQ(close.at(2), "lvu:0");
  EXPECT_FALSE(session_.next_due());
  EXPECT_EQ(session_.channel_count(), 1u);  // the view stays
}

TEST_F(UploadTimeout, ACompleteEntryKeepsNoTimer) {
  open_upload(80);
  session_.handle_frame(chunk_frame("3", "4", "lvu:0", 80), true, 1 * kSecond);
  EXPECT_EQ(take().at(4).as_object().at("status"), "ok");
  EXPECT_FALSE(session_.next_due());
  session_.handle_time(60 * kSecond);
  EXPECT_TRUE(sink_.frames.empty());
}

}  // namespace
}  // namespace stampede::target
