// The sampler's thread: an event loop with one timer, armed for whatever the poller says is
// due next (a scrape round, a deadline, the end of a second), and the HTTP client's sockets.
#include "clients/server_metrics_sampler.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "clients/client_context.hpp"
#include "clients/http_scrape_transport.hpp"
#include "clients/server_metrics_poller.hpp"

namespace stampede::clients {

namespace asio = boost::asio;

struct ServerMetricsSampler::Impl {
  Impl(ServerMetricsOptions o, metrics::Registry& r, Deliver d)
      : options(std::move(o)), registry(r), deliver(std::move(d)) {}

  void run(Nanos t0);
  void arm(asio::steady_timer& timer, ServerMetricsPoller& poller, Nanos at);

  ServerMetricsOptions options;
  metrics::Registry& registry;
  Deliver deliver;
  asio::io_context io;
  std::thread thread;
  bool started = false;
  bool stopped = false;
  ServerMetricsPoller* poller = nullptr;  // while the thread runs; touched only on it
  // The poller's exposed_names() as of its latest delivery (and once the thread has ended):
  // read from any thread, the run's seconds' subscribers included, which may be called on
  // this very thread (the Collector delivers on whichever thread completed a second).
  mutable std::mutex names_mutex;
  std::vector<std::string> names;
};

void ServerMetricsSampler::Impl::arm(asio::steady_timer& timer, ServerMetricsPoller& p, Nanos at) {
  timer.expires_at(asio::steady_timer::time_point(std::chrono::nanoseconds(at)));
  timer.async_wait([this, &timer, &p](const boost::system::error_code& ec) {
    if (ec) return;  // cancelled: the loop is stopping
    arm(timer, p, p.on_wake());
  });
}

void ServerMetricsSampler::Impl::run(Nanos t0) {
  SteadyClock clock;
  // The HTTP client's own bookkeeping (http.request, its errors, the request tally) goes to
  // a registry of its own and is never delivered: the scrapes are not the load test's
  // requests, and server.scrape / server.scrape.errors already say how they went.
  metrics::Registry client_registry;
  metrics::MetricSink client_sink(client_registry);
  ClientContext ctx(io, client_sink, clock);
  HttpScrapeTransport transport(ctx, options.urls, options.max_body_bytes);
  ServerMetricsPoller p(options, registry, clock, transport, [this](metrics::Snapshot second) {
    std::vector<std::string> latest = poller->exposed_names();
    {
      std::lock_guard lock(names_mutex);
      names = std::move(latest);
    }
    deliver(std::move(second));
  });
  asio::steady_timer timer(io);
  poller = &p;
  arm(timer, p, p.start(t0));
  io.run();
  timer.cancel();
  std::vector<std::string> latest = p.exposed_names();
  {
    std::lock_guard lock(names_mutex);
    names = std::move(latest);
  }
  poller = nullptr;
}

ServerMetricsSampler::ServerMetricsSampler(ServerMetricsOptions options, metrics::Registry& registry, Deliver deliver) {
  if (std::string why = validate_server_metrics(options); !why.empty()) throw std::invalid_argument(why);
  impl_ = std::make_unique<Impl>(std::move(options), registry, std::move(deliver));
}

ServerMetricsSampler::~ServerMetricsSampler() { stop(); }

void ServerMetricsSampler::start(Nanos t0) {
  if (impl_->started) throw std::logic_error("ServerMetricsSampler::start() called twice");
  impl_->started = true;
  impl_->thread = std::thread([impl = impl_.get(), t0] { impl->run(t0); });
}

void ServerMetricsSampler::stop() {
  if (!impl_->started || impl_->stopped) return;
  impl_->stopped = true;
  // Runs after the poller exists: posted work waits for io.run(), which starts after it.
  asio::post(impl_->io, [impl = impl_.get()] {
    impl->poller->stop();
    impl->io.stop();
  });
  impl_->thread.join();
}

std::vector<std::string> ServerMetricsSampler::exposed_names() const {
  std::lock_guard lock(impl_->names_mutex);
  return impl_->names;
}

}  // namespace stampede::clients
