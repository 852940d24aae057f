#pragma once
// A loopback HTTP/2 server (cleartext, prior knowledge) for the client's unit tests: our own
// proto::Http2ServerCodec over blocking sockets, one thread per connection. Answers by path:
//   /ok     200 "ok" at once
//   /slow   200 "slow" after 100 ms
//   /stall  never
// and counts what a test asserts on: connections accepted and closed, streams the client
// reset before an answer.
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <vector>
#include <mutex>

namespace stampede::testing {

class H2TestServer {
 public:
  H2TestServer();
  ~H2TestServer();  // stops accepting, closes the connections, joins the threads
  H2TestServer(const H2TestServer&) = delete;
  H2TestServer& operator=(const H2TestServer&) = delete;

  std::string url(std::string_view path) const;
  int accepted() const { return accepted_.load(); }
  int closed_by_client() const { return closed_by_client_.load(); }
  int resets() const { return resets_.load(); }
  int requests() const { return requests_.load(); }

 private:
  void accept_loop();
  void serve(int fd);

  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::atomic<int> closed_by_client_{0};
  std::atomic<int> resets_{0};
  std::atomic<int> requests_{0};
  std::mutex mutex_;
  std::vector<int> fds_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

}  // namespace stampede::testing
