// The open model on a simulated clock: arrivals start on their schedule whatever earlier
// ones do, timed from when they were due; max_vus caps what runs and the rest is dropped;
// the end finishes or cuts off what is due; a stall makes arrivals late, and the pool grows
// for them only at the catch-up budget's pace; a VU out of a local resource sits out its
// backoff while arrivals go on. Every time exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "engine/arrival_pacer.hpp"
#include "engine/arrival_schedule.hpp"
#include "engine/catch_up_budget.hpp"
#include "engine/exhaustion_backoff.hpp"
#include "executor_fixture.hpp"

namespace stampede::engine::testing {
namespace {

LoadShape rate_shape(double rate, Nanos duration, int max_vus, Nanos graceful_stop = 30 * kSecond) {
  LoadShape s;
  s.model = LoadModel::Rate;
  s.start = rate;
  s.stages = {{duration, rate}};
  s.max_vus = max_vus;
  s.graceful_stop = graceful_stop;
  return s;
}

Nanos fixed(Nanos d, const scenario::Vu&) { return d; }

TEST(OpenModel, ArrivalsStartOnTheirScheduleAndAreTimedFromIt) {
  FakeHost host(rate_shape(100, kSecond, 10));
  host.duration = [](const scenario::Vu& vu) { return fixed(5 * kMilli, vu); };
  auto executor = make_open_model(host);
  host.run(*executor);

  ASSERT_EQ(host.iterations.size(), 100u);
  for (std::size_t i = 0; i < host.iterations.size(); ++i) {
    EXPECT_EQ(host.iterations[i].timed_from, static_cast<Nanos>(i) * 10 * kMilli) << i;
    EXPECT_EQ(host.iterations[i].started, host.iterations[i].timed_from) << i;  // never early, never late
    EXPECT_EQ(host.iterations[i].end - host.iterations[i].timed_from, 5 * kMilli);
  }
  EXPECT_EQ(host.lags, std::vector<Nanos>(100, 0));
  EXPECT_EQ(host.vus_created(), 1);  // each iteration ends before the next arrival
  EXPECT_EQ(host.dropped, 0u);
  EXPECT_EQ(host.finished_at, kSecond);
  // The timer woke early for each sparse arrival after the first (started by begin()) and
  // waited the rest on the clock.
  EXPECT_EQ(host.sim().waited(), 99 * ArrivalPacer::kDefaultEarlyWake);
}

TEST(OpenModel, ASlowServerTakesMoreVusNotLaterStarts) {
  // Iterations of 95 ms at 100/s: ten in flight, each arrival on time with a VU of its own.
  FakeHost host(rate_shape(100, kSecond, 50));
  host.duration = [](const scenario::Vu& vu) { return fixed(95 * kMilli, vu); };
  auto executor = make_open_model(host);
  host.run(*executor);
  EXPECT_EQ(host.iterations.size(), 100u);
  EXPECT_EQ(host.vus_created(), 10);
  EXPECT_EQ(*std::max_element(host.lags.begin(), host.lags.end()), 0);
  EXPECT_EQ(host.max_live(), 10);
  EXPECT_EQ(host.finished_at, 990 * kMilli + 95 * kMilli);  // the graceful stop lets the last finish
}

TEST(OpenModel, MaxVusCapsWhatRunsAndTheRestIsDropped) {
  // 25 ms iterations at 100/s with 2 VUs: arrivals 0 and 10 ms take one each, 20 ms finds
  // none free and is dropped, 30 and 40 ms take the two again... one in three is dropped.
  FakeHost host(rate_shape(100, kSecond, 2));
  host.duration = [](const scenario::Vu& vu) { return fixed(25 * kMilli, vu); };
  auto executor = make_open_model(host);
  host.run(*executor);
  EXPECT_EQ(host.vus_created(), 2);
  EXPECT_EQ(host.dropped, 33u);
  EXPECT_EQ(host.iterations.size(), 67u);
  EXPECT_EQ(host.iterations.size() + host.dropped, 100u);  // every planned arrival counted once
  for (const auto& it : host.iterations) EXPECT_EQ(it.timed_from % (30 * kMilli) == 20 * kMilli, false);
}

TEST(OpenModel, EachWorkerTakesEveryNthArrival) {
  FakeHost host(rate_shape(100, kSecond, 10), /*index=*/1, /*count=*/2);
  auto executor = make_open_model(host);
  host.run(*executor);
  ASSERT_EQ(host.iterations.size(), 50u);
  for (std::size_t k = 0; k < 50; ++k) EXPECT_EQ(host.iterations[k].timed_from, static_cast<Nanos>(2 * k + 1) * 10 * kMilli);
}

TEST(OpenModel, ARampingRateFollowsTheAreaUnderItsCurve) {
  LoadShape shape;
  shape.model = LoadModel::Rate;
  shape.start = 0;
  shape.stages = {{2 * kSecond, 1000}, {kSecond, 1000}};
  shape.max_vus = 100;
  shape.graceful_stop = kSecond;
  FakeHost host(shape);
  host.duration = [](const scenario::Vu& vu) { return fixed(kMilli, vu); };
  auto executor = make_open_model(host);
  host.run(*executor);
  const ArrivalSchedule schedule(shape);
  ASSERT_EQ(host.iterations.size(), 2000u);  // 1,000 over the ramp, 1,000 over the flat second
  for (std::size_t i = 0; i < host.iterations.size(); ++i)
    ASSERT_EQ(host.iterations[i].timed_from, *schedule.due(static_cast<long long>(i))) << i;
  // Under 4,000/s a sleep for each arrival, no more (the fixture arms a timer for each
  // iteration, and two to begin and end the run).
  EXPECT_EQ(host.sim().arms() - host.iterations.size() - 2, 2000u);
}

TEST(OpenModel, ABusyWorkerCoalescesWakeUpsIntoQuanta) {
  // 20,000 arrivals/s on one worker: one every 50 µs. The loop is woken at most once per
  // 250 µs quantum and starts what is due then: at most a quantum late, never early.
  FakeHost host(rate_shape(20000, kSecond, 100));
  host.duration = [](const scenario::Vu& vu) { return fixed(20 * kMicro, vu); };
  auto executor = make_open_model(host);
  host.run(*executor);
  EXPECT_EQ(host.iterations.size(), 20000u);
  EXPECT_EQ(host.dropped, 0u);
  EXPECT_GE(*std::min_element(host.lags.begin(), host.lags.end()), 0);
  EXPECT_LE(*std::max_element(host.lags.begin(), host.lags.end()), ArrivalPacer::kDefaultQuantum);
  // 1 s / 250 µs = 4,000 wake-ups, not 20,000 (the fixture arms a timer for each iteration,
  // and two to begin and end the run).
  EXPECT_LE(host.sim().arms() - host.iterations.size() - 2, 4001u);
}

TEST(OpenModel, TheEndLetsRunningIterationsFinishWithinTheGracefulStop) {
  FakeHost host(rate_shape(100, kSecond, 100, 25 * kMilli));
  host.duration = [](const scenario::Vu& vu) { return fixed(50 * kMilli, vu); };
  auto executor = make_open_model(host);
  host.run(*executor);
  // Those still running 25 ms after the end (started at 980 and 990 ms) are cut off.
  EXPECT_EQ(host.iterations.size(), 98u);
  ASSERT_EQ(host.interrupts.size(), 2u);
  EXPECT_EQ(host.interrupts[0].at, 1025 * kMilli);
  EXPECT_EQ(host.finished_at, 1025 * kMilli);
  EXPECT_EQ(host.dropped, 0u);
}

TEST(OpenModel, AStopAtOnceCutsOffWhatRunsAndCountsNothingAsDropped) {
  FakeHost host(rate_shape(100, 10 * kSecond, 100));
  host.duration = [](const scenario::Vu& vu) { return fixed(50 * kMilli, vu); };
  host.at(505 * kMilli, [&host] { host.stop(false); });
  auto executor = make_open_model(host);
  host.run(*executor);
  // Arrivals 0-500 ms started (51); those from 460 ms on were still running: cut off.
  EXPECT_EQ(host.iterations.size(), 46u);
  EXPECT_EQ(host.interrupts.size(), 5u);
  EXPECT_EQ(host.dropped, 0u);
  EXPECT_EQ(host.finished_at, 505 * kMilli);
}

TEST(OpenModel, ArrivalsAStalledGeneratorNeverStartedAreDroppedAtAStop) {
  // The loop is blocked from 300 ms to 900 ms, and the run is stopped at once as it wakes:
  // the arrivals due in the stall never started. Those due up to 250 ms before the stop
  // count as dropped (planned, never started); the last 250 ms' are cut off like running ones.
  FakeHost host(rate_shape(100, 10 * kSecond, 100));
  host.at(300 * kMilli + 1, [&host] {
    host.sim().wait_until(host.sim().now() + 600 * kMilli);
    host.stop(false);
  });
  auto executor = make_open_model(host);
  host.run(*executor);
  EXPECT_EQ(host.iterations.size(), 30u);  // 0..290 ms; 300 ms's was running when stopped
  EXPECT_EQ(host.interrupts.size(), 1u);
  EXPECT_EQ(host.dropped, 35u);            // 310..650 ms
}

TEST(OpenModel, AfterAStallTheLateArrivalsStartAndThePoolGrowsOnlyByTheBudget) {
  // 1,000/s with 20 ms iterations needs ~20 VUs. The loop stalls for 200 ms at 1.5 s: 200
  // arrivals fall due meanwhile. A new VU for each would grow the pool by ~200 connections;
  // they wait for VUs to come free instead, and the pool grows by the catch-up budget.
  FakeHost host(rate_shape(1000, 3 * kSecond, 10000));
  host.duration = [](const scenario::Vu& vu) { return fixed(20 * kMilli, vu); };
  host.stall(1500 * kMilli, 200 * kMilli);
  auto executor = make_open_model(host);
  host.run(*executor);

  EXPECT_EQ(host.iterations.size(), 3000u);  // every arrival started: none dropped
  EXPECT_EQ(host.dropped, 0u);
  EXPECT_LE(host.vus_created(), 21 + CatchUpBudget::kDefaultBurst + 16);
  // The stall shows: arrivals due at its start started 200 ms late.
  EXPECT_GE(*std::max_element(host.lags.begin(), host.lags.end()), 199 * kMilli);
  // And the run caught up: every arrival due from 1.8 s on started on time.
  for (const auto& it : host.iterations) {
    if (it.timed_from >= 1800 * kMilli) {
      ASSERT_EQ(it.started, it.timed_from) << it.timed_from;
    }
  }
}

TEST(OpenModel, AVuOutOfALocalResourceSitsOutItsBackoffWhileArrivalsGoOn) {
  // VU 1 fails every iteration for want of a file descriptor; arrivals never wait for it.
  FakeHost host(rate_shape(100, kSecond, 2));
  host.duration = [](const scenario::Vu& vu) { return fixed(5 * kMilli, vu); };
  host.outcome = [](const scenario::Vu& vu) {
    scenario::IterationOutcome o;
    o.ok = vu.id != 1;
    o.local_resource_exhausted = vu.id == 1;
    return o;
  };
  auto executor = make_open_model(host);
  host.run(*executor);
  EXPECT_EQ(host.iterations.size() + host.dropped, 100u);
  for (Nanos lag : host.lags) EXPECT_EQ(lag, 0);  // no arrival was delayed for the backoff
  // VU 1's iterations are spaced by at least its growing backoff's lower bound.
  std::vector<IterationRecord> first;
  for (const auto& it : host.iterations)
    if (it.vu == 1) first.push_back(it);
  ASSERT_GE(first.size(), 3u);
  for (std::size_t k = 1; k < first.size(); ++k) {
    const Nanos rested = first[k].started - first[k - 1].end;
    EXPECT_GE(rested, ExhaustionBackoff::ceiling(static_cast<int>(std::min<std::size_t>(k, 7))) / 2) << k;
  }
  EXPECT_GT(host.vus().at(1).iteration, 50);  // VU 2 took the arrivals VU 1 sat out
}

}  // namespace
}  // namespace stampede::engine::testing
