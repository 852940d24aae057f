#include "engine/arrival_schedule.hpp"

#include <cmath>

namespace stampede::engine {

ArrivalSchedule::ArrivalSchedule(const LoadShape& shape) {
  double rate = shape.start;
  double area = 0;
  Nanos t = 0;
  for (const Stage& s : shape.stages) {
    if (s.duration > 0) {
      const double secs = static_cast<double>(s.duration) / kSecond;
      const double slope = (s.target - rate) / secs;
      segments_.push_back({t, s.duration, rate, slope, area});
      area += rate * secs + slope * secs * secs / 2;
      t += s.duration;
    }
    rate = s.target;
  }
  end_ = t;
}

std::optional<Nanos> ArrivalSchedule::due(long long i) const {
  const double wanted = static_cast<double>(i);
  for (const Segment& seg : segments_) {
    const double secs = static_cast<double>(seg.duration) / kSecond;
    const double seg_area = seg.rate * secs + seg.slope * secs * secs / 2;
    // Strictly inside this segment (arrivals exactly at the segment's end belong to the next).
    if (wanted < seg.area_before + seg_area) {
      const double d = wanted - seg.area_before;
      if (d <= 0) return seg.start;
      const double root = std::sqrt(std::max(0.0, seg.rate * seg.rate + 2 * seg.slope * d));
      const double denom = seg.rate + root;
      if (denom <= 0) return std::nullopt;  // zero rate and zero slope: nothing more arrives here
      const double x = 2 * d / denom;
      const auto offset = static_cast<Nanos>(std::llround(x * kSecond));
      return seg.start + std::min(offset, seg.duration - 1);
    }
  }
  return std::nullopt;
}

double ArrivalSchedule::arrivals_before(Nanos t) const {
  double area = 0;
  for (const Segment& seg : segments_) {
    const Nanos in = std::min(std::max<Nanos>(t - seg.start, 0), seg.duration);
    const double secs = static_cast<double>(in) / kSecond;
    area = seg.area_before + seg.rate * secs + seg.slope * secs * secs / 2;
    if (t < seg.start + seg.duration) break;
  }
  return area;
}

}  // namespace stampede::engine
