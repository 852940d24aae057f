// __absinthe__:* — Absinthe.Phoenix.Channel as seen on the wire (§7.1):
//   doc {"query","variables"}  -> ok {"subscriptionId":"__absinthe__:doc:<n>:<SHA-256>"}, then
//                                 [null,null,<id>,"subscription:data",{"result":{"data":{..}},"subscriptionId":<id>}]
//                                 every "interval_ms" (default 1 s) until unsubscribe or the end
//   unsubscribe {"subscriptionId"} -> ok {"subscriptionId": id}
// Other events, or payloads that are not maps, match no handle_in clause: the channel crashes.
#include <boost/json/serialize.hpp>

#include "proto/absinthe.hpp"
#include "proto/json_string.hpp"
#include "target/absinthe_document.hpp"
#include "target/channels_session.hpp"

namespace stampede::target {

namespace absinthe = proto::phx::absinthe;

ChannelsSession::Outcome ChannelsSession::absinthe_event(proto::phx::Message& message, Nanos now) {
  if (message.binary) return Outcome::crash();
  if (message.event == absinthe::kDocEvent) return subscribe_document(message.payload, now);
  if (message.event == absinthe::kUnsubscribeEvent) return unsubscribe_document(message.payload);
  return Outcome::crash();
}

ChannelsSession::Outcome ChannelsSession::subscribe_document(const std::string& payload, Nanos now) {
  const auto doc = absinthe::read_doc(payload);
  if (!doc) return Outcome::crash();
  if (!doc->query) return Outcome::reply("error", absinthe::errors_response("No query document supplied"));
  if (!doc->variables_are_a_map) return Outcome::reply("error", std::string(absinthe::kVariablesNotAMap));
  const std::string_view document = *doc->query;
  auto field = subscription_root_field(document);
  if (!field) {
    return Outcome::reply("error", absinthe::errors_response("stampede target answers subscription documents only"));
  }
  if (subscriptions_.size() >= kMaxSubscriptions) {
    return Outcome::reply("error", absinthe::errors_response("too many subscriptions on this socket"));
  }

  Subscription subscription;
  subscription.id = "__absinthe__:doc:" + std::to_string(bus_.next_unique_integer()) + ":" +
                    absinthe_document_id(document, boost::json::serialize(doc->variables));
  subscription.field = std::move(*field);
  subscription.interval = subscription_interval(doc->variables);
  subscription.due = now + subscription.interval;
  auto response = absinthe::subscription_id_payload(subscription.id);
  subscriptions_.push_back(std::move(subscription));
  return Outcome::reply("ok", std::move(response));
}

ChannelsSession::Outcome ChannelsSession::unsubscribe_document(const std::string& payload) {
  const auto wanted = absinthe::read_unsubscribe(payload);
  if (!wanted) return Outcome::crash();
  std::erase_if(subscriptions_, [&](const Subscription& s) { return s.id == *wanted; });
  // Absinthe answers ok whether or not the subscription existed.
  return Outcome::reply("ok", absinthe::subscription_id_payload(*wanted));
}

void ChannelsSession::push_subscription_data(Subscription& subscription) {
  ++subscription.seq;
  std::string result = R"({"data":{)";
  proto::append_json_string(result, subscription.field, "the subscription's field");
  result += R"(:{"seq":)";
  result += std::to_string(subscription.seq);
  result += "}}}";
  // On the subscription's own topic, which the client never joined: no join_ref, no ref.
  socket_.push(std::nullopt, subscription.id, absinthe::kDataEvent, absinthe::subscription_data_payload(subscription.id, result));
}

}  // namespace stampede::target
