#pragma once
// The posts of the LiveView demo app (its database): three seeded posts, then whatever
// /posts/new saves, listed two per page in the order they were created. One store for the
// whole target (owned by the TargetServer), like the app's one database: a post saved through
// one worker's socket is on the pages every worker renders. Saves are rare next to renders;
// a short lock suffices.
//
// Bounded: past kMaxPosts the oldest saved posts are forgotten (the seeds stay), and a title
// or body keeps its first kMaxFieldBytes, so a load test that saves posts for hours (or
// megabyte titles) does not grow the target without end.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace stampede::target {

struct StoredPost {
  std::uint64_t id = 0;
  std::string title;
  std::string body;
};

class LiveViewPostsStore {
 public:
  static constexpr std::size_t kPerPage = 2;
  static constexpr std::size_t kMaxPosts = 10'000;
  static constexpr std::size_t kMaxFieldBytes = 1024;

  LiveViewPostsStore();

  // Page `page` (from 1); empty past the last page.
  std::vector<StoredPost> page(std::uint32_t page) const;
  std::uint64_t create(std::string title, std::string body);

 private:
  mutable std::mutex mutex_;
  std::deque<StoredPost> posts_;
  std::size_t seeds_ = 0;
  std::uint64_t next_id_ = 1;
};

}  // namespace stampede::target
