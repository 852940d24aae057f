// The words every Phoenix-speaking session of the target replies with, shared by the
// channels and LiveView sessions so both answer in the same spelling.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace stampede::target::reply_text {

inline constexpr std::string_view kOk = "ok";
inline constexpr std::string_view kError = "error";
inline constexpr std::string_view kEmpty = "{}";

// A message's optional field (join_ref, ref) as a view, for the encoder.
inline std::optional<std::string_view> view(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  return std::string_view(*text);
}

}  // namespace stampede::target::reply_text
