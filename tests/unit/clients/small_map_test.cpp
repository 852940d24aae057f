#include "clients/small_map.hpp"

#include <gtest/gtest.h>

#include <string>

namespace stampede::clients {
namespace {

TEST(SmallMap, FindsInsertsAndErasesByKey) {
  SmallMap<std::string, int> m;
  EXPECT_TRUE(m.empty());
  m.emplace("1", 10);
  m.emplace("2", 20);
  EXPECT_EQ(m.emplace("1", 99)->second, 10);  // an existing key is kept, like std::map
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.find(std::string("2"))->second, 20);
  EXPECT_EQ(m.find(std::string("3")), m.end());
  m["3"] = 30;
  EXPECT_EQ(m.at("3"), 30);
  EXPECT_THROW(m.at("4"), std::out_of_range);
  m.erase(std::string("1"));
  m.erase(std::string("nope"));
  EXPECT_EQ(m.size(), 2u);
  int sum = 0;
  for (const auto& [key, value] : m) sum += value;
  EXPECT_EQ(sum, 50);
}

TEST(SmallMap, GivesItsMemoryBackWhenEmpty) {
  // An idle connection's maps must not keep capacity from the requests it made.
  SmallMap<std::string, int> m;
  m.emplace("1", 1);
  m.emplace("2", 2);
  m.erase(m.find(std::string("1")));
  EXPECT_GE(m.capacity(), 1u);
  m.erase(m.find(std::string("2")));
  EXPECT_EQ(m.capacity(), 0u);
  m.emplace("3", 3);
  m.clear();
  EXPECT_EQ(m.capacity(), 0u);
}

}  // namespace
}  // namespace stampede::clients
