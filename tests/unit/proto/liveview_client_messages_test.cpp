#include "proto/liveview_client_messages.hpp"

#include <gtest/gtest.h>

namespace stampede::proto::lv {
namespace {

// Payloads as Chromium sent them (../shared/phoenix-captures/lv-0.20 and lv-1.x).
TEST(LiveViewClientMessages, ReadsA020FormChange) {
  const auto e = read_client_event(
      R"({"type":"form","event":"validate","value":"post%5Btitle%5D=Go&post%5Bbody%5D=&_target=post%5Btitle%5D","uploads":{}})");
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->has_uploads);  // a change, not a submit
  EXPECT_EQ(e->target, "post[title]");
  ASSERT_EQ(e->fields.size(), 2u);
  EXPECT_EQ(e->fields[0], (std::pair<std::string, std::string>{"post[title]", "Go"}));
  EXPECT_TRUE(e->unused.empty());
}

TEST(LiveViewClientMessages, ReadsA1xFormChangeWithUnusedFields) {
  const auto e = read_client_event(
      R"({"type":"form","event":"validate","value":"post%5Btitle%5D=+&post%5B_unused_body%5D=&post%5Bbody%5D=","meta":{"_target":"post[title]"},"uploads":{}})");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->target, "post[title]");
  ASSERT_EQ(e->fields.size(), 2u);
  EXPECT_EQ(e->unused, std::vector<std::string>{"post[body]"});
}

TEST(LiveViewClientMessages, ReadsClicksSubmitsUploadsAndJoins) {
  const auto click = read_client_event(R"({"type":"click","event":"bump","value":{"value":""},"cid":1})");
  ASSERT_TRUE(click);
  EXPECT_EQ(click->cid, 1);
  EXPECT_FALSE(click->has_uploads);
  const auto submit = read_client_event(R"({"type":"form","event":"save","value":"a=1","meta":{}})");
  ASSERT_TRUE(submit);
  EXPECT_FALSE(submit->has_uploads);
  const auto chosen = read_client_event(
      R"({"type":"form","event":"validate","value":"","meta":{"_target":"avatar"},"uploads":{"phx-1":[{"path":"avatar","ref":"0","name":"a.bin","size":3}]}})");
  ASSERT_TRUE(chosen);
  EXPECT_EQ(upload_input_name(chosen->uploads, "phx-1"), "avatar");
  const auto allow = read_client_allow_upload(
      R"({"ref":"phx-1","entries":[{"last_modified":1,"name":"a.bin","relative_path":"","size":150000,"type":"application/octet-stream","ref":"0"}]})");
  ASSERT_TRUE(allow);
  ASSERT_EQ(allow->entries.size(), 1u);
  EXPECT_EQ(allow->entries[0].size, 150000u);
  const auto join = read_client_join(R"({"redirect":"http://h/posts","params":{"_csrf_token":"x","_mounts":0},"session":"s"})");
  ASSERT_TRUE(join);
  EXPECT_TRUE(join->redirect);
  EXPECT_EQ(join->url, "http://h/posts");
  EXPECT_EQ(read_client_live_patch(R"({"url":"http://h/posts?page=2"})"), "http://h/posts?page=2");
}

TEST(LiveViewClientMessages, RefusesWhatTheBrowserDoesNotSend) {
  EXPECT_FALSE(read_client_event("not json"));
  EXPECT_FALSE(read_client_event(R"({"type":"click"})"));
  EXPECT_FALSE(read_client_event(R"({"type":"form","event":"x","value":{}})"));
  EXPECT_FALSE(read_client_allow_upload(R"({"ref":"r","entries":[1]})"));
  EXPECT_FALSE(read_client_live_patch("[]"));
}

}  // namespace
}  // namespace stampede::proto::lv
