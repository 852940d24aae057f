// HttpSession::batch: several requests of one VU at once (k6's http.batch), their
// responses back in the requests' order. Each request goes through request() as it would
// alone, so counting, timing, redirects and errors are its own; the batch only decides when
// each starts (at most `parallel` in flight) and collects the answers.
#include <memory>
#include <stdexcept>

#include "clients/http_session.hpp"

namespace stampede::clients {

namespace {

struct Batch : std::enable_shared_from_this<Batch> {
  HttpSession* session = nullptr;
  std::weak_ptr<const void> session_alive;
  std::vector<HttpRequest> requests;
  std::vector<HttpResponse> responses;
  std::function<void(std::vector<HttpResponse>&&)> done;
  std::size_t parallel = 1;
  std::size_t next = 0;       // the first request not started
  std::size_t in_flight = 0;
  std::size_t remaining = 0;  // not yet answered

  // Starts requests until `parallel` are in flight or none is left.
  void launch() {
    while (in_flight < parallel && next < requests.size()) {
      const std::size_t index = next++;
      ++in_flight;
      if (session_alive.expired()) {
        // The session went while earlier requests were out (their completions still ran):
        // the rest is answered as request() answers a cut-off one.
        HttpResponse cut;
        cut.url = requests[index].url;
        cut.error = requests[index].method + " " + requests[index].url +
                    " failed: the session was closed before the request was sent";
        cut.error_reason = "closed";
        answer(index, std::move(cut));
        continue;
      }
      session->request(std::move(requests[index]),
                       [self = shared_from_this(), index](HttpResponse&& response) {
                         self->answer(index, std::move(response));
                       });
    }
  }

  void answer(std::size_t index, HttpResponse&& response) {
    responses[index] = std::move(response);
    --in_flight;
    if (--remaining == 0) {
      auto finished = std::move(done);
      finished(std::move(responses));
      return;
    }
    launch();
  }
};

}  // namespace

void HttpSession::batch(std::vector<HttpRequest> requests, std::size_t parallel,
                        std::function<void(std::vector<HttpResponse>&&)> done) {
  if (requests.empty()) throw std::invalid_argument("a batch needs at least one request");
  if (parallel == 0) throw std::invalid_argument("a batch needs at least one request in flight at a time");
  // Every name is checked before the first request leaves: later ones start from a
  // completion, where a throw would leave the worker's loop.
  for (const HttpRequest& req : requests) check_name(req.name);
  auto batch = std::make_shared<Batch>();
  batch->session = this;
  batch->session_alive = lifetime();
  batch->remaining = requests.size();
  batch->responses.resize(requests.size());
  batch->requests = std::move(requests);
  batch->done = std::move(done);
  batch->parallel = parallel;
  batch->launch();
}

}  // namespace stampede::clients
