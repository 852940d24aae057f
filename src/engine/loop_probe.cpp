#include "engine/loop_probe.hpp"

#include "engine/asio_scheduler.hpp"
#include "metrics/generator_health.hpp"

namespace stampede::engine {

LoopProbe::LoopProbe(boost::asio::io_context& io, const Clock& clock, metrics::MetricSink& sink)
    : timer_(io), clock_(clock), sink_(sink), id_(sink.id(metrics::names::kGeneratorLoopDelay, metrics::Kind::Timing)) {}

void LoopProbe::start(Nanos first_due) {
  due_ = first_due;
  arm();
}

void LoopProbe::stop() {
  stopped_ = true;
  timer_.cancel();
}

void LoopProbe::arm() {
  timer_.expires_at(time_point_at(due_));
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopped_) return;
    const Nanos now = clock_.now();
    sink_.record(id_, now - due_);
    // The next probe is due one period after this one was, not after it ran: a loop that
    // stays late is measured late every time. Periods missed entirely are skipped.
    due_ += kPeriod;
    if (due_ <= now) due_ = now + kPeriod - (now - due_) % kPeriod;
    arm();
  });
}

}  // namespace stampede::engine
