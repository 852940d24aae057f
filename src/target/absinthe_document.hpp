#pragma once
// The little the target needs to know about a GraphQL document sent to __absinthe__:control
// (../shared/phoenix-protocol.md §7): it executes nothing, it only answers subscriptions
// with data on a timer, shaped after the document's root field.
#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.hpp"

namespace stampede::target {

// The response key of the root field of a `subscription` operation ("commentAdded" in
// "subscription($id: ID!) { commentAdded(postId: $id) { id } }", the alias when there is
// one); nullopt when the document is not a subscription this reading understands.
std::optional<std::string> subscription_root_field(std::string_view document);

// Absinthe's document_id: the uppercase hex SHA-256 of the document and its variables.
std::string absinthe_document_id(std::string_view document, std::string_view variables_json);

// The push period a test asks for with the variable "interval_ms" (a number, or digits in a
// string): 1 s when absent, clamped to [10 ms, 60 s] so a client cannot make the target spin.
Nanos subscription_interval(const boost::json::object& variables);

}  // namespace stampede::target
