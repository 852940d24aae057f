// __absinthe__:* — Absinthe.Phoenix.Channel as seen on the wire (§7.1):
//   doc {"query","variables"}  -> ok {"subscriptionId":"__absinthe__:doc:<n>:<SHA-256>"}, then
//                                 [null,null,<id>,"subscription:data",{"result":{"data":{..}},"subscriptionId":<id>}]
//                                 every "interval_ms" (default 1 s) until unsubscribe or the end
//   unsubscribe {"subscriptionId"} -> ok {"subscriptionId": id}
// Other events, or payloads that are not maps, match no handle_in clause: the channel crashes.
#include <boost/json.hpp>

#include "target/absinthe_document.hpp"
#include "target/channels_session.hpp"

namespace stampede::target {
namespace {

std::string quoted(std::string_view text) { return boost::json::serialize(boost::json::string_view(text)); }

std::string graphql_errors(std::string_view message) {
  return R"({"errors":[{"message":)" + quoted(message) + "}]}";
}

}  // namespace

ChannelsSession::Outcome ChannelsSession::absinthe_event(proto::phx::Message& message, Nanos now) {
  if (message.binary) return Outcome::crash();
  if (message.event == "doc") return subscribe_document(message.payload, now);
  if (message.event == "unsubscribe") return unsubscribe_document(message.payload);
  return Outcome::crash();
}

ChannelsSession::Outcome ChannelsSession::subscribe_document(const std::string& payload, Nanos now) {
  boost::json::error_code ec;
  const auto value = boost::json::parse(payload, ec);
  if (ec || !value.is_object()) return Outcome::crash();
  const auto& object = value.as_object();

  const auto* query = object.if_contains("query");
  if (query == nullptr || !query->is_string()) return Outcome::reply("error", graphql_errors("No query document supplied"));
  boost::json::object variables;
  if (const auto* given = object.if_contains("variables"); given != nullptr && !given->is_null()) {
    if (!given->is_object()) return Outcome::reply("error", R"({"error":"Could not parse variables as map"})");
    variables = given->as_object();
  }
  const std::string_view document = query->as_string();
  auto field = subscription_root_field(document);
  if (!field) {
    return Outcome::reply("error", graphql_errors("stampede target answers subscription documents only"));
  }
  if (subscriptions_.size() >= kMaxSubscriptions) {
    return Outcome::reply("error", graphql_errors("too many subscriptions on this socket"));
  }

  Subscription subscription;
  subscription.id = "__absinthe__:doc:" + std::to_string(bus_.next_unique_integer()) + ":" +
                    absinthe_document_id(document, boost::json::serialize(variables));
  subscription.field = std::move(*field);
  subscription.interval = subscription_interval(variables);
  subscription.due = now + subscription.interval;
  auto response = R"({"subscriptionId":)" + quoted(subscription.id) + "}";
  subscriptions_.push_back(std::move(subscription));
  return Outcome::reply("ok", std::move(response));
}

ChannelsSession::Outcome ChannelsSession::unsubscribe_document(const std::string& payload) {
  boost::json::error_code ec;
  const auto value = boost::json::parse(payload, ec);
  if (ec || !value.is_object()) return Outcome::crash();
  const auto* id = value.as_object().if_contains("subscriptionId");
  if (id == nullptr || !id->is_string()) return Outcome::crash();
  const std::string_view wanted = id->as_string();
  std::erase_if(subscriptions_, [&](const Subscription& s) { return s.id == wanted; });
  // Absinthe answers ok whether or not the subscription existed.
  return Outcome::reply("ok", R"({"subscriptionId":)" + quoted(wanted) + "}");
}

void ChannelsSession::push_subscription_data(Subscription& subscription) {
  ++subscription.seq;
  std::string payload = R"({"result":{"data":{)";
  payload += quoted(subscription.field);
  payload += R"(:{"seq":)";
  payload += std::to_string(subscription.seq);
  payload += R"(}}},"subscriptionId":)";
  payload += quoted(subscription.id);
  payload += '}';
  // On the subscription's own topic, which the client never joined: no join_ref, no ref.
  push(std::nullopt, subscription.id, "subscription:data", payload);
}

}  // namespace stampede::target
