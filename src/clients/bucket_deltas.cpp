#include "clients/bucket_deltas.hpp"

#include <algorithm>
#include <limits>

namespace stampede::clients {

std::vector<BucketDelta> bucket_counts(const std::vector<std::pair<double, double>>& points) {
  std::vector<BucketDelta> out;
  double lower = 0;
  double below = 0;  // cumulative count at the previous bound
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto [upper, cumulative] = points[i];
    if (i == 0) lower = upper >= 0 ? 0 : -std::numeric_limits<double>::infinity();
    const double count = std::max(0.0, cumulative - below);
    if (count > 0) out.push_back({lower, upper, count});
    below = std::max(below, cumulative);
    lower = upper;
  }
  return out;
}

namespace {

bool went_down(const CumulativeBuckets& previous, const CumulativeBuckets& current) {
  if (current.count < previous.count) return true;
  // A bucket at a bound both scrapes have that went down is a reset too, even if the
  // total did not (the app restarted and saw more observations than before already).
  std::size_t p = 0;
  for (const auto& [bound, cumulative] : current.points) {
    while (p < previous.points.size() && previous.points[p].first < bound) ++p;
    if (p < previous.points.size() && previous.points[p].first == bound && cumulative < previous.points[p].second) {
      return true;
    }
  }
  return false;
}

}  // namespace

HistogramInterval histogram_interval(const CumulativeBuckets* previous, const CumulativeBuckets& current) {
  HistogramInterval out;
  if (previous == nullptr || went_down(*previous, current)) {
    out.reset = previous != nullptr;
    out.buckets = bucket_counts(current.points);
    out.count = current.count;
    out.sum = current.sum;
    return out;
  }
  // Cumulative deltas at the bounds both scrapes have (both lists ascend).
  std::vector<std::pair<double, double>> deltas;
  std::size_t p = 0;
  for (const auto& [bound, cumulative] : current.points) {
    while (p < previous->points.size() && previous->points[p].first < bound) ++p;
    if (p < previous->points.size() && previous->points[p].first == bound) {
      deltas.emplace_back(bound, cumulative - previous->points[p].second);
    }
  }
  out.buckets = bucket_counts(deltas);
  out.count = current.count - previous->count;
  out.sum = current.sum - previous->sum;
  return out;
}

}  // namespace stampede::clients
