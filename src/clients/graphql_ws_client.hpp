#pragma once
// GraphQL over WebSocket, as the reference clients run it (npm graphql-ws's createClient for
// `graphql-transport-ws`, subscriptions-transport-ws's SubscriptionClient for the legacy
// `graphql-ws`): the WebSocket is opened with the subprotocol, connection_init is sent with
// the scenario's payload, and the connection counts as open once connection_ack arrives.
// Operations are numbered "1", "2"... per connection (what SubscriptionClient does; any
// unique string will do for graphql-ws). Results, errors and completions are kept per
// operation id until the scenario reads them; a server ping is answered with a pong.
// The messages themselves are proto/graphql_ws.hpp's.
//
// Life: Idle --connect()--> Connecting (WebSocket, then connection_init -> ack) --> Open
//       --close(), the server's close or a broken message--> Closed
// connect's `done` is called once. When the connection ends, every await is woken and every
// operation still running counts as failed.
//
// Metrics (beside the WebSocket's own ws.*):
//   graphql.subscribe  Timing   subscribe/start sent -> the operation's first result
//                               (next/data, error or complete)
//   graphql.messages   Counter  results received (next/data)
//   graphql.errors     Counter  by reason: connection_error (legacy refusal of the init),
//                               ack timeout, error (an operation's error message), protocol
//                               (a message the subprotocol does not allow: the connection is
//                               closed with 4400 as graphql-ws does), closed <code> (the
//                               server closed the connection), closed (it dropped),
//                               dropped (the inbox was full)
// Each operation is one request in the sink's tally: finished ok at its first next or
// complete, failed at an error or when the connection ends first.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "clients/client_context.hpp"
#include "clients/message_inbox.hpp"
#include "clients/small_map.hpp"
#include "clients/websocket_session.hpp"
#include "proto/graphql_ws.hpp"

namespace stampede::clients {

struct GraphqlMessage {
  enum class Kind { Next, Error, Complete };
  std::uint64_t seq = 0;
  Kind kind = Kind::Next;
  std::string id;
  std::string payload;  // the JSON text the server sent (empty for Complete)
};

class GraphqlWsClient : public std::enable_shared_from_this<GraphqlWsClient> {
 public:
  enum class State { Idle, Connecting, Open, Closed };

  struct Options {
    proto::gql::Subprotocol subprotocol = proto::gql::Subprotocol::GraphqlTransportWs;
    std::string init_payload_json;  // connection_init's payload (a JSON object), empty: none
    WebSocketSession::ConnectOptions ws;
    Nanos ack_timeout = 10 * kSecond;  // connection_init -> connection_ack
    std::size_t buffer_limit = 1000;   // results kept for await; the oldest go first
  };

  struct ConnectResult {
    std::string error;  // empty on success; a sentence without the URL
    std::string error_reason;
    bool local_exhaustion = false;
    int status = 0;
    std::string ack_payload;  // connection_ack's payload (JSON text), empty when none
    bool ok() const { return error.empty(); }
  };

  explicit GraphqlWsClient(ClientContext& ctx);
  ~GraphqlWsClient();
  GraphqlWsClient(const GraphqlWsClient&) = delete;
  GraphqlWsClient& operator=(const GraphqlWsClient&) = delete;

  void connect(std::string url, Options options, std::function<void(ConnectResult)> done);

  // Starts an operation and returns its id. Throws std::invalid_argument for variables or
  // extensions that are not JSON objects, text that is not UTF-8, and std::logic_error when
  // the connection is not open.
  std::string subscribe(const proto::gql::Operation& operation);
  // The client is done with an operation (complete / stop). Does nothing for an operation
  // that already ended.
  void complete(const std::string& id);
  // Whether an operation has ended (its error or complete arrived, or the client completed it).
  bool finished(const std::string& id) const;

  // Ends the connection (legacy: connection_terminate first), normal closure.
  void close();

  State state() const { return state_; }
  const std::string& closed_reason() const { return closed_reason_; }
  MessageInbox<GraphqlMessage>& inbox() { return inbox_; }

 private:
  struct Operation {
    Nanos sent_at = 0;
    bool answered = false;  // its first result arrived (timed and counted)
  };

  void on_open();
  void on_frame(std::string_view text);
  void on_closed(const WebSocketSession::CloseInfo& info);
  void fail_connect(std::string reason, std::string what);
  void protocol_error(const std::string& why);
  void first_result(const std::string& id, bool ok);
  void end(std::string reason, bool count_operations);
  static void ack_timeout(void* self);

  ClientContext& ctx_;
  Options options_;
  State state_ = State::Idle;
  std::unique_ptr<WebSocketSession> ws_;
  std::function<void(ConnectResult)> done_;
  ConnectResult pending_result_;  // the WebSocket part of connect's result, until the ack
  WorkerTimer ack_timer_;
  std::uint64_t next_id_ = 0;
  SmallMap<std::string, Operation> running_;  // operations whose end has not arrived
  MessageInbox<GraphqlMessage> inbox_;
  std::string closed_reason_;
  bool closing_by_scenario_ = false;
  metrics::MetricId subscribe_metric_, messages_metric_, errors_metric_;
};

}  // namespace stampede::clients
