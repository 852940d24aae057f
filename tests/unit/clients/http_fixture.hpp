#pragma once
// What every HTTP client test needs: a worker's loop, sink and context, and a way to run
// the loop until the requests under test have answered.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "clients/client_context.hpp"
#include "clients/http_session.hpp"
#include "common/clock.hpp"
#include "metrics/metric_sink.hpp"

namespace stampede::testing {

class HttpFixture : public ::testing::Test {
 protected:
  // Runs the loop until `done()` or `limit`; returns whether done() became true.
  bool run_until(const std::function<bool()>& done, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      io.run_one_for(std::chrono::milliseconds(5));
      if (io.stopped()) {
        io.restart();
        // Nothing queued: the server (another thread) is working. Only spaces the looks at done().
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    return true;
  }

  // Runs the loop for a while (to let queued handlers and the peer act).
  void run_for(std::chrono::milliseconds d) {
    const auto deadline = std::chrono::steady_clock::now() + d;
    run_until([&] { return std::chrono::steady_clock::now() >= deadline; }, d + std::chrono::seconds(1));
  }

  clients::HttpResponse fetch(clients::HttpSession& session, clients::HttpRequest req) {
    clients::HttpResponse result;
    bool done = false;
    session.request(std::move(req), [&](clients::HttpResponse r) {
      result = std::move(r);
      done = true;
    });
    EXPECT_TRUE(run_until([&] { return done; })) << "no answer";
    return result;
  }

  clients::HttpResponse get(clients::HttpSession& session, const std::string& url) {
    clients::HttpRequest req;
    req.url = url;
    return fetch(session, std::move(req));
  }

  // Starts all requests at once, then runs the loop until every one has answered.
  std::vector<clients::HttpResponse> fetch_all(clients::HttpSession& session, std::vector<clients::HttpRequest> reqs) {
    std::vector<clients::HttpResponse> results(reqs.size());
    std::size_t answered = 0;
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      session.request(std::move(reqs[i]), [&results, &answered, i](clients::HttpResponse r) {
        results[i] = std::move(r);
        ++answered;
      });
    }
    EXPECT_TRUE(run_until([&] { return answered == results.size(); })) << answered << " answered";
    return results;
  }

  // The current window's data of one metric (taking the window from the sink).
  metrics::Snapshot take() { return sink.take(0); }
  const metrics::MetricData* metric(const metrics::Snapshot& snapshot, std::string_view name) {
    metrics::MetricId id = 0;
    if (!registry.find(name, id) || id >= snapshot.metrics.size() || !snapshot.metrics[id].present) return nullptr;
    return &snapshot.metrics[id];
  }
  std::uint64_t timing_count(const metrics::Snapshot& snapshot, std::string_view name) {
    const auto* data = metric(snapshot, name);
    return data == nullptr ? 0 : data->histogram.count();
  }
  std::uint64_t errors(const metrics::Snapshot& snapshot, std::string_view reason) {
    const auto* data = metric(snapshot, "http.request.errors");
    if (data == nullptr) return 0;
    const auto it = data->reasons.find(reason);
    return it == data->reasons.end() ? 0 : it->second;
  }

  boost::asio::io_context io;
  metrics::Registry registry;
  metrics::MetricSink sink{registry};
  SteadyClock clock;
  clients::ClientContext ctx{io, sink, clock};
};

}  // namespace stampede::testing
