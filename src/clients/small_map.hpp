#pragma once
// A map for the handful of entries a connection keeps (a Phoenix socket's pending requests
// by ref, its channels by topic): a vector searched from the front, which gives its memory
// back when it empties.
//
// Why not std::unordered_map: an idle socket with one joined channel kept ~56 bytes of map,
// ~100 bytes of buckets that stay allocated once used, and a node per entry: about 300 bytes
// per socket for two maps, at tens of thousands of sockets per process. A Lua VU waits for
// one reply at a time, so these maps hold one or two entries and a linear search is the
// fastest lookup there is.
//
// Iterators and references are invalidated by insertion and erasure, as with a vector.
#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

namespace stampede::clients {

template <typename Key, typename Value>
class SmallMap {
 public:
  using value_type = std::pair<Key, Value>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }
  std::size_t capacity() const { return items_.capacity(); }

  template <typename K>
  iterator find(const K& key) {
    return std::find_if(items_.begin(), items_.end(), [&](const value_type& item) { return item.first == key; });
  }
  template <typename K>
  const_iterator find(const K& key) const {
    return std::find_if(items_.begin(), items_.end(), [&](const value_type& item) { return item.first == key; });
  }

  // Inserts unless the key is there (like std::map::emplace); returns the entry.
  iterator emplace(Key key, Value value) {
    auto it = find(key);
    if (it != end()) return it;
    items_.emplace_back(std::move(key), std::move(value));
    return std::prev(items_.end());
  }

  Value& operator[](const Key& key) {
    auto it = find(key);
    if (it != end()) return it->second;
    items_.emplace_back(key, Value{});
    return items_.back().second;
  }

  Value& at(const Key& key) { return find_or_throw(key)->second; }

  void erase(iterator it) {
    items_.erase(it);
    if (items_.empty()) release();
  }
  template <typename K>
  void erase(const K& key) {
    auto it = find(key);
    if (it != end()) erase(it);
  }

  void clear() {
    items_.clear();
    release();
  }

 private:
  iterator find_or_throw(const Key& key) {
    auto it = find(key);
    if (it == end()) throw std::out_of_range("SmallMap::at: no such key");
    return it;
  }
  // An idle connection keeps no entries and no capacity.
  void release() { std::vector<value_type>().swap(items_); }

  std::vector<value_type> items_;
};

}  // namespace stampede::clients
