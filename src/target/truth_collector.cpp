#include "target/truth_collector.hpp"

#include <boost/asio/post.hpp>
#include <future>
#include <memory>

#include "target/worker.hpp"

namespace stampede::target {

TruthCollector::TruthCollector(std::vector<Worker*> workers)
    : workers_(std::move(workers)), keep_running_(control_.get_executor()), thread_([this] { control_.run(); }) {}

TruthCollector::~TruthCollector() { stop(); }

void TruthCollector::stop() {
  keep_running_.reset();
  control_.stop();
  if (thread_.joinable()) thread_.join();
}

template <typename Job, typename Merge, typename Finish>
void TruthCollector::broadcast(Job job, Merge merge, Finish finish) {
  // Lives on the control thread only: no lock needed to count the answers.
  auto remaining = std::make_shared<std::size_t>(workers_.size());
  for (auto* worker : workers_) {
    asio::post(worker->io(), [this, worker, job, merge, finish, remaining] {
      auto result = job(*worker);
      asio::post(control_, [merge, finish, remaining, result = std::move(result)]() mutable {
        merge(std::move(result));
        if (--*remaining == 0) finish();
      });
    });
  }
}

void TruthCollector::collect(asio::io_context& reply_to, std::function<void(const Truth&)> done) {
  auto merged = std::make_shared<std::vector<Nanos>>();
  broadcast([](Worker& worker) { return worker.held_times(); },
            [merged](std::vector<Nanos> held) { merged->insert(merged->end(), held.begin(), held.end()); },
            [merged, &reply_to, done] {
              auto truth = compute_truth(*merged);
              asio::post(reply_to, [done, truth] { done(truth); });
            });
}

void TruthCollector::reset(asio::io_context& reply_to, std::function<void()> done) {
  broadcast(
      [](Worker& worker) {
        worker.held_times().clear();  // keeps the reserved capacity
        return true;
      },
      [](bool) {}, [&reply_to, done] { asio::post(reply_to, done); });
}

Truth TruthCollector::collect_now() {
  std::promise<Truth> answer;
  auto future = answer.get_future();
  collect(control_, [&answer](const Truth& truth) { answer.set_value(truth); });
  return future.get();
}

void TruthCollector::reset_now() {
  std::promise<void> answer;
  auto future = answer.get_future();
  reset(control_, [&answer] { answer.set_value(); });
  future.get();
}

}  // namespace stampede::target
