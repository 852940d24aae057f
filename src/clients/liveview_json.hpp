// JSON parsing for LiveView payloads. Rendered trees nest as deep as the templates do, far
// past Boost.JSON's default depth of 32, so every LiveView parse goes through here.
#pragma once

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <string_view>

namespace stampede::clients {

// Deeper than the diff merger's own limit (256), so that the merger, not the parser, names a
// too-deep diff.
inline constexpr std::size_t kLiveJsonMaxDepth = 264;

inline boost::json::value parse_live_json(std::string_view text, boost::system::error_code& ec) {
  boost::json::parse_options options;
  options.max_depth = kLiveJsonMaxDepth;
  return boost::json::parse(boost::json::string_view(text.data(), text.size()), ec, {}, options);
}

// An unparseable payload reads as an empty object: the caller then finds no expected key.
inline boost::json::value parse_live_json_or_empty(std::string_view text) {
  boost::system::error_code ec;
  boost::json::value v = parse_live_json(text, ec);
  if (ec) return boost::json::object();
  return v;
}

}  // namespace stampede::clients
