#pragma once
// GraphQL over WebSocket, both subprotocols a server may speak (one JSON text frame per message):
//
//   graphql-transport-ws  the current one (npm graphql-ws 5+, PROTOCOL.md of
//                         enisdenjo/graphql-ws): connection_init -> connection_ack, ping/pong
//                         both ways, subscribe {id, payload} -> next* then complete, or error;
//                         complete from the client stops an operation.
//   graphql-ws            the legacy one (apollographql/subscriptions-transport-ws, whose
//                         subprotocol confusingly has the name of the newer package):
//                         connection_init -> connection_ack or connection_error, ka
//                         (keep-alive), start {id, payload} -> data* then complete, or error;
//                         stop ends an operation, connection_terminate the connection.
//
// The client encodes its messages with the encode_* functions (spelled per subprotocol, in
// the key order the reference clients write), and decodes every server message into one
// ServerMessage. Payloads are kept as the exact JSON text the server sent, not re-serialized.
// Decoding never throws: a malformed or unknown message is an error sentence (the reference
// clients close the socket on one: 4400 for graphql-transport-ws).
#include <string>
#include <string_view>
#include <variant>

namespace stampede::proto::gql {

enum class Subprotocol {
  GraphqlTransportWs,  // "graphql-transport-ws"
  GraphqlWs,           // "graphql-ws" (legacy subscriptions-transport-ws)
};
// The Sec-WebSocket-Protocol value.
std::string_view subprotocol_name(Subprotocol subprotocol);

// What subscribe/start carries. Empty strings are left out of the message; the JSON ones must
// be objects.
struct Operation {
  std::string_view query;
  std::string_view variables_json;
  std::string_view operation_name;
  std::string_view extensions_json;
};

// The client's messages. payload_json, when not empty, must be a JSON object. Throws
// std::invalid_argument for a payload that is not, an empty id, text that is not valid UTF-8,
// or a message the subprotocol does not have (ping, pong: graphql-transport-ws only;
// connection_terminate: graphql-ws only).
//   connection_init: graphql-ws always sends a payload ({} when none is given), as
//                    subscriptions-transport-ws does; graphql-transport-ws leaves it out.
std::string encode_connection_init(Subprotocol subprotocol, std::string_view payload_json = {});
// subscribe (graphql-transport-ws) or start (graphql-ws).
std::string encode_subscribe(Subprotocol subprotocol, std::string_view id, const Operation& operation);
// complete (graphql-transport-ws) or stop (graphql-ws): the client is done with an operation.
std::string encode_complete(Subprotocol subprotocol, std::string_view id);
std::string encode_ping(Subprotocol subprotocol, std::string_view payload_json = {});
std::string encode_pong(Subprotocol subprotocol, std::string_view payload_json = {});
std::string encode_connection_terminate(Subprotocol subprotocol);

// A server message, the same for both subprotocols.
struct ServerMessage {
  enum class Type {
    ConnectionAck,    // both
    ConnectionError,  // graphql-ws: the server refused connection_init (payload: why)
    KeepAlive,        // graphql-ws "ka"
    Ping,             // graphql-transport-ws: answer with a pong
    Pong,             // graphql-transport-ws
    Next,             // a result: "next" (graphql-transport-ws) or "data" (graphql-ws)
    Error,            // an operation failed: graphql-transport-ws carries a non-empty array of
                      // GraphQL errors; graphql-ws an error object (its id may be empty)
    Complete,         // the operation ended
  };
  Type type = Type::ConnectionAck;
  std::string id;       // the operation id (Next, Error, Complete); empty otherwise
  std::string payload;  // the payload's exact JSON text; empty when absent or null
};
std::string_view server_message_type_name(ServerMessage::Type type);

using Decoded = std::variant<ServerMessage, std::string>;
// Decodes a text frame from the server. What is checked is what the reference clients check:
// graphql-ws 6's validateMessage for graphql-transport-ws (types, non-empty string ids, next
// payload an object, error payload a non-empty array of objects with "message", ack/ping/pong
// payloads an object or null); for graphql-ws, what SubscriptionClient relies on (a known
// type, ids on data and complete, data payload an object). Unknown keys are ignored.
Decoded decode_server_message(Subprotocol subprotocol, std::string_view frame);

}  // namespace stampede::proto::gql
