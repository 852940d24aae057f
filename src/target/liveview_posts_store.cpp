#include "target/liveview_posts_store.hpp"

#include <utility>

namespace stampede::target {
namespace {

// The first `limit` bytes, cut at a character boundary (the text is valid UTF-8).
std::string bounded(std::string text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  text.resize(end);
  return text;
}

}  // namespace

LiveViewPostsStore::LiveViewPostsStore() {
  // What the recorded app was seeded with.
  create("Hello Phoenix", "First post");
  create("Channels", "Second post");
  create("LiveView", "Third post");
  seeds_ = posts_.size();
}

std::vector<StoredPost> LiveViewPostsStore::page(std::uint32_t page) const {
  std::vector<StoredPost> out;
  if (page == 0) return out;
  const std::lock_guard lock(mutex_);
  const auto first = static_cast<std::size_t>(page - 1) * kPerPage;
  for (std::size_t i = first; i < posts_.size() && i < first + kPerPage; ++i) out.push_back(posts_[i]);
  return out;
}

std::uint64_t LiveViewPostsStore::create(std::string title, std::string body) {
  const std::lock_guard lock(mutex_);
  const auto id = next_id_++;
  posts_.push_back(StoredPost{id, bounded(std::move(title), kMaxFieldBytes), bounded(std::move(body), kMaxFieldBytes)});
  if (posts_.size() > kMaxPosts) posts_.erase(posts_.begin() + static_cast<std::ptrdiff_t>(seeds_));
  return id;
}

}  // namespace stampede::target
