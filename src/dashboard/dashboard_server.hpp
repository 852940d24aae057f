#pragma once
// The dashboard's web server, on a thread of its own (never a worker's):
//   GET /              the page (report/html_page.hpp, in dashboard mode)
//   GET /events        text/event-stream: `event: start` with the scenario, one `data:`
//                      per merged second, `event: done` with the full results
//   GET /results.json  the results once a scenario has finished (503 before)
//
//   DashboardServer server("127.0.0.1", 4040, page);
//   server.start();                  // listening once it returns
//   server.begin(scenario_json); server.add_second(json); ...; server.finish(results_json);
//
// The publishing methods may be called from any thread: they hand the text over to the
// server's thread (a LocalHttpServer, shared with the Prometheus exporter). A server bound to
// loopback answers only requests whose Host header names loopback (loopback_host.hpp).
#include <cstdint>
#include <memory>
#include <string>

namespace stampede::dashboard {

class DashboardServer {
 public:
  DashboardServer(std::string host, std::uint16_t port, std::string page_html);
  ~DashboardServer();  // stops
  DashboardServer(const DashboardServer&) = delete;
  DashboardServer& operator=(const DashboardServer&) = delete;

  // Binds and starts the thread. Throws std::runtime_error with a sentence for the user
  // ("cannot listen on 127.0.0.1:4040: Address already in use").
  void start();
  // The bound port (the kernel's choice for port 0); 0 before start().
  std::uint16_t port() const;

  void begin(std::string scenario_json);
  void add_second(std::string second_json);
  void finish(std::string results_json);

  // Closes every connection and joins the thread. Idempotent.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stampede::dashboard
