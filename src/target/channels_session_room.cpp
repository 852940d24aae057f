// room:* — the demo app's chat channel, as recorded in frames_channels.json:
//   new_msg  broadcast!(socket, "new_msg", Map.merge(payload, %{"echo" => payload, "user_id" => id}))
//            then {:reply, :ok, socket}: the broadcast reaches the sender before the reply
//   shout    broadcast!(socket, "shout", payload), {:noreply, socket}
//   ping     {:reply, {:ok, payload}, socket}
//   crash    raise: phx_error
//   {:binary, data} (any event)  {:reply, {:ok, {:binary, data}}, socket}
//   anything else                {:noreply, socket}: the client's push times out
// A payload that is not a JSON object where the app needs a map makes the handler raise, so
// it crashes the channel, as Phoenix would.
#include <boost/json.hpp>

#include "target/channels_session.hpp"

namespace stampede::target {
namespace {

bool is_json_object(std::string_view json) {
  const auto start = json.find_first_not_of(" \t\r\n");
  return start != std::string_view::npos && json[start] == '{';
}

}  // namespace

ChannelsSession::Outcome ChannelsSession::room_event(const Channel& channel, proto::phx::Message& message) {
  if (message.binary) return Outcome::binary_reply(std::move(message.payload));
  if (message.event == "ping") {
    if (!is_json_object(message.payload)) return Outcome::crash();
    return Outcome::reply("ok", std::move(message.payload));
  }
  if (message.event == "new_msg") {
    boost::json::error_code ec;
    auto value = boost::json::parse(message.payload, ec);
    if (ec || !value.is_object()) return Outcome::crash();
    auto& object = value.as_object();
    boost::json::value echo = object;
    object["echo"] = std::move(echo);
    if (user_id_.empty()) {
      object["user_id"] = nullptr;
    } else {
      object["user_id"] = user_id_;
    }
    bus_.publish(channel.topic, "new_msg", boost::json::serialize(value));
    return Outcome::reply("ok", "{}");
  }
  if (message.event == "shout") {
    if (!is_json_object(message.payload)) return Outcome::crash();
    bus_.publish(channel.topic, "shout", std::move(message.payload));
    return Outcome::no_reply();
  }
  if (message.event == "crash") return Outcome::crash();
  return Outcome::no_reply();
}

}  // namespace stampede::target
