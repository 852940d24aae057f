#pragma once
// A debugging aid (`stampede run --rank-dump DIR`, hidden): each rank writes what it
// measured itself, histograms in their exact serialised form (hex), so a test can check
// that rank 0's merged summary is exactly the merge of the ranks' own.
#include <string>

#include "metrics/metric_sink.hpp"
#include "metrics/summary.hpp"

namespace stampede::distributed {

std::string summary_dump_json(const metrics::Summary& summary, const metrics::Registry& registry, int rank);
// Writes DIR/<name>.json; returns false (after printing why) when it cannot.
bool write_dump(const std::string& dir, const std::string& name, const std::string& json);

}  // namespace stampede::distributed
