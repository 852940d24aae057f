#pragma once
// Absinthe's GraphQL over a Phoenix socket (../shared/phoenix-protocol.md §7), as
// @absinthe/socket runs it: the control channel `__absinthe__:control` joined once; each
// document a `doc` push on it, whose reply either starts a subscription (a subscriptionId) or
// answers a query or mutation at once; a subscription's results come as `subscription:data`
// pushes on a topic named after its id, which the socket never joins; `unsubscribe` ends one.
// The payloads are proto/absinthe.hpp's; this class puts them on a ChannelsSocket, which
// measures and times them like any push.
//
//   AbsintheClient absinthe(socket);
//   absinthe.join(timeout, done);
//   absinthe.doc("subscription { commentAdded { id } }", "{}", timeout, [](const AbsintheDoc& d) { ... });
//   absinthe.find_data(d.subscription_id, 0) / wait_data(...)
//   absinthe.unsubscribe(d.subscription_id, timeout, done);
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "clients/channels_socket.hpp"

namespace stampede::clients {

// The outcome of a `doc` push.
struct AbsintheDoc {
  ChannelReply reply;           // as for any push: a failure, an error status, or ok
  std::string subscription_id;  // set when an ok reply started a subscription
};

// One `subscription:data` push.
struct AbsintheData {
  const ChannelMessage* message = nullptr;  // the push (its seq, its whole payload)
  std::string result_json;  // its "result", the GraphQL response; empty when it has none
};

class AbsintheClient {
 public:
  explicit AbsintheClient(ChannelsSocket& socket) : socket_(socket) {}

  // Joins the control channel.
  void join(Nanos timeout, ChannelsSocket::ReplyHandler done);
  // Sends a document with its variables (a JSON object's text). Throws std::invalid_argument,
  // sending nothing, when the variables are not an object or the query is not UTF-8.
  void doc(std::string_view query, std::string_view variables_json, Nanos timeout,
           std::function<void(const AbsintheDoc&)> done);
  void unsubscribe(std::string_view subscription_id, Nanos timeout, ChannelsSocket::ReplyHandler done);

  // The first buffered data push of the subscription after `after_seq`.
  std::optional<AbsintheData> find_data(const std::string& subscription_id, std::uint64_t after_seq) const;
  // Calls `done` with it, now or when it arrives; nullopt on timeout or when the socket closes.
  void wait_data(const std::string& subscription_id, std::uint64_t after_seq, Nanos timeout,
                 std::function<void(std::optional<AbsintheData>)> done);

 private:
  ChannelsSocket& socket_;
};

}  // namespace stampede::clients
