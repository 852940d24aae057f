#pragma once
// The wire form of one rank's finished second (a Snapshot), as rank 0 receives it.
//
// Why names travel with the data: a MetricId means something only inside one Registry,
// and two ranks intern names in whatever order their VUs first use them. So every metric
// is sent with its name and kind, and the receiver interns the name in its own registry.
// Histograms travel in their exact serialised form (Histogram::serialize), so merging a
// received second is exactly the same as if it had been recorded in this process.
#include <string>
#include <string_view>

#include "metrics/metric_sink.hpp"

namespace stampede::distributed {

// Every metric slot of `second` (present or not: a counter registered on that rank but
// never fired is still a known name, which the receiver's summary lists as a zero).
std::string encode_snapshot(const metrics::Snapshot& second, const metrics::Registry& registry);

// The Snapshot in `registry`'s ids (names new to it are interned). Throws
// std::invalid_argument on malformed bytes, a metric listed twice, or a name whose kind
// differs from the one the registry knows.
metrics::Snapshot decode_snapshot(std::string_view bytes, metrics::Registry& registry);

}  // namespace stampede::distributed
