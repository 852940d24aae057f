#pragma once
// Durations as scenarios and the CLI write them: a number is milliseconds ("250", 250, 1.5),
// a string is one or more number+unit parts: "500ms", "30s", "1m", "1h30m", "1.5s", "250us", "10ns".
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.hpp"

namespace stampede::proto {

// Returns nullopt and sets `error` (when given) to a sentence saying what was expected.
std::optional<Nanos> parse_duration(std::string_view text, std::string* error = nullptr);
// A number of milliseconds, as scenarios write durations (250, 1.5): nullopt with `error`
// set for a negative one, NaN, infinity, or more than parse_duration accepts (100 days).
std::optional<Nanos> duration_from_ms(double ms, std::string* error = nullptr);
// "1.5s", "250ms", "1m30s": the shortest exact-enough form, for messages and reports.
std::string format_duration(Nanos d);

}  // namespace stampede::proto
