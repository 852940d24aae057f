#pragma once
// Reading one field of a client's JSON payload, as the LiveView session's handlers do.
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>
#include <string_view>

namespace stampede::target {

// The string at `key`, or nullptr when it is missing or not a string.
inline const boost::json::string* string_at(const boost::json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr ? value->if_string() : nullptr;
}

}  // namespace stampede::target
