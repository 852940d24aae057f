#pragma once
// The numbers of the Prometheus and OpenMetrics text formats, read as Prometheus reads them
// (Go's strconv.ParseFloat minus hex floats, model/textparse): sample values, `le` and
// `quantile` label values, and the two kinds of timestamp. Locale-free, no allocation.
#include <cstdint>
#include <optional>
#include <string_view>

namespace stampede::proto {

// "1", "-0.5", ".5", "5.", "1e3", "1.5E-7", "+3"; "NaN" (any case, unsigned); "+Inf", "-Inf",
// "Inf", "infinity" (any case, optional sign). Not: hex floats, '_' separators, spaces, "".
// A value too large for a double is refused (Prometheus refuses it too); one too small to
// be told from zero reads as a zero of its sign.
std::optional<double> parse_exposition_float(std::string_view text);

// The 0.0.4 timestamp: milliseconds since the epoch, an int64 as Go's ParseInt reads it
// (an optional sign, digits). The format's own example has a negative one ("a weird metric
// from before the epoch"), which expfmt reads and Prometheus' scrape lexer refuses; we read
// it. Refused when it does not fit 64 bits.
std::optional<std::int64_t> parse_millisecond_timestamp(std::string_view text);

// The OpenMetrics timestamp: seconds since the epoch as a float ("1700000000.125"), made
// milliseconds the way Prometheus does (truncated toward zero). NaN, infinities and values
// whose milliseconds do not fit 64 bits are refused.
std::optional<std::int64_t> parse_second_timestamp(std::string_view text);

}  // namespace stampede::proto
