#include "engine/arrival_pacer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace stampede::engine {
namespace {

using Kind = ArrivalPacer::Step::Kind;

ArrivalSchedule constant(double per_second, Nanos duration) {
  LoadShape shape;
  shape.model = LoadModel::Rate;
  shape.start = per_second;
  shape.stages = {{duration, per_second}};
  return ArrivalSchedule(shape);
}

// Runs a worker's loop on a simulated clock: each turn starts what the pacer says (each
// start costs `cost_per_start` of loop time), then the clock jumps to the wake-up it asked
// for (`wake_late` after it: a sleeping thread's timer comes late). `stall` (optional): the
// loop is stuck from stall_at for stall_for. `tell_planned`: a turn the timer began is told
// the time its sleep was for, as the open model does.
struct Simulation {
  struct Started {
    Nanos scheduled;
    Nanos actual;
  };
  std::vector<Started> started;
  std::vector<Nanos> wakeups;
  int yields = 0;

  Nanos wake_late = 0;
  bool tell_planned = true;

  void run(ArrivalPacer& pacer, Nanos cost_per_start, Nanos stall_at = -1, Nanos stall_for = 0) {
    ManualClock clock(0);
    bool stalled = false;
    std::optional<Nanos> planned;  // set when the timer begins the turn
    for (;;) {
      if (!stalled && stall_at >= 0 && clock.now() >= stall_at) {
        stalled = true;
        clock.advance(stall_for);
      }
      wakeups.push_back(clock.now());
      pacer.begin_turn(clock.now(), tell_planned ? planned.value_or(clock.now()) : clock.now());
      planned.reset();
      ArrivalPacer::Step step{Kind::done};
      for (;;) {
        step = pacer.next(clock.now());
        if (step.kind != Kind::start) break;
        pacer.started();
        started.push_back({step.at, clock.now()});
        clock.advance(cost_per_start);
      }
      if (step.kind == Kind::done) return;
      if (step.kind == Kind::yield) {
        ++yields;
        clock.advance(kMicro);  // the loop reads replies, then comes back at once
        continue;
      }
      ASSERT_GT(step.at, clock.now()) << "a sleep must end in the future";
      planned = step.at;
      clock.set(std::max(clock.now(), step.at) + wake_late);
    }
  }

