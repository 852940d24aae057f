#include "engine/worker.hpp"

#include <boost/asio/post.hpp>
#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/thread_idle_probe.hpp"
#include "engine/thread_cpu_time.hpp"
#include "metrics/names.hpp"

namespace stampede::engine {

Worker::Worker(WorkerConfig config)
    : config_(std::move(config)),
      // Only `poll` always polls: an adaptive worker sleeps whenever arrivals are sparse,
      // which is when the pacer's early wake matters (ArrivalPacer::kDefaultEarlyWake).
      settings_{config_.shape, config_.index, config_.count, config_.cpu_policy == CpuPolicy::poll},
      sink_(*config_.registry),
      ctx_(io_, sink_, clock_, clients::grid_phase(config_.index, config_.count)) {
  ctx_.local_addresses = config_.local_addresses;
  ctx_.next_local_address = static_cast<std::size_t>(config_.index);
  m_iteration_ = sink_.id("iteration", metrics::Kind::Timing);
  m_iterations_ = sink_.id(metrics::names::kIterations, metrics::Kind::Counter);
  m_errors_ = sink_.id(metrics::names::kIterationErrors, metrics::Kind::Counter);
  m_dropped_ = sink_.id(metrics::names::kDroppedIterations, metrics::Kind::Counter);
  m_crashes_ = sink_.id("vu.crashes", metrics::Kind::Counter);
  m_vus_ = sink_.id(metrics::names::kVus, metrics::Kind::Gauge);
  if (config_.shape.model == LoadModel::Rate) m_lag_ = sink_.id("iteration.lag", metrics::Kind::Timing);
}

Worker::~Worker() {
  executor_.reset();
  runtime_.reset();  // closes sockets while io_ is still alive
}

void Worker::load() {
  tid_.store(static_cast<pid_t>(syscall(SYS_gettid)), std::memory_order_relaxed);
  runtime_ = std::make_unique<scenario::ScenarioRuntime>(ctx_, config_.env);
  executor_ = config_.shape.model == LoadModel::Rate ? make_open_model(*this) : make_closed_model(*this);
}

scenario::Vu& Worker::new_vu() {
  const int id = config_.first_vu_id + config_.index + vus_created_ * config_.count;
  ++vus_created_;
  return runtime_->create_vu(id);
}

void Worker::start_iteration(scenario::Vu& vu, IterationDone done) { runtime_->start_iteration(vu, std::move(done)); }

void Worker::interrupt(scenario::Vu& vu) { runtime_->interrupt(vu); }

std::unique_ptr<IdleProbe> Worker::make_idle_probe() { return std::make_unique<ThreadIdleProbe>(idle_poll()); }

void Worker::set_live_vus(long long n) { sink_.set_gauge(m_vus_, static_cast<double>(n)); }

void Worker::record_iteration(const scenario::IterationOutcome& outcome, Nanos timed_from, Nanos end) {
  if (outcome.crashed) {
    sink_.add_error(m_crashes_, outcome.error);
    return;
  }
  sink_.record(m_iteration_, end - timed_from);
  sink_.add(m_iterations_);
  // The sink keeps a bounded number of distinct messages per metric (the rest are grouped),
  // so messages with ids or timestamps in them cannot grow memory without bound.
  if (!outcome.ok) sink_.add_error(m_errors_, outcome.error);
}

void Worker::record_dropped() { sink_.add(m_dropped_); }
void Worker::record_lag(Nanos lag) { sink_.record(m_lag_, lag); }

void Worker::run(Nanos start) {
  // Linux lets a thread's timers fire up to 50 µs late by default (timer slack) to batch
  // wake-ups. Arrivals are scheduled to the microsecond, so ask for none.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  // A single-process run checked that the kernel allows it (cpu_policy_unavailable, before
  // the run); on an MPI rank that the kernel refuses, the workers keep the default policy.
  if (config_.cpu_policy != CpuPolicy::normal) apply_cpu_policy(config_.cpu_policy);
  start_ = start;
  runtime_->set_run_start(start);
  set_live_vus(0);
  arm_second_timer();
  loop_probe_.start(LoopProbe::first_due(start_ + LoopProbe::kPeriod, ctx_.grid_phase));
  const Nanos end = start_ + config_.shape.total_duration();
  end_timer_.expires_at(time_point_at(end));
  end_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) begin_stop(true);
  });
  // The executor starts exactly at the start time, not when this thread got here.
  boost::asio::steady_timer begin_timer(io_);
  begin_timer.expires_at(time_point_at(start_));
  begin_timer.async_wait([this](const boost::system::error_code&) {
    if (!stopping_ && executor_) executor_->begin();
  });
  run_loop();
}

