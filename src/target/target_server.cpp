#include "target/target_server.hpp"

#include <fmt/format.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/context.hpp>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "target/channels_hub.hpp"
#include "target/liveview_posts_store.hpp"
#include "target/longpoll_hub.hpp"
#include "target/self_signed_tls.hpp"
#include "target/target_metrics.hpp"
#include "target/target_routes.hpp"
#include "target/truth_collector.hpp"
#include "target/worker.hpp"

namespace stampede::target {

struct TargetServer::Impl {
  enum class Phase { Created, Running, Stopped };

  explicit Impl(TargetOptions opts) : options(std::move(opts)), routes(make_target_routes(options.liveview)) {}

  void start();
  void stop();

  TargetOptions options;
  RouteTable routes;
  LiveViewPostsStore liveview_posts;
  WorkerShared shared;
  // Before the workers: their sockets still leave their channels while the workers go.
  std::unique_ptr<ChannelsHub> channels;
  LongPollHub longpoll;
  std::vector<std::unique_ptr<Worker>> workers;
  std::unique_ptr<TruthCollector> collector;
  std::unique_ptr<TargetMetrics> metrics;
  std::vector<std::thread> threads;
  std::uint16_t port = 0;
  std::uint16_t tls_port = 0;
  std::unique_ptr<boost::asio::ssl::context> tls;  // --tls-listen's; outlives the workers
  Phase phase = Phase::Created;
  std::vector<Nanos> final_held;  // the workers' record, kept after stop()
};

void TargetServer::Impl::start() {
  if (options.threads == 0) throw std::runtime_error("--threads must be at least 1");
  if (options.ws_idle_timeout <= 0) throw std::runtime_error("--ws-idle-timeout must be positive");
  const std::uint64_t seed = options.seed ? *options.seed : std::random_device{}();
  channels = std::make_unique<ChannelsHub>(options.threads, seed);
  shared.routes = &routes;
  shared.channels = channels.get();
  shared.longpoll = &longpoll;
  shared.delay = options.delay;
  shared.capacity = options.capacity;
  shared.worker_count = options.threads;
  shared.ws_idle_timeout = options.ws_idle_timeout;
  shared.ws_compress = options.ws_compress;
  shared.longpoll_session_lifetime = options.longpoll_session_lifetime;
  shared.liveview_dialect = options.liveview;
  shared.liveview_posts = &liveview_posts;

  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(options.listen.host, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot listen on {}: not an IP address", options.listen.host));
  boost::asio::ip::tcp::endpoint endpoint(address, options.listen.port);
  try {
    for (unsigned i = 0; i < options.threads; ++i) {
      auto worker = std::make_unique<Worker>(shared, i, seed + i);
      worker->listen(endpoint, options.threads > 1 || options.share_port);
      // Port 0: the first worker's port is where the others must listen too.
      endpoint.port(worker->port());
      workers.push_back(std::move(worker));
    }
  } catch (const boost::system::system_error& e) {
    workers.clear();
    throw std::runtime_error(fmt::format("cannot listen on {}:{}: {}", options.listen.host, options.listen.port,
                                         e.code().message()));
  }
  port = endpoint.port();

  if (options.tls_listen) {
    const auto tls_address = boost::asio::ip::make_address(options.tls_listen->host, ec);
    if (ec) {
      workers.clear();
      throw std::runtime_error(fmt::format("cannot listen on {}: not an IP address", options.tls_listen->host));
    }
    tls = make_h2_server_tls();
    shared.tls = tls.get();
    boost::asio::ip::tcp::endpoint tls_endpoint(tls_address, options.tls_listen->port);
    try {
      for (auto& worker : workers) {
        worker->listen_tls(tls_endpoint, options.threads > 1 || options.share_port);
        tls_endpoint.port(worker->tls_port());
      }
    } catch (const boost::system::system_error& e) {
      workers.clear();
      throw std::runtime_error(fmt::format("cannot listen on {}:{}: {}", options.tls_listen->host,
                                           options.tls_listen->port, e.code().message()));
    }
    tls_port = tls_endpoint.port();
  }

  std::vector<Worker*> worker_pointers;
  std::vector<asio::io_context*> loops;
  for (auto& worker : workers) {
    worker_pointers.push_back(worker.get());
    loops.push_back(&worker->io());
  }
  channels->connect(loops);
  longpoll.connect(worker_pointers);
  metrics = std::make_unique<TargetMetrics>(worker_pointers);
  shared.metrics = metrics.get();
  collector = std::make_unique<TruthCollector>(std::move(worker_pointers));
  shared.truth = collector.get();
  for (auto& worker : workers) threads.emplace_back([w = worker.get()] { w->run(); });
  phase = Phase::Running;
}

void TargetServer::Impl::stop() {
  if (phase != Phase::Running) return;
  for (auto& worker : workers) worker->stop();
  for (auto& thread : threads) thread.join();
  threads.clear();
  collector->stop();
  channels->disconnect();
  // The threads are gone: the records can be read directly.
  for (auto& worker : workers) {
    const auto& held = worker->held_times();
    final_held.insert(final_held.end(), held.begin(), held.end());
  }
  workers.clear();  // destroying each loop closes its connections
  collector.reset();
  metrics.reset();
  phase = Phase::Stopped;
}

TargetServer::TargetServer(TargetOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

TargetServer::~TargetServer() { stop(); }

void TargetServer::start() {
  if (impl_->phase != Impl::Phase::Created) throw std::logic_error("TargetServer::start() called twice");
  impl_->start();
}

std::uint16_t TargetServer::port() const { return impl_->port; }
std::uint16_t TargetServer::tls_port() const { return impl_->tls_port; }

Truth TargetServer::truth() const {
  if (impl_->phase == Impl::Phase::Running) return impl_->collector->collect_now();
  auto held = impl_->final_held;
  return compute_truth(held);
}

void TargetServer::reset_truth() {
  if (impl_->phase == Impl::Phase::Running) {
    impl_->collector->reset_now();
  } else {
    impl_->final_held.clear();
  }
}

void TargetServer::stop() { impl_->stop(); }

}  // namespace stampede::target