  Nanos max_lag() const {
    Nanos m = 0;
    for (const auto& s : started) m = std::max(m, s.actual - s.scheduled);
    return m;
  }
};

TEST(ArrivalPacer, BelowOnePerQuantumEveryArrivalWakesOnTimeAlone) {
  // 2,000/s: arrivals 500 µs apart, far above the 100 µs quantum: nothing is coalesced.
  const ArrivalSchedule schedule = constant(2000, kSecond);
  ArrivalPacer pacer(schedule, 0, 1);
  Simulation sim;
  sim.run(pacer, 0);
  ASSERT_EQ(sim.started.size(), 2000u);
  EXPECT_EQ(sim.wakeups.size(), 2000u);  // one wake-up per arrival, at its due time
  EXPECT_EQ(sim.max_lag(), 0);
}

TEST(ArrivalPacer, AboveOnePerQuantumWakeUpsAreCoalesced) {
  // 50,000/s for 1 s: arrivals 20 µs apart. Without coalescing: 50,000 wake-ups.
  const ArrivalSchedule schedule = constant(50000, kSecond);
  ArrivalPacer pacer(schedule, 0, 1, 100 * kMicro);
  Simulation sim;
  sim.run(pacer, 100);  // 0.1 µs of loop time per start
  ASSERT_EQ(sim.started.size(), 50000u);
  // At most one wake-up per quantum (plus the first).
  EXPECT_LE(sim.wakeups.size(), 10001u);
  EXPECT_GE(sim.wakeups.size(), 9000u);
  // Each arrival starts at most one quantum (plus the turn's own work) late...
  EXPECT_LE(sim.max_lag(), 100 * kMicro + 10 * 100);
  // ...and never early, in schedule order, each exactly once.
  for (std::size_t i = 0; i < sim.started.size(); ++i) {
    EXPECT_GE(sim.started[i].actual, sim.started[i].scheduled) << i;
    EXPECT_EQ(sim.started[i].scheduled, *schedule.due(static_cast<long long>(i))) << i;
  }
}

TEST(ArrivalPacer, AQuantumSetLaterHalvesTheWakeUpsAndBoundsTheLateness) {
  // 50,000/s for 1 s, as above, once at 250 µs and once set to 500 µs (WakeQuantum's two).
  const ArrivalSchedule schedule = constant(50000, kSecond);
  ArrivalPacer precise(schedule, 0, 1, 250 * kMicro);
  ArrivalPacer frugal(schedule, 0, 1, 250 * kMicro);
  frugal.set_quantum(500 * kMicro);
  EXPECT_EQ(frugal.quantum(), 500 * kMicro);
  Simulation at_250;
  Simulation at_500;
  at_250.run(precise, 100);
  at_500.run(frugal, 100);
  ASSERT_EQ(at_250.started.size(), 50000u);
  ASSERT_EQ(at_500.started.size(), 50000u);
  EXPECT_LE(at_250.wakeups.size(), 4001u);
  EXPECT_LE(at_500.wakeups.size(), 2001u);
  EXPECT_GE(at_500.wakeups.size(), 1900u);
  EXPECT_LE(at_250.max_lag(), 250 * kMicro + 25 * 100);
  EXPECT_LE(at_500.max_lag(), 500 * kMicro + 50 * 100);
  EXPECT_GT(at_500.max_lag(), 250 * kMicro + 25 * 100);  // the price: lateness, recorded as lag
}

TEST(ArrivalPacer, WakeUpsAreAQuantumApartFromTheTurnStartNotFromItsEnd) {
  // Arrivals every 10 µs; a turn that costs longer than a quantum must not add a quantum of
  // sleep after it (that would let lag grow turn by turn).
  const ArrivalSchedule schedule = constant(100000, 100 * kMilli);
  ArrivalPacer pacer(schedule, 0, 1, 100 * kMicro);
  Simulation sim;
  sim.run(pacer, 12 * kMicro);  // slower than the rate: the loop cannot keep up
  ASSERT_EQ(sim.started.size(), 10000u);
  // Never sleeps while arrivals are due: the loop's time is only the work itself (and the
  // reads between batches).
  EXPECT_EQ(sim.started.back().actual, 9999 * 12 * kMicro + sim.yields * kMicro);
  // The lag is what the slow loop costs (2 µs more per 10 µs arrival), not quanta on top.
  EXPECT_EQ(sim.started.back().actual - sim.started.back().scheduled,
            9999 * 2 * kMicro + sim.yields * kMicro);
}

TEST(ArrivalPacer, ALateWakeUpDoesNotPushTheNextOneBack) {
  // 10,000/s, arrivals exactly one 100 µs quantum apart, every wake-up 40 µs late (a
  // sleeping thread's timer on our VMs). Counted from the planned wake-up, each arrival gets
  // one and starts 40 µs late; counted from the late turn, the next wake-up would come a
  // quantum after the late one, and arrivals would pile up a quantum late.
  const ArrivalSchedule schedule = constant(10000, 100 * kMilli);
  ArrivalPacer planned(schedule, 0, 1, 100 * kMicro);
  ArrivalPacer unplanned(schedule, 0, 1, 100 * kMicro);
  Simulation told;
  Simulation untold;
  told.wake_late = untold.wake_late = 40 * kMicro;
  untold.tell_planned = false;
  told.run(planned, 0);
  untold.run(unplanned, 0);
  ASSERT_EQ(told.started.size(), 1000u);
  ASSERT_EQ(untold.started.size(), 1000u);
  EXPECT_EQ(told.wakeups.size(), 1000u);  // one per arrival, the first one included
  for (std::size_t i = 1; i < told.started.size(); ++i) {
    EXPECT_EQ(told.started[i].actual - told.started[i].scheduled, 40 * kMicro) << i;
  }
  EXPECT_LT(untold.wakeups.size(), 800u);
  EXPECT_GE(untold.max_lag(), 100 * kMicro);
}

TEST(ArrivalPacer, SpacingIsTheGapBetweenThisWorkersNextTwoArrivals) {
  const ArrivalSchedule schedule = constant(10000, kMilli);  // 10 arrivals, 100 µs apart
  ArrivalPacer one_of_two(schedule, 0, 2);
  EXPECT_EQ(one_of_two.spacing(), 200 * kMicro);
  for (int i = 0; i < 4; ++i) one_of_two.started();  // arrivals 0, 2, 4, 6 taken: 8 is the last
  EXPECT_EQ(one_of_two.spacing(), ArrivalPacer::kNoSpacing);
}

TEST(ArrivalPacer, AfterAStallEverythingDueStartsInBatchesWithReadsBetween) {
  // 20,000/s; the loop stalls 5 ms at t = 10 ms: 100 arrivals become due at once.
  const ArrivalSchedule schedule = constant(20000, 50 * kMilli);
  ArrivalPacer pacer(schedule, 0, 1, 100 * kMicro, 64);
  Simulation sim;
  sim.run(pacer, 0, 10 * kMilli, 5 * kMilli);
  ASSERT_EQ(sim.started.size(), 1000u);
  EXPECT_GE(sim.yields, 1);  // 100 due at once: one batch of 64, then the rest
  EXPECT_GE(sim.max_lag(), 5 * kMilli - 100 * kMicro);  // the stall shows as lag, honestly
  EXPECT_LE(sim.max_lag(), 5 * kMilli + 200 * kMicro);
  // Once caught up, it is back to on-time arrivals: the last ones start within a quantum.
  for (std::size_t i = 900; i < 1000; ++i) {
    EXPECT_LE(sim.started[i].actual - sim.started[i].scheduled, 100 * kMicro) << i;
  }
}

TEST(ArrivalPacer, AWorkerTakesEveryStrideThArrival) {
  const ArrivalSchedule schedule = constant(1000, 10 * kMilli);  // arrivals 0..9, 1 ms apart
  ArrivalPacer second_of_three(schedule, 1, 3);
  Simulation sim;
  sim.run(second_of_three, 0);
  ASSERT_EQ(sim.started.size(), 3u);  // arrivals 1, 4, 7
  EXPECT_EQ(sim.started[0].scheduled, 1 * kMilli);
  EXPECT_EQ(sim.started[1].scheduled, 4 * kMilli);
  EXPECT_EQ(sim.started[2].scheduled, 7 * kMilli);
  EXPECT_EQ(second_of_three.next_index(), 10);
}

TEST(ArrivalPacer, AskingDoesNotConsume) {
  const ArrivalSchedule schedule = constant(1000, 10 * kMilli);
  ArrivalPacer pacer(schedule, 0, 1);
  pacer.begin_turn(5 * kMilli);
  const auto a = pacer.next(5 * kMilli);
  const auto b = pacer.next(5 * kMilli);
  EXPECT_EQ(a.kind, Kind::start);
  EXPECT_EQ(a.at, 0);
  EXPECT_EQ(b.at, 0);  // the caller declined (say, it waits for a VU): still the same one
  pacer.started();
  EXPECT_EQ(pacer.next(5 * kMilli).at, kMilli);
}

TEST(ArrivalPacer, ANextArrivalWithinTheQuantumIsPostponedToTheQuantum) {
  const ArrivalSchedule schedule = constant(40000, 10 * kMilli);  // 25 µs apart
  ArrivalPacer pacer(schedule, 0, 1, 100 * kMicro);
  pacer.begin_turn(0);
  ASSERT_EQ(pacer.next(0).kind, Kind::start);
  pacer.started();
  const auto step = pacer.next(0);
  EXPECT_EQ(step.kind, Kind::sleep);
  EXPECT_EQ(step.at, 100 * kMicro);  // not 25 µs
}

TEST(ArrivalPacer, ASparseArrivalIsWokenForEarlyToBeOnTime) {
  const ArrivalSchedule schedule = constant(1000, 10 * kMilli);  // 1 ms apart
  ArrivalPacer pacer(schedule, 0, 1);
  pacer.begin_turn(0);
  ASSERT_EQ(pacer.next(0).kind, Kind::start);
  pacer.started();
  const auto step = pacer.next(10 * kMicro);
  EXPECT_EQ(step.kind, Kind::sleep);
  EXPECT_EQ(step.at, kMilli);                                        // still due on time
  EXPECT_EQ(step.wake, kMilli - ArrivalPacer::kDefaultEarlyWake);  // the timer, 100 µs before
}

TEST(ArrivalPacer, TheEarlyWakeIsATenthOfTheSleepAtMost) {
  const ArrivalSchedule schedule = constant(5000, 10 * kMilli);  // 200 µs apart
  ArrivalPacer pacer(schedule, 0, 1, 100 * kMicro);
  pacer.begin_turn(0);
  pacer.started();
  const auto step = pacer.next(0);
  EXPECT_EQ(step.at, 200 * kMicro);
  EXPECT_EQ(step.wake, 180 * kMicro);  // waiting on the clock costs a tenth of the time, not half
}

TEST(ArrivalPacer, ACoalescedWakeUpIsNotEarly) {
  const ArrivalSchedule schedule = constant(40000, 10 * kMilli);  // 25 µs apart
  ArrivalPacer pacer(schedule, 0, 1, 100 * kMicro);
  pacer.begin_turn(0);
  pacer.started();
  const auto step = pacer.next(0);
  EXPECT_EQ(step.at, 100 * kMicro);
  EXPECT_EQ(step.wake, step.at);  // it starts late by design; waiting on the clock buys nothing
}

TEST(ArrivalPacer, TheEarlyWakeIsNeverInThePast) {
  const ArrivalSchedule schedule = constant(1000, 10 * kMilli);
  ArrivalPacer pacer(schedule, 0, 1);
  pacer.begin_turn(0);
  pacer.started();
  const auto step = pacer.next(kMilli - 30 * kMicro);  // the turn ran long: 30 µs to go
  EXPECT_EQ(step.at, kMilli);
  EXPECT_EQ(step.wake, kMilli - 30 * kMicro);
}

TEST(ArrivalPacer, DoneAfterTheLastArrival) {
  const ArrivalSchedule schedule = constant(1000, 2 * kMilli);
  ArrivalPacer pacer(schedule, 0, 1);
  pacer.begin_turn(5 * kMilli);
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(pacer.next(5 * kMilli).kind, Kind::start);
    pacer.started();
  }
  EXPECT_EQ(pacer.next(5 * kMilli).kind, Kind::done);
}

}  // namespace
}  // namespace stampede::engine
