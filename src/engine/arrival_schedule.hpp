#pragma once
// Open model: when arrival number i (0-based) is due, in ns since the run started.
//
// The rate r(t) is piecewise linear (stages). The number of arrivals due by time t is the
// area under the curve, A(t) = integral of r from 0 to t, and arrival i is due at the first t
// with A(t) >= i. Inside a stage starting at s0 with rate a and slope b (per second per
// second), A(s0 + x) = A(s0) + a*x + b*x^2/2, so for the remaining area d = i - A(s0):
//     x = 2d / (a + sqrt(a^2 + 2*b*d))
// which is the stable form of the quadratic's root (no cancellation when b is tiny, and it
// reduces to d/a for a flat stage). Every due time is computed from the start of the run,
// never from the previous arrival, so rounding never accumulates into drift.
#include <optional>
#include <vector>

#include "common/load_shape.hpp"

namespace stampede::engine {

class ArrivalSchedule {
 public:
  explicit ArrivalSchedule(const LoadShape& shape);

  // Due time of arrival i, or nullopt when it falls at or after the end of the last stage.
  std::optional<Nanos> due(long long i) const;
  // Arrivals due before t (the area under the curve, floored): the expected count.
  double arrivals_before(Nanos t) const;
  Nanos end() const { return end_; }

 private:
  struct Segment {
    Nanos start;
    Nanos duration;
    double rate;   // per second at the segment start
    double slope;  // per second per second
    double area_before;
  };
  std::vector<Segment> segments_;
  Nanos end_ = 0;
};

}  // namespace stampede::engine
