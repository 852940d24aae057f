// The closed model on a simulated clock: VUs follow the stages, each starts its next
// iteration as the last ends, ramp-downs retire the newest VUs with their own graceful stop,
// a VU that ran out of a local resource rests by ExhaustionBackoff, and a count of
// iterations ends the run when it is used up. Every time exact: a slow ramp's VUs on the
// worker's grid, a fast one's on the line.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "clients/worker_timers.hpp"
#include "engine/exhaustion_backoff.hpp"
#include "executor_fixture.hpp"

namespace stampede::engine::testing {
namespace {

LoadShape vus_shape(double start, std::vector<Stage> stages, Nanos graceful_stop = 30 * kSecond) {
  LoadShape s;
  s.model = LoadModel::Vus;
  s.start = start;
  s.stages = std::move(stages);
  s.graceful_stop = graceful_stop;
  return s;
}

std::map<int, std::vector<IterationRecord>> by_vu(const std::vector<IterationRecord>& all) {
  std::map<int, std::vector<IterationRecord>> out;
  for (const auto& r : all) out[r.vu].push_back(r);
  return out;
}

TEST(ClosedModel, ConstantVusRunIterationsBackToBack) {
  FakeHost host(vus_shape(4, {{kSecond, 4}}));
  host.duration = [](const scenario::Vu&) { return 100 * kMilli; };
  auto executor = make_closed_model(host);
  host.run(*executor);

  ASSERT_EQ(host.iterations.size(), 40u);  // 4 VUs x 10 iterations of 100 ms in 1 s
  for (const auto& [vu, its] : by_vu(host.iterations)) {
    ASSERT_EQ(its.size(), 10u) << "VU " << vu;
    for (std::size_t k = 0; k < its.size(); ++k) {
      EXPECT_EQ(its[k].timed_from, static_cast<Nanos>(k) * 100 * kMilli);  // the next starts as the last ends
      EXPECT_EQ(its[k].end - its[k].timed_from, 100 * kMilli);
    }
  }
  EXPECT_EQ(host.vus_created(), 4);
  EXPECT_EQ(host.max_live(), 4);
  EXPECT_TRUE(host.interrupts.empty());
  ASSERT_TRUE(host.finished);
  EXPECT_EQ(host.finished_at, kSecond);  // the last iterations end with the run
}

TEST(ClosedModel, ARampAddsEachVuWhenTheLineReachesIt) {
  // 0 -> 10 VUs over 10 s: VU k joins at exactly k seconds (the line, truncated).
  FakeHost host(vus_shape(0, {{10 * kSecond, 10}}));
  host.duration = [](const scenario::Vu&) { return 300 * kMilli; };
  auto executor = make_closed_model(host);
  host.run(*executor);
  ASSERT_EQ(host.vus_created(), 9);  // the 10th is due at the run's end, when nothing starts
  std::map<int, Nanos> first_start;
  for (const auto& r : host.iterations)
    if (!first_start.count(r.vu)) first_start[r.vu] = r.timed_from;
  for (int k = 1; k <= 9; ++k) EXPECT_EQ(first_start.at(k), k * kSecond) << "VU " << k;
}

TEST(ClosedModel, ARampDownRetiresTheNewestFirstEachWithItsOwnGracefulStop) {
  // 4 VUs for 2 s, then down to 0 over 2 s (one less at 2.5, 3.0, 3.5 and 4.0 s); each
  // iteration takes 1.4 s; a retired VU may finish its iteration within 0.5 s.
  FakeHost host(vus_shape(4, {{2 * kSecond, 4}, {2 * kSecond, 0}}, 500 * kMilli));
  host.duration = [](const scenario::Vu&) { return 1400 * kMilli; };
  auto executor = make_closed_model(host);
  host.run(*executor);

  // VU 4, retired at 2.5 s, finishes the iteration it ends at 2.8 s: not interrupted. VU 3,
  // retired at 3.0 s in an iteration ending at 4.2 s, is interrupted at 3.5 s; VU 2,
  // retired at 3.5 s, at 4.0 s. VU 1, retired by the run's end at 4.0 s, ends at 4.2 s.
  ASSERT_EQ(host.interrupts.size(), 2u);
  EXPECT_EQ(host.interrupts[0].vu, 3);
  EXPECT_EQ(host.interrupts[0].at, 3500 * kMilli);
  EXPECT_EQ(host.interrupts[1].vu, 2);
  EXPECT_EQ(host.interrupts[1].at, 4000 * kMilli);
  const auto its = by_vu(host.iterations);
  EXPECT_EQ(its.at(1).size(), 3u);
  EXPECT_EQ(its.at(2).size(), 2u);
  EXPECT_EQ(its.at(3).size(), 2u);
  ASSERT_EQ(its.at(4).size(), 2u);
  EXPECT_EQ(its.at(4).back().end, 2800 * kMilli);
  EXPECT_EQ(its.at(1).back().end, 4200 * kMilli);
  ASSERT_TRUE(host.finished);
  EXPECT_EQ(host.finished_at, 4200 * kMilli);
}

TEST(ClosedModel, AStopAtOnceInterruptsEveryVuThen) {
  FakeHost host(vus_shape(3, {{10 * kSecond, 3}}));
  host.duration = [](const scenario::Vu&) { return 700 * kMilli; };
  host.at(1 * kSecond, [&host] { host.stop(true); });   // Ctrl-C: running iterations may finish
  host.at(1200 * kMilli, [&host] { host.stop(false); });  // again: now
  auto executor = make_closed_model(host);
  host.run(*executor);
  // Each VU's second iteration (0.7-1.4 s) is cut off at 1.2 s; none starts after 1 s.
  EXPECT_EQ(host.iterations.size(), 3u);
  ASSERT_EQ(host.interrupts.size(), 3u);
  for (const auto& i : host.interrupts) EXPECT_EQ(i.at, 1200 * kMilli);
  EXPECT_EQ(host.finished_at, 1200 * kMilli);
}

TEST(ClosedModel, AWorkerRunsItsShareOfTheVus) {
  // 10 VUs over 3 workers: 4, 3, 3.
  for (int index = 0; index < 3; ++index) {
    FakeHost host(vus_shape(10, {{kSecond, 10}}), index, 3);
    auto executor = make_closed_model(host);
    host.run(*executor);
    EXPECT_EQ(host.vus_created(), index == 0 ? 4 : 3) << "worker " << index;
  }
}

// When a VU of a ramp starts: the first point of the worker's grid at or after the line's
// time `line` (since the start), as the closed model starts a slow ramp's VUs.
Nanos on_grid(const FakeHost& host, Nanos line) {
  const Nanos phase = clients::grid_phase(host.settings().index, host.settings().count);
  return clients::grid_point_at_or_after(host.start() + line, phase) - host.start();
}

// Each VU's start (since the run's start; one iteration each), earliest first.
std::vector<Nanos> first_starts(const FakeHost& host) {
  std::vector<Nanos> starts;
  for (const auto& vu : host.vus()) starts.push_back(host.started_at(vu));
  std::sort(starts.begin(), starts.end());
  return starts;
}

TEST(ClosedModel, AWorkerWakesForItsOwnShareOfARampNotEveryVu) {
  // One of 56 workers (a rank of the million-user run) while 5,600 VUs ramp in over 100 s:
  // it adds its 100 VUs, each when the total reaches it, with ~100 wake-ups, not 5,600.
  const int index = 5;
  FakeHost host(vus_shape(0, {{100 * kSecond, 5600}, {10 * kSecond, 5600}}), index, 56);
  host.duration = [](const scenario::Vu&) { return 200 * kSecond; };  // one iteration each, past the end
  auto executor = make_closed_model(host);
  host.run(*executor);
  ASSERT_EQ(host.vus_created(), 100);
  const std::vector<Nanos> starts = first_starts(host);
  // This worker's k-th VU (from 1) comes with the total's (k - 1) * 56 + index + 1-th, at
  // ceil(that * 100 s / 5,600) (the line, truncated), on the worker's next grid point.
  for (long long k = 1; k <= 100; ++k) {
    const long long unit = (k - 1) * 56 + index + 1;
    EXPECT_EQ(starts[static_cast<std::size_t>(k - 1)], on_grid(host, (unit * 100 * kSecond + 5599) / 5600)) << "VU " << k;
  }
  // Arms: one iteration per VU, the fixture's begin and end, the change timer's ~100.
  EXPECT_LE(host.sim().arms(), 100u + 2u + 102u);
}

TEST(ClosedModel, ASlowRampStartsItsVusTogetherOnTheWorkersGrid) {
  // Worker 1 of 4 (its grid: multiples of 100 ms past 25 ms) while 1,200 VUs ramp in over
  // 10 s: its 300 come at 30 a second, three for each point of its grid. Each starts at the
  // first grid point at or after the line reaches it, never before, at most 100 ms after.
  FakeHost host(vus_shape(0, {{10 * kSecond, 1200}, {kSecond, 1200}}), 1, 4);
  host.duration = [](const scenario::Vu&) { return 200 * kSecond; };
  auto executor = make_closed_model(host);
  host.run(*executor);
  ASSERT_EQ(host.vus_created(), 300);
  const std::vector<Nanos> starts = first_starts(host);
  for (long long k = 1; k <= 300; ++k) {
    const long long unit = (k - 1) * 4 + 1 + 1;  // the total's unit-th VU is this worker's k-th
    const Nanos line = (unit * 10 * kSecond + 1199) / 1200;
    const Nanos start = starts[static_cast<std::size_t>(k - 1)];
    EXPECT_EQ(start, on_grid(host, line)) << "VU " << k;
    EXPECT_GE(start, line) << "VU " << k;
    EXPECT_LT(start - line, clients::kGridStep) << "VU " << k;
    EXPECT_EQ((host.start() + start - 25 * kMilli) % clients::kGridStep, 0) << "VU " << k;
  }
  // One wake-up per grid point of the ramp, not one per VU: the change timer's ~100 arms.
  EXPECT_LE(host.sim().arms(), 300u + 2u + 102u);
}

TEST(ClosedModel, AFastRampKeepsTheLinesExactTimes) {
  // 1,000 VUs a second on one worker: a grid point would start 100 at once, more than
  // kGridBatch, so each VU starts when the line reaches it (at k ms).
  FakeHost host(vus_shape(0, {{6 * kSecond, 6000}, {kSecond, 6000}}));
  host.duration = [](const scenario::Vu&) { return 200 * kSecond; };
  auto executor = make_closed_model(host);
  host.run(*executor);
  ASSERT_EQ(host.vus_created(), 6000);
  const std::vector<Nanos> starts = first_starts(host);
  for (long long k = 1; k <= 6000; ++k) ASSERT_EQ(starts[static_cast<std::size_t>(k - 1)], k * kMilli) << "VU " << k;
}

TEST(ClosedModel, ASpikeShorterThanTheGridStepStillHappens) {
  // 0 -> 5 VUs in 10 ms and back to 0 in 10 ms: by the next grid point the spike is over, so
  // its VUs start at the line's exact times (2, 4, ... 10 ms past 1 s) instead of never.
  FakeHost host(vus_shape(0, {{kSecond, 0}, {10 * kMilli, 5}, {10 * kMilli, 0}, {kSecond, 0}}));
  host.duration = [](const scenario::Vu&) { return 5 * kMilli; };
  auto executor = make_closed_model(host);
  host.run(*executor);
  ASSERT_EQ(host.vus_created(), 5);
  std::map<int, Nanos> first_start;
  for (const auto& r : host.iterations)
    if (!first_start.count(r.vu)) first_start[r.vu] = r.timed_from;
  for (int k = 1; k <= 5; ++k) EXPECT_EQ(first_start.at(k), kSecond + 2 * k * kMilli) << "VU " << k;
}

TEST(ClosedModel, AVuOutOfALocalResourceRestsByItsBackoff) {
  // One VU whose first three iterations fail for want of a file descriptor.
  FakeHost host(vus_shape(1, {{kSecond, 1}}));
  host.duration = [](const scenario::Vu&) { return kMilli; };
  host.outcome = [](const scenario::Vu& vu) {
    scenario::IterationOutcome o;
    o.ok = vu.iteration > 3;
    o.local_resource_exhausted = vu.iteration <= 3;
    return o;
  };
  auto executor = make_closed_model(host);
  host.run(*executor);

  // The same backoff (seeded with the VU's id) says when each next iteration may start.
  ExhaustionBackoff reference(1);
  Nanos expected_start = 0;
  for (std::size_t k = 0; k < 5; ++k) {
    const IterationRecord& it = host.iterations.at(k);
    EXPECT_EQ(it.timed_from, expected_start) << "iteration " << k;
    const bool exhausted = k < 3;
    expected_start = reference.next_start(it.end, exhausted);
    if (exhausted) {
      EXPECT_GE(expected_start - it.end, ExhaustionBackoff::ceiling(static_cast<int>(k) + 1) / 2);
    } else {
      EXPECT_EQ(expected_start, it.end);  // once it worked, back to back again
    }
  }
}


LoadShape counted(double vus, long long iterations, Nanos duration = 600 * kSecond) {
  LoadShape s = vus_shape(vus, {{duration, vus}});
  s.iterations = iterations;
  return s;
}

TEST(ClosedModel, ACountOfIterationsEndsTheRunWhenTheLastOneEnds) {
  // 3 VUs share 7 iterations of 10 ms: two rounds of three, then one VU runs the seventh.
  FakeHost host(counted(3, 7));
  auto executor = make_closed_model(host);
  host.run(*executor);

  ASSERT_EQ(host.iterations.size(), 7u);
  std::vector<Nanos> starts;
  for (const auto& r : host.iterations) starts.push_back(r.timed_from);
  std::sort(starts.begin(), starts.end());
  EXPECT_EQ(starts, (std::vector<Nanos>{0, 0, 0, 10 * kMilli, 10 * kMilli, 10 * kMilli, 20 * kMilli}));
  ASSERT_TRUE(host.finished);
  EXPECT_EQ(host.finished_at, 30 * kMilli);  // long before the 600 s duration
  EXPECT_TRUE(host.interrupts.empty());
  EXPECT_EQ(host.live.back().second, 0);
}

TEST(ClosedModel, TheDurationStillEndsACountedRunThatTakesLonger) {
  // 2 VUs, 1,000 iterations of 100 ms, 1 s: the duration ends it after 20 (graceful stop 30 s).
  FakeHost host(counted(2, 1000, kSecond));
  host.duration = [](const scenario::Vu&) { return 100 * kMilli; };
  auto executor = make_closed_model(host);
  host.run(*executor);
  EXPECT_EQ(host.iterations.size(), 20u);
  EXPECT_EQ(host.finished_at, kSecond);
}

TEST(ClosedModel, EachWorkerRunsItsShareOfTheIterations) {
  // 10 iterations over 3 workers: 4, 3, 3, each ending when its own share has.
  long long total = 0;
  for (int index = 0; index < 3; ++index) {
    FakeHost host(counted(3, 10), index, 3);
    auto executor = make_closed_model(host);
    host.run(*executor);
    const std::size_t share = index == 0 ? 4 : 3;
    EXPECT_EQ(host.iterations.size(), share) << "worker " << index;
    EXPECT_EQ(host.vus_created(), 1) << "worker " << index;  // 3 VUs over 3 workers
    EXPECT_EQ(host.finished_at, static_cast<Nanos>(share) * 10 * kMilli) << "worker " << index;
    total += static_cast<long long>(host.iterations.size());
  }
  EXPECT_EQ(total, 10);
}

TEST(ClosedModel, TheIterationsGoToTheWorkersThatHaveVus) {
  // 2 VUs and 9 iterations over 4 workers: workers 0 and 1 have a VU each and run 5 and 4;
  // 2 and 3 have no VU, so no iteration either, and finish at the start.
  const std::vector<std::size_t> shares = {5, 4, 0, 0};
  for (int index = 0; index < 4; ++index) {
    FakeHost host(counted(2, 9), index, 4);
    auto executor = make_closed_model(host);
    host.run(*executor);
    EXPECT_EQ(host.iterations.size(), shares[static_cast<std::size_t>(index)]) << "worker " << index;
    ASSERT_TRUE(host.finished) << "worker " << index;
    EXPECT_EQ(host.finished_at, static_cast<Nanos>(shares[static_cast<std::size_t>(index)]) * 10 * kMilli)
        << "worker " << index;
  }
}

TEST(ClosedModel, AVuRestingWhenTheCountIsUsedUpDoesNotHoldTheEnd) {
  // VU 1's first iteration fails for want of a descriptor and it rests (hundreds of ms);
  // VU 2 runs the other two iterations meanwhile, and the run ends with VU 2's last.
  FakeHost host(counted(2, 3));
  host.outcome = [](const scenario::Vu& vu) {
    scenario::IterationOutcome o;
    o.ok = vu.id != 1;
    o.local_resource_exhausted = vu.id == 1;
    return o;
  };
  auto executor = make_closed_model(host);
  host.run(*executor);
  ASSERT_EQ(host.iterations.size(), 3u);
  EXPECT_EQ(by_vu(host.iterations)[1].size(), 1u);
  EXPECT_EQ(by_vu(host.iterations)[2].size(), 2u);
  EXPECT_EQ(host.finished_at, 20 * kMilli);
}

TEST(ClosedModel, AStopEndsACountedRunLikeAnyOther) {
  // Ctrl-C at 15 ms with a graceful stop: the iterations running then finish, no new one starts.
  FakeHost host(counted(2, 100));
  host.at(15 * kMilli, [&] { host.stop(true); });
  auto executor = make_closed_model(host);
  host.run(*executor);
  EXPECT_EQ(host.iterations.size(), 4u);
  EXPECT_EQ(host.finished_at, 20 * kMilli);
}

}  // namespace
}  // namespace stampede::engine::testing
