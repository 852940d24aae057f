#pragma once
// The arithmetic of classic Prometheus histograms between two scrapes: cumulative bucket
// counters (`x_bucket{le="0.1"}`: observations <= 0.1 since the process started) in, the
// observations of the interval per bucket out, non-cumulative and with both bounds, so that
// they can be recorded into a histogram of our own and give p50/p95/p99.
#include <utility>
#include <vector>

namespace stampede::clients {

// A bucket and how many observations fell in it: lower < value <= upper.
struct BucketDelta {
  double lower = 0;
  double upper = 0;
  double count = 0;

  bool operator==(const BucketDelta&) const = default;
};

// One series of a histogram as one scrape shows it.
struct CumulativeBuckets {
  // (upper bound, cumulative count), ascending by bound, the last bound +Inf.
  std::vector<std::pair<double, double>> points;
  double sum = 0;
  double count = 0;
};

// The counts of `current` bucket by bucket: a gauge histogram's, or a counter histogram's
// since its start. The first bucket's lower bound is 0 when its upper bound is not
// negative (Prometheus' histogram_quantile assumes the same), -Inf otherwise. A count that
// decreases from one bound to the next (buckets read at slightly different moments) gives
// 0, not a negative bucket. Empty buckets are left out.
std::vector<BucketDelta> bucket_counts(const std::vector<std::pair<double, double>>& points);

struct HistogramInterval {
  std::vector<BucketDelta> buckets;  // non-empty buckets only
  double count = 0;                  // observations in the interval
  double sum = 0;                    // their sum
  bool reset = false;                // the counters went down: counted from zero, as rate() does
};

// What was observed between `previous` and `current`. No previous (the series is new since
// the last scrape): all of `current`. Counters that went down (the app restarted): all of
// `current`, as Prometheus' rate() takes a reset. Bucket bounds that changed (the app came
// back with other buckets but not yet fewer observations): the deltas at the bounds both
// scrapes have, which are exact there (+Inf is always one).
HistogramInterval histogram_interval(const CumulativeBuckets* previous, const CumulativeBuckets& current);

}  // namespace stampede::clients
