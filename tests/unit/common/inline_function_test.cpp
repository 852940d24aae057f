// InlineFunction (common/inline_function.hpp): a move-only callable that keeps its captures
// inside itself. What its users rely on: it calls through, a move carries the captures
// along (destroying each exactly once), a mutable callable keeps its state, and an empty
// one says so.
#include "common/inline_function.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace stampede {
namespace {

TEST(InlineFunction, CallsWithArgumentsAndReturnsTheResult) {
  std::string prefix = "sent ";  // not const: a const capture cannot be moved, only copied
  InlineFunction<std::string(int, const std::string&), 48> f = [prefix](int n, const std::string& unit) {
    return prefix + std::to_string(n) + unit;
  };
  ASSERT_TRUE(f);
  EXPECT_EQ(f(12, " bytes"), "sent 12 bytes");
}

TEST(InlineFunction, MovesCarryTheCapturesAndDestroyThemOnce) {
  auto token = std::make_shared<int>(7);
  std::weak_ptr<int> watch = token;
  InlineFunction<int(), 32> a = [token = std::move(token)] { return *token; };
  EXPECT_EQ(watch.use_count(), 1);

  InlineFunction<int(), 32> b = std::move(a);
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): a moved-from one is empty
  EXPECT_EQ(b(), 7);
  EXPECT_EQ(watch.use_count(), 1);

  InlineFunction<int(), 32> c;
  c = std::move(b);
  EXPECT_EQ(c(), 7);
  EXPECT_EQ(watch.use_count(), 1);

  c = nullptr;
  EXPECT_FALSE(c);
  EXPECT_TRUE(watch.expired());
}

TEST(InlineFunction, AssigningOverOneDestroysWhatItHeld) {
  auto first = std::make_shared<int>(1);
  std::weak_ptr<int> watch = first;
  InlineFunction<int(), 32> f = [first = std::move(first)] { return *first; };
  f = [] { return 2; };
  EXPECT_TRUE(watch.expired());
  EXPECT_EQ(f(), 2);
}

TEST(InlineFunction, AMutableCallableKeepsItsStateAcrossCallsAndMoves) {
  InlineFunction<int(), 16> counter = [n = 0]() mutable { return ++n; };
  EXPECT_EQ(counter(), 1);
  EXPECT_EQ(counter(), 2);
  InlineFunction<int(), 16> moved = std::move(counter);
  EXPECT_EQ(moved(), 3);
}

TEST(InlineFunction, AnEmptyOneThrowsLikeStdFunction) {
  const InlineFunction<void(), 16> empty;
  EXPECT_FALSE(empty);
  EXPECT_THROW(empty(), std::bad_function_call);
}

TEST(InlineFunction, HoldsAMoveOnlyCallable) {
  auto owned = std::make_unique<int>(41);
  InlineFunction<int(int), 16> f = [owned = std::move(owned)](int add) { return *owned + add; };
  EXPECT_EQ(f(1), 42);
}

}  // namespace
}  // namespace stampede
