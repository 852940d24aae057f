#pragma once
// How a run's load is split over ranks. Every worker thread of every rank is one segment
// of the run (engine::RunPlan::first_segment / total_segments): the engine gives segment
// i of n its share_of() of the VUs, of max_vus and every n-th arrival, so the totals are
// exact however many ranks and threads there are, and remainders go one each to the
// lowest segments (rank 0's first threads, then rank 1's...).
#include <vector>

#include "common/load_shape.hpp"

namespace stampede::distributed {

// Worker threads for one rank: `requested` (what one process would run: --threads, or its
// default as engine::worker_threads resolves it), but no more than the rank could ever give
// a VU to, with the load spread over `ranks` ranks; by rate, no more threads in the whole
// run than max_vus. The same on every rank.
int rank_threads(int requested, const LoadShape& shape, int ranks);

struct Segments {
  int first = 0;  // this rank's first segment
  int total = 0;  // segments of the whole run
};
// `threads[r]` is rank r's thread count.
Segments segments_of(const std::vector<int>& threads, int rank);

}  // namespace stampede::distributed
