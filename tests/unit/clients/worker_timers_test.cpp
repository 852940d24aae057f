#include "clients/worker_timers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <tuple>
#include <vector>

namespace stampede::clients {
namespace {

// Records which timer fired, and when (the heap's `now`).
struct Probe {
  int id = 0;
  std::vector<int>* log = nullptr;
  WorkerTimer timer;
  static void fire(void* arg) {
    auto* p = static_cast<Probe*>(arg);
    p->log->push_back(p->id);
  }
};

TEST(TimerHeap, FiresDueTimersEarliestFirstAndNothingEarly) {
  TimerHeap heap;
  std::vector<int> log;
  std::vector<std::unique_ptr<Probe>> probes;
  const Nanos deadlines[] = {50, 10, 40, 20, 30};
  for (int i = 0; i < 5; ++i) {
    probes.push_back(std::make_unique<Probe>());
    probes.back()->id = i;
    probes.back()->log = &log;
    heap.schedule(probes.back()->timer, deadlines[i], &Probe::fire, probes.back().get());
  }
  EXPECT_EQ(*heap.earliest(), 10);
  EXPECT_EQ(heap.fire_due(9), 0u);
  EXPECT_EQ(heap.fire_due(30), 3u);
  EXPECT_EQ(log, (std::vector<int>{1, 3, 4}));
  EXPECT_FALSE(probes[1]->timer.armed());
  EXPECT_TRUE(probes[0]->timer.armed());
  EXPECT_EQ(heap.fire_due(1000), 2u);
  EXPECT_EQ(log, (std::vector<int>{1, 3, 4, 2, 0}));
  EXPECT_FALSE(heap.earliest().has_value());
}

std::unique_ptr<Probe> probe(int id, std::vector<int>& log) {
  auto p = std::make_unique<Probe>();
  p->id = id;
  p->log = &log;
  return p;
}

TEST(TimerHeap, CancelAndDestroyRemoveFromAnywhere) {
  TimerHeap heap;
  std::vector<int> log;
  std::vector<std::unique_ptr<Probe>> probes;
  for (int i = 0; i < 8; ++i) {
    probes.push_back(probe(i, log));
    heap.schedule(probes.back()->timer, 100 - i * 10, &Probe::fire, probes.back().get());  // 100, 90, ..., 30
  }
  probes[7]->timer.cancel();  // the earliest (30)
  probes[2].reset();          // destroyed while armed (80): its owner went away
  probes[4]->timer.cancel();  // one in the middle (60)
  probes[4]->timer.cancel();  // twice is harmless
  EXPECT_EQ(heap.size(), 5u);
  EXPECT_EQ(*heap.earliest(), 40);
  heap.fire_due(1000);
  EXPECT_EQ(log, (std::vector<int>{6, 5, 3, 1, 0}));
}

TEST(TimerHeap, ReArmingMovesTheDeadline) {
  TimerHeap heap;
  std::vector<int> log;
  auto a = probe(1, log);
  auto b = probe(2, log);
  heap.schedule(a->timer, 10, &Probe::fire, a.get());
  heap.schedule(b->timer, 20, &Probe::fire, b.get());
  heap.schedule(a->timer, 30, &Probe::fire, a.get());  // later now: armed once, not twice
  EXPECT_EQ(heap.size(), 2u);
  EXPECT_EQ(a->timer.deadline(), 30);
  heap.fire_due(25);
  EXPECT_EQ(log, (std::vector<int>{2}));
  heap.fire_due(30);
  EXPECT_EQ(log, (std::vector<int>{2, 1}));
}

// A heartbeat: each firing arms the next one an interval later.
struct Repeater {
  TimerHeap* heap = nullptr;
  WorkerTimer timer;
  Nanos interval = 0;
  std::vector<Nanos> fired_at;  // the deadline it fired for
  static void fire(void* arg) {
    auto* r = static_cast<Repeater*>(arg);
    r->fired_at.push_back(r->timer.deadline());
    r->heap->schedule(r->timer, r->timer.deadline() + r->interval, &Repeater::fire, r);
  }
};

TEST(TimerHeap, ACallbackMayReArmItsOwnTimerAndOthersDueRunInTheSameCall) {
  TimerHeap heap;
  Repeater r;
  r.heap = &heap;
  r.interval = 10;
  heap.schedule(r.timer, 10, &Repeater::fire, &r);
  // Late by 35: the deadlines 10, 20, 30 and 40 are all due; each runs once, in order.
  EXPECT_EQ(heap.fire_due(45), 4u);
  EXPECT_EQ(r.fired_at, (std::vector<Nanos>{10, 20, 30, 40}));
  EXPECT_EQ(*heap.earliest(), 50);
}

struct Canceller {
  WorkerTimer timer;
  WorkerTimer* victim = nullptr;
  static void fire(void* arg) { static_cast<Canceller*>(arg)->victim->cancel(); }
};

TEST(TimerHeap, ACallbackMayCancelAnotherDueTimer) {
  TimerHeap heap;
  std::vector<int> log;
  auto victim = probe(1, log);
  Canceller c;
  c.victim = &victim->timer;
  heap.schedule(c.timer, 10, &Canceller::fire, &c);
  heap.schedule(victim->timer, 11, &Probe::fire, victim.get());
  EXPECT_EQ(heap.fire_due(100), 1u);
  EXPECT_TRUE(log.empty());
}

TEST(TimerHeap, ManyTimersInRandomOrderFireSorted) {
  TimerHeap heap;
  std::vector<int> log;
  std::vector<std::unique_ptr<Probe>> probes;
  std::mt19937 rng(42);
  std::vector<std::pair<Nanos, int>> expected;
  for (int i = 0; i < 2000; ++i) {
    probes.push_back(probe(i, log));
    const Nanos at = static_cast<Nanos>(rng() % 1'000'000) * 2 + 1;  // odd: never equal to a cut below
    heap.schedule(probes.back()->timer, at, &Probe::fire, probes.back().get());
    expected.emplace_back(at, i);
  }
  // Cancel every third, then fire in a few slices.
  for (int i = 0; i < 2000; i += 3) probes[static_cast<std::size_t>(i)]->timer.cancel();
  expected.erase(std::remove_if(expected.begin(), expected.end(), [](const auto& e) { return e.second % 3 == 0; }),
                 expected.end());
  std::sort(expected.begin(), expected.end());
  for (Nanos cut : {200'000, 1'000'000, 1'500'000, 2'000'000}) heap.fire_due(cut);
  ASSERT_EQ(log.size(), expected.size());
  for (std::size_t i = 0; i < log.size(); ++i) EXPECT_EQ(log[i], expected[i].second) << i;
}

TEST(TimerHeap, TimersOutlivingTheHeapAreDisarmed) {
  std::vector<int> log;
  auto p = probe(1, log);
  {
    TimerHeap heap;
    heap.schedule(p->timer, 10, &Probe::fire, p.get());
  }
  EXPECT_FALSE(p->timer.armed());
  p->timer.cancel();  // and cancelling (or destroying) it later touches nothing
}

// Timers on a shared deadline (schedule_shared: the grid of coarse_deadline) live in one
// bucket per deadline: they fire in the order they were armed, merged with the exact ones.
TEST(TimerHeapShared, BucketsFireInArmingOrderMergedWithExactTimers) {
  TimerHeap heap;
  std::vector<int> log;
  std::vector<std::unique_ptr<Probe>> probes;
  for (int i = 0; i < 6; ++i) probes.push_back(probe(i, log));
  heap.schedule_shared(probes[0]->timer, 200, &Probe::fire, probes[0].get());
  heap.schedule_shared(probes[1]->timer, 100, &Probe::fire, probes[1].get());
  heap.schedule(probes[2]->timer, 150, &Probe::fire, probes[2].get());
  heap.schedule_shared(probes[3]->timer, 100, &Probe::fire, probes[3].get());
  heap.schedule(probes[4]->timer, 100, &Probe::fire, probes[4].get());  // an exact one at a bucket's time goes first
  heap.schedule_shared(probes[5]->timer, 200, &Probe::fire, probes[5].get());
  EXPECT_EQ(heap.size(), 6u);
  EXPECT_EQ(*heap.earliest(), 100);
  EXPECT_EQ(heap.fire_due(99), 0u);
  EXPECT_EQ(heap.fire_due(150), 4u);
  EXPECT_EQ(log, (std::vector<int>{4, 1, 3, 2}));
  EXPECT_TRUE(probes[0]->timer.armed());
  EXPECT_FALSE(probes[3]->timer.armed());
  EXPECT_EQ(*heap.earliest(), 200);
  EXPECT_EQ(heap.fire_due(1000), 2u);
  EXPECT_EQ(log, (std::vector<int>{4, 1, 3, 2, 0, 5}));
  EXPECT_EQ(heap.size(), 0u);
  EXPECT_FALSE(heap.earliest().has_value());
}

TEST(TimerHeapShared, CancelDestroyAndReArmFromAnyPlaceInABucket) {
  TimerHeap heap;
  std::vector<int> log;
  std::vector<std::unique_ptr<Probe>> probes;
  for (int i = 0; i < 6; ++i) {
    probes.push_back(probe(i, log));
    heap.schedule_shared(probes.back()->timer, 100, &Probe::fire, probes.back().get());
  }
  probes[0]->timer.cancel();  // the ring's first
  probes[5]->timer.cancel();  // its last
  probes[2].reset();          // destroyed while armed, in the middle
  probes[3]->timer.cancel();
  probes[3]->timer.cancel();  // twice is harmless
  heap.schedule(probes[4]->timer, 50, &Probe::fire, probes[4].get());         // from a bucket to the heap
  heap.schedule_shared(probes[3]->timer, 100, &Probe::fire, probes[3].get());  // back, at the end
  EXPECT_EQ(heap.size(), 3u);
  EXPECT_EQ(heap.fire_due(1000), 3u);
  EXPECT_EQ(log, (std::vector<int>{4, 1, 3}));
}

TEST(TimerHeapShared, AnEmptiedBucketNeitherFiresNorHoldsUpTheEarliest) {
  TimerHeap heap;
  std::vector<int> log;
  auto a = probe(1, log);
  auto b = probe(2, log);
  heap.schedule_shared(a->timer, 10, &Probe::fire, a.get());
  heap.schedule_shared(b->timer, 30, &Probe::fire, b.get());
  a->timer.cancel();
  EXPECT_EQ(*heap.earliest(), 30);
  heap.schedule_shared(a->timer, 10, &Probe::fire, a.get());  // the same deadline again
  EXPECT_EQ(*heap.earliest(), 10);
  EXPECT_EQ(heap.fire_due(20), 1u);
  EXPECT_EQ(log, (std::vector<int>{1}));
}

// A heartbeat on the grid: each firing arms the next one an interval later, shared.
struct SharedRepeater {
  TimerHeap* heap = nullptr;
  WorkerTimer timer;
  std::vector<Nanos>* fired_at = nullptr;
  static void fire(void* arg) {
    auto* r = static_cast<SharedRepeater*>(arg);
    r->fired_at->push_back(r->timer.deadline());
    r->heap->schedule_shared(r->timer, r->timer.deadline() + 10, &SharedRepeater::fire, r);
  }
};

TEST(TimerHeapShared, CallbacksReArmingIntoDueBucketsRunInTheSameCall) {
  TimerHeap heap;
  std::vector<Nanos> fired;
  SharedRepeater r[2];
  for (auto& one : r) {
    one.heap = &heap;
    one.fired_at = &fired;
    heap.schedule_shared(one.timer, 10, &SharedRepeater::fire, &one);
  }
  EXPECT_EQ(heap.fire_due(35), 6u);  // 10, 20, 30 for each, in deadline order
  EXPECT_EQ(fired, (std::vector<Nanos>{10, 10, 20, 20, 30, 30}));
  EXPECT_EQ(*heap.earliest(), 40);
}

TEST(TimerHeapShared, ManyTimersOnAGridAndExactOnesFireSorted) {
  TimerHeap heap;
  std::vector<int> log;
  std::vector<std::unique_ptr<Probe>> probes;
  std::mt19937 rng(7);
  std::vector<std::tuple<Nanos, int, int>> expected;  // deadline, heap before buckets, arming order
  for (int i = 0; i < 3000; ++i) {
    probes.push_back(probe(i, log));
    const bool shared = i % 2 == 0;
    // Grid points are even, exact deadlines odd and distinct (7919 is prime to 50,000).
    const Nanos at = shared ? static_cast<Nanos>(rng() % 50) * 1000 : static_cast<Nanos>((i * 7919) % 50'000) * 2 + 1;
    if (shared) {
      heap.schedule_shared(probes.back()->timer, at, &Probe::fire, probes.back().get());
    } else {
      heap.schedule(probes.back()->timer, at, &Probe::fire, probes.back().get());
    }
    expected.emplace_back(at, shared ? 1 : 0, i);
  }
  for (int i = 0; i < 3000; i += 7) probes[static_cast<std::size_t>(i)]->timer.cancel();
  expected.erase(std::remove_if(expected.begin(), expected.end(), [](const auto& e) { return std::get<2>(e) % 7 == 0; }),
                 expected.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(heap.size(), expected.size());
  for (Nanos cut : {10'000, 25'000, 25'001, 100'000}) heap.fire_due(cut);
  ASSERT_EQ(log.size(), expected.size());
  for (std::size_t i = 0; i < log.size(); ++i) EXPECT_EQ(log[i], std::get<2>(expected[i])) << i;
}

TEST(TimerHeapShared, TimersOutlivingTheHeapAreDisarmed) {
  std::vector<int> log;
  auto a = probe(1, log);
  auto b = probe(2, log);
  {
    TimerHeap heap;
    heap.schedule_shared(a->timer, 10, &Probe::fire, a.get());
    heap.schedule_shared(b->timer, 10, &Probe::fire, b.get());
  }
  EXPECT_FALSE(a->timer.armed());
  a->timer.cancel();
  b.reset();  // destroying one later touches nothing
  EXPECT_TRUE(log.empty());
}

TEST(WorkerTimers, FireOnTheLoopAtTheirDeadlinesInOrder) {
  boost::asio::io_context io;
  SteadyClock clock;
  WorkerTimers timers(io, clock);
  struct Rec {
    WorkerTimer timer;
    const Clock* clock = nullptr;
    std::vector<std::pair<int, Nanos>>* log = nullptr;
    int id = 0;
    static void fire(void* arg) {
      auto* r = static_cast<Rec*>(arg);
      r->log->emplace_back(r->id, r->clock->now());
    }
  };
  std::vector<std::pair<int, Nanos>> log;
  Rec recs[3];
  const Nanos t0 = clock.now();
  // Armed latest first, so each new one moves the loop's timer earlier.
  for (int i = 2; i >= 0; --i) {
    recs[i].clock = &clock;
    recs[i].log = &log;
    recs[i].id = i;
    timers.schedule(recs[i].timer, t0 + (i + 1) * 2 * kMilli, &Rec::fire, &recs[i]);
  }
  EXPECT_EQ(timers.armed(), 3u);
  io.run_for(std::chrono::seconds(2));  // returns once nothing is armed
  ASSERT_EQ(log.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(log[static_cast<std::size_t>(i)].first, i);
    EXPECT_GE(log[static_cast<std::size_t>(i)].second, t0 + (i + 1) * 2 * kMilli);  // never early
  }
  EXPECT_EQ(timers.armed(), 0u);
}

// Coarse deadlines: never early, at most 1% (and 100 ms) late, and on one grid, so timers
// armed at different moments for the same interval share a deadline.
TEST(CoarseDeadline, NeverEarlyAtMostOnePercentLateAndShared) {
  constexpr Nanos kThirty = 30 * kSecond;
  for (const Nanos now : {Nanos{0}, Nanos{123'456'789}, 5 * kSecond + 1, Nanos{987'654'321'012}}) {
    const Nanos at = coarse_deadline(now, kThirty);
    EXPECT_GE(at, now + kThirty);
    EXPECT_LT(at, now + kThirty + 100 * kMilli);
    EXPECT_EQ(at % (100 * kMilli), 0);
  }
  // Two sockets whose heartbeats are 40 ms apart fire at the same moment.
  EXPECT_EQ(coarse_deadline(10 * kSecond + 10 * kMilli, kThirty), coarse_deadline(10 * kSecond + 50 * kMilli, kThirty));
  // Short intervals get a fine grid: 150 ms is at most 1.5 ms late; 50 µs at most 1 µs.
  const Nanos short_at = coarse_deadline(7 * kMilli + 3, 150 * kMilli);
  EXPECT_GE(short_at, 157 * kMilli + 3);
  EXPECT_LT(short_at, 157 * kMilli + 3 + 1'500 * kMicro);
  EXPECT_LE(coarse_deadline(11, 50 * kMicro) - (11 + 50 * kMicro), kMicro);
  // A long interval's lateness is capped at the 100 ms grid.
  EXPECT_LT(coarse_deadline(1, 3600 * kSecond) - (1 + 3600 * kSecond), 100 * kMilli);
}

// A worker's grid is shifted by its phase: the same guarantees, on points phase + k x grid.
TEST(CoarseDeadline, AWorkersPhaseShiftsItsGridPoints) {
  constexpr Nanos kThirty = 30 * kSecond;
  constexpr Nanos kPhase = 37 * kMilli + 500 * kMicro;
  for (const Nanos now : {Nanos{0}, Nanos{123'456'789}, 5 * kSecond + 1, Nanos{987'654'321'012}}) {
    const Nanos at = coarse_deadline(now, kThirty, kPhase);
    EXPECT_GE(at, now + kThirty);
    EXPECT_LT(at, now + kThirty + 100 * kMilli);
    EXPECT_EQ((at - kPhase) % (100 * kMilli), 0);
  }
  // 40 ms apart, both due by the point at 40.1375 s.
  EXPECT_EQ(coarse_deadline(10 * kSecond + 40 * kMilli, kThirty, kPhase), 40 * kSecond + 137'500 * kMicro);
  EXPECT_EQ(coarse_deadline(10 * kSecond + 80 * kMilli, kThirty, kPhase), 40 * kSecond + 137'500 * kMicro);
  // Exactly on a shifted point: not moved.
  EXPECT_EQ(coarse_deadline(kPhase, kThirty, kPhase), kPhase + kThirty);
}

// The run's workers' phases spread evenly over the 100 ms grid, each different.
TEST(GridPhase, TheRunsWorkersSpreadOverTheGrid) {
  EXPECT_EQ(grid_phase(0, 1), 0);
  std::vector<Nanos> phases;
  for (int i = 0; i < 56; ++i) phases.push_back(grid_phase(i, 56));
  for (std::size_t i = 0; i < phases.size(); ++i) {
    EXPECT_GE(phases[i], 0);
    EXPECT_LT(phases[i], 100 * kMilli);
    if (i > 0) {
      EXPECT_GT(phases[i] - phases[i - 1], 1700 * kMicro);  // 100 ms / 56 = 1.79 ms apart
    }
  }
  EXPECT_EQ(grid_phase(1, 2), 50 * kMilli);
}

// A held socket's heartbeat (schedule_coarse_after) goes out on its worker's shifted grid.
TEST(WorkerTimers, ACoarseTimerFiresOnTheWorkersShiftedGrid) {
  boost::asio::io_context io;
  ManualClock clock(10 * kSecond + 3 * kMilli);
  WorkerTimers timers(io, clock, grid_phase(3, 4));  // 75 ms
  WorkerTimer t;
  timers.schedule_coarse_after(t, 30 * kSecond, [](void*) {}, nullptr);
  EXPECT_EQ(t.deadline(), 40 * kSecond + 75 * kMilli);
}

}  // namespace
}  // namespace stampede::clients
