#include "distributed/rank_split.hpp"

#include <algorithm>
#include <cmath>

namespace stampede::distributed {

int rank_threads(int requested, const LoadShape& shape, int ranks) {
  const int threads = std::max(1, requested);
  long long most = shape.model == LoadModel::Rate ? shape.max_vus : static_cast<long long>(std::ceil(shape.start));
  for (const Stage& st : shape.stages)
    if (shape.model == LoadModel::Vus) most = std::max(most, static_cast<long long>(std::ceil(st.target)));
  // By VUs, a thread left without a VU only idles: round up. By rate, every thread takes
  // every n-th arrival, and one that can have no VU would drop its share of them: round
  // down, so the run has no more threads than max_vus (fewer max_vus than ranks is refused
  // before the run: cli/distributed_run.cpp).
  const int n = std::max(1, ranks);
  const long long per_rank = shape.model == LoadModel::Rate ? most / n : (most + n - 1) / n;
  return static_cast<int>(std::max<long long>(1, std::min<long long>(threads, per_rank)));
}

Segments segments_of(const std::vector<int>& threads, int rank) {
  Segments s;
  for (std::size_t r = 0; r < threads.size(); ++r) {
    if (static_cast<int>(r) < rank) s.first += threads[r];
    s.total += threads[r];
  }
  return s;
}

}  // namespace stampede::distributed
