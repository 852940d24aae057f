#include "clients/absinthe_client.hpp"

#include "proto/absinthe.hpp"

namespace stampede::clients {

namespace absinthe = proto::phx::absinthe;

namespace {

const std::string kControlTopic(absinthe::kControlTopic);
const std::string kDataEvent(absinthe::kDataEvent);

std::optional<AbsintheData> data_of(const ChannelMessage* message) {
  if (message == nullptr) return std::nullopt;
  AbsintheData data;
  data.message = message;
  proto::phx::Message m;
  m.topic = message->topic;
  m.event = message->event;
  m.payload = message->payload;
  m.binary = message->binary;
  if (auto read = absinthe::read_subscription_data(m)) data.result_json = std::move(read->result_json);
  return data;
}

}  // namespace

void AbsintheClient::join(Nanos timeout, ChannelsSocket::ReplyHandler done) {
  socket_.join(kControlTopic, "{}", timeout, std::move(done));
}

void AbsintheClient::doc(std::string_view query, std::string_view variables_json, Nanos timeout,
                         std::function<void(const AbsintheDoc&)> done) {
  socket_.push(kControlTopic, std::string(absinthe::kDocEvent), absinthe::doc_payload(query, variables_json), false,
               timeout, [done = std::move(done)](const ChannelReply& reply) {
                 AbsintheDoc outcome;
                 outcome.reply = reply;
                 if (reply.failure.empty() && !reply.binary) {
                   const auto read = absinthe::read_doc_reply(reply.status, reply.response);
                   if (read && read->outcome == absinthe::DocReply::Outcome::Subscribed) {
                     outcome.subscription_id = read->subscription_id;
                   }
                 }
                 done(outcome);
               });
}

void AbsintheClient::unsubscribe(std::string_view subscription_id, Nanos timeout, ChannelsSocket::ReplyHandler done) {
  socket_.push(kControlTopic, std::string(absinthe::kUnsubscribeEvent), absinthe::subscription_id_payload(subscription_id),
               false, timeout, std::move(done));
}

std::optional<AbsintheData> AbsintheClient::find_data(const std::string& subscription_id, std::uint64_t after_seq) const {
  return data_of(socket_.find(subscription_id, kDataEvent, after_seq));
}

void AbsintheClient::wait_data(const std::string& subscription_id, std::uint64_t after_seq, Nanos timeout,
                               std::function<void(std::optional<AbsintheData>)> done) {
  socket_.wait_message(subscription_id, kDataEvent, after_seq, timeout,
                       [done = std::move(done)](const ChannelMessage* message) { done(data_of(message)); });
}

}  // namespace stampede::clients
