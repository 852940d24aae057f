// presence:* — the demo app tracks the joining socket and pushes the list, as in
// frames_channels.json (§4.1): the join reply, then the presence_diff broadcast (which
// reaches the joiner too, by fastlane), then presence_state pushed to the joiner with its
// join_ref. Leaving or disconnecting broadcasts a presence_diff with the leave to the rest.
#include <boost/json.hpp>

#include <chrono>

#include "target/channels_session.hpp"

namespace stampede::target {
namespace {

std::int64_t unix_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The join payload's "user_id" (a string, or a number written as text); "" when absent.
std::string join_user_id(const std::string& join_payload) {
  boost::json::error_code ec;
  const auto value = boost::json::parse(join_payload, ec);
  if (ec || !value.is_object()) return {};
  const auto* id = value.as_object().if_contains("user_id");
  if (id == nullptr) return {};
  if (id->is_string()) return std::string(id->as_string());
  if (id->is_number()) return boost::json::serialize(*id);
  return {};
}

}  // namespace

void ChannelsSession::track_presence(Channel& channel, const std::string& join_payload) {
  std::string key = join_user_id(join_payload);
  if (key.empty()) key = user_id_;
  if (key.empty()) key = "anonymous-" + std::to_string(bus_.next_unique_integer());
  channel.presence_key = std::move(key);
  channel.presence_meta.phx_ref = bus_.new_phx_ref();
  channel.presence_meta.online_at = unix_seconds();

  const auto state = bus_.presence().track(channel.topic, channel.presence_key, channel.presence_meta);
  bus_.publish(channel.topic, "presence_diff", presence_diff_json(channel.presence_key, channel.presence_meta, true));
  socket_.push(channel.join_ref, channel.topic, "presence_state", state);
}

void ChannelsSession::untrack_presence(const Channel& channel, bool publish_leave) {
  if (channel.presence_meta.phx_ref.empty()) return;
  const bool was_tracked = bus_.presence().untrack(channel.topic, channel.presence_key, channel.presence_meta.phx_ref);
  if (was_tracked && publish_leave) {
    bus_.publish(channel.topic, "presence_diff", presence_diff_json(channel.presence_key, channel.presence_meta, false));
  }
}

}  // namespace stampede::target