void Worker::run_loop() {
  // A handler that throws leaves io_.run() with the exception; uncaught, it ended the whole
  // process (std::terminate: no summary, no results, no verdict). It is an engine fault, so
  // it is counted under vu.crashes with its message and the loop goes on: Asio lets run() be
  // called again after a handler threw. The VU whose completion that was may never resume;
  // the end of the run (or its graceful stop) still interrupts it.
  for (;;) {
    try {
      if (config_.cpu_policy == CpuPolicy::poll) {
        poll_loop();
      } else if (config_.cpu_policy == CpuPolicy::adaptive) {
        gated_loop();
      } else {
        io_.run();
      }
      return;
    } catch (const std::exception& e) {
      sink_.add_error(m_crashes_, fmt::format("engine fault: {}", e.what()));
    } catch (...) {
      sink_.add_error(m_crashes_, "engine fault: an unknown exception");
    }
  }
}

void Worker::poll_loop() {
  while (!io_.stopped()) poll_once();
}

void Worker::poll_once() {
  const Nanos began = clock_.now();
  const std::size_t ran = io_.poll();
  const bool sleep = idle_poll_.polled(began, ran);
  if (idle_poll_.idle_polled() != idle_polled_.load(std::memory_order_relaxed)) {
    idle_polled_.store(idle_poll_.idle_polled(), std::memory_order_relaxed);
  }
  if (sleep) io_.run_one();  // blocks until the next event, like run()
}

void Worker::gated_loop() {
  while (!io_.stopped()) {
    if (poll_gate_.polling()) {
      poll_once();
    } else {
      io_.run_one();
    }
    // A sleeping loop looks at the clock once per event and at its CPU time once per sample
    // (a system call, ~0.2 µs here, ten times a second).
    const Nanos now = clock_.now();
    if (!poll_gate_.sample_due(now)) continue;
    const bool was_polling = poll_gate_.polling();
    const bool polling = poll_gate_.sample(now, thread_cpu_time(), idle_poll_.idle_polled());
    if (was_polling && !polling) idle_poll_.stopped(now);  // its sleeps are not empty polls
    polled_for_.store(poll_gate_.polled_for(), std::memory_order_relaxed);
  }
}

void Worker::stop(bool graceful) {
  boost::asio::post(io_, [this, graceful] { begin_stop(graceful); });
}

void Worker::begin_stop(bool graceful) {
  if (finished_) return;
  if (stopping_ && graceful) return;
  stopping_ = true;
  end_timer_.cancel();
  executor_->end(graceful);
}

void Worker::executor_finished() {
  if (finished_) return;
  finished_ = true;
  second_timer_.cancel();
  end_timer_.cancel();
  loop_probe_.stop();
  publish_second(true);
  // Posted: this may be called from inside a runtime callback, which must return first.
  boost::asio::post(io_, [this] {
    executor_.reset();
    runtime_.reset();  // closes every connection
    io_.stop();
  });
}

void Worker::arm_second_timer() {
  second_timer_.expires_at(time_point_at(start_ + (second_ + 1) * kSecond));
  second_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    publish_second(false);
    arm_second_timer();
  });
}

void Worker::publish_second(bool last) {
  metrics::Snapshot snap = sink_.take(second_);
  ++second_;
  if (config_.publish) config_.publish(config_.local_index, std::move(snap), last);
}

}  // namespace stampede::engine
