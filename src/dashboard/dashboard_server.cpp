#include "dashboard/dashboard_server.hpp"

#include "dashboard/event_hub.hpp"
#include "dashboard/local_http_server.hpp"
#include "dashboard/loopback_host.hpp"

namespace stampede::dashboard {

struct DashboardServer::Impl {
  std::string host;
  std::uint16_t requested_port;
  std::string page;
  EventHub hub;  // the server thread's
  LocalHttpServer server{"dashboard", [this](const std::shared_ptr<HttpConnection>& c, const LocalRequest& r) {
                           route(c, r);
                         }};

  void route(const std::shared_ptr<HttpConnection>& connection, const LocalRequest& request) {
    if (server.loopback() && !is_loopback_host(request.host, server.port())) {
      connection->respond(403, "text/plain; charset=utf-8",
                          "This dashboard answers requests to 127.0.0.1, localhost or [::1] only.\n");
      return;
    }
    if (request.method != "GET") {
      connection->respond(405, "text/plain; charset=utf-8", "only GET\n");
      return;
    }
    if (request.path == "/") {
      connection->respond(200, "text/html; charset=utf-8", page);
    } else if (request.path == "/events") {
      connection->open_stream("text/event-stream; charset=utf-8");
      // EventSource reconnects after this many ms when the stream breaks.
      connection->send(std::make_shared<const std::string>("retry: 1000\n\n"));
      hub.subscribe(connection);
    } else if (request.path == "/results.json") {
      if (hub.results())
        connection->respond(200, "application/json", *hub.results());
      else
        connection->respond(503, "application/json", R"({"error":"the run has not finished yet"})");
    } else {
      connection->respond(404, "text/plain; charset=utf-8", "not found\n");
    }
  }
};

DashboardServer::DashboardServer(std::string host, std::uint16_t port, std::string page_html)
    : impl_(std::make_unique<Impl>()) {
  impl_->host = std::move(host);
  impl_->requested_port = port;
  impl_->page = std::move(page_html);
}

DashboardServer::~DashboardServer() { stop(); }

void DashboardServer::start() { impl_->server.start(impl_->host, impl_->requested_port); }

std::uint16_t DashboardServer::port() const { return impl_->server.port(); }

void DashboardServer::begin(std::string scenario_json) {
  impl_->server.post([this, json = std::move(scenario_json)]() mutable { impl_->hub.begin(std::move(json)); });
}

void DashboardServer::add_second(std::string second_json) {
  impl_->server.post([this, json = std::move(second_json)]() mutable { impl_->hub.add_second(std::move(json)); });
}

void DashboardServer::finish(std::string results_json) {
  impl_->server.post([this, json = std::move(results_json)]() mutable { impl_->hub.finish(std::move(json)); });
}

void DashboardServer::stop() { impl_->server.stop(); }

}  // namespace stampede::dashboard
