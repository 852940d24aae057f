#include "target/target_processes.hpp"

#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "target/descriptor_limit.hpp"
#include "target/target_server.hpp"

namespace stampede::target {

namespace {

// Port 0: the parent takes a free port first, bound with SO_REUSEPORT but not listening
// (so it gets no connections), and keeps it until the children have joined it.
int reserve_port(const ListenAddress& listen, std::uint16_t& port) {
  const bool v6 = listen.host.find(':') != std::string::npos;
  const int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  sockaddr_storage addr{};
  socklen_t len = 0;
  if (v6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&addr);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(listen.port);
    inet_pton(AF_INET6, listen.host.c_str(), &a->sin6_addr);
    len = sizeof *a;
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&addr);
    a->sin_family = AF_INET;
    a->sin_port = htons(listen.port);
    inet_pton(AF_INET, listen.host.c_str(), &a->sin_addr);
    len = sizeof *a;
  }
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    close(fd);
    return -1;
  }
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port = ntohs(v6 ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  return fd;
}

// One child: a whole target on the shared port until the parent's SIGTERM; then its final
// truth goes up the pipe, one line.
[[noreturn]] void child_main(TargetOptions options, unsigned index, int truth_pipe, const sigset_t& stop_signals) {
  options.share_port = true;
  if (options.seed) *options.seed += 1000003ULL * index;  // the same seed would draw the same delays in every process
  options.truth_out.clear();
  int status = 0;
  try {
    TargetServer server(options);
    server.start();
    int sig = 0;
    sigwait(&stop_signals, &sig);
    server.stop();
    // Exact nanoseconds, one line: count p50 p90 p95 p99 max mean.
    const Truth t = server.truth();
    const std::string line = fmt::format("{} {} {} {} {} {} {:.3f}\n", t.count, t.p50, t.p90, t.p95, t.p99, t.max, t.mean);
    if (write(truth_pipe, line.data(), line.size()) != static_cast<ssize_t>(line.size())) status = 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "stampede target (process {}): {}\n", index, e.what());
    status = 2;
  }
  close(truth_pipe);
  std::fflush(stderr);
  _exit(status);
}

}  // namespace

int run_target_processes(const TargetOptions& options, unsigned procs) {
  raise_descriptor_limit();
  // Blocked before forking: children and parent take them with sigwait, none is lost.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigset_t parent_signals = stop_signals;
  sigaddset(&parent_signals, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &parent_signals, nullptr);

  TargetOptions shared = options;
  const int reserved = reserve_port(options.listen, shared.listen.port);
  if (reserved < 0) {
    fmt::print(stderr, "stampede target: cannot listen on {}:{}: {}\n", options.listen.host, options.listen.port,
               std::strerror(errno));
    return 2;
  }

  struct Child {
    pid_t pid = -1;
    int truth = -1;  // read end of its pipe
    bool exited = false;
  };
  std::vector<Child> children(procs);
  for (unsigned i = 0; i < procs; ++i) {
    int fds[2];
    if (pipe(fds) != 0) {
      fmt::print(stderr, "stampede target: pipe: {}\n", std::strerror(errno));
      return 2;
    }
    const pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      close(reserved);
      for (unsigned j = 0; j < i; ++j) close(children[j].truth);
      child_main(shared, i, fds[1], stop_signals);
    }
    close(fds[1]);
    children[i] = {pid, fds[0], false};
  }
  fmt::print(stderr, "stampede target: {} processes sharing {}:{} (SO_REUSEPORT); /__truth, /__channels and /__reset "
                     "answer per process; the merged truth is printed at exit\n",
             procs, options.listen.host, shared.listen.port);

  int status = 0;
  int sig = 0;
  for (;;) {
    sigwait(&parent_signals, &sig);
    if (sig != SIGCHLD) break;
    // A child that ends before we asked it to is a failure: stop the others.
    bool died = false;
    for (Child& c : children) {
      int st = 0;
      if (!c.exited && waitpid(c.pid, &st, WNOHANG) == c.pid) {
        c.exited = true;
        died = true;
      }
    }
    if (died) {
      fmt::print(stderr, "stampede target: a target process ended on its own; stopping the others\n");
      status = 1;
      break;
    }
  }
  close(reserved);
  for (Child& c : children)
    if (!c.exited) kill(c.pid, SIGTERM);

  // Merge the children's final truth: counts and the sum (so the mean) exactly, the max.
  std::uint64_t count = 0;
  double weighted_mean = 0;
  Nanos max = 0;
  std::string each;
  for (Child& c : children) {
    std::string line;
    char buf[512];
    ssize_t n = 0;
    while ((n = read(c.truth, buf, sizeof buf)) > 0) line.append(buf, static_cast<std::size_t>(n));
    close(c.truth);
    if (!c.exited) waitpid(c.pid, nullptr, 0);
    while (!line.empty() && line.back() == '\n') line.pop_back();
    if (line.empty()) continue;
    Truth t;
    unsigned long long k = 0;
    long long p50 = 0, p90 = 0, p95 = 0, p99 = 0, mx = 0;
    if (std::sscanf(line.c_str(), "%llu %lld %lld %lld %lld %lld %lf", &k, &p50, &p90, &p95, &p99, &mx, &t.mean) != 7)
      continue;
    t.count = k;
    t.p50 = p50, t.p90 = p90, t.p95 = p95, t.p99 = p99, t.max = mx;
    each += (each.empty() ? "" : ",") + truth_to_json(t);
    count += t.count;
    weighted_mean += t.mean * static_cast<double>(t.count);
    max = std::max(max, t.max);
  }
  const std::string merged = fmt::format(R"({{"count":{},"mean_ms":{:.6f},"max_ms":{:.6f},"processes":[{}]}})", count,
                                         count > 0 ? weighted_mean / static_cast<double>(count) / 1e6 : 0.0,
                                         static_cast<double>(max) / 1e6, each);
  fmt::print(stderr, "stampede target: stopped; {} processes held {} requests\n", procs, count);
  if (!options.truth_out.empty()) {
    std::FILE* f = std::fopen(options.truth_out.c_str(), "w");
    if (f == nullptr || std::fputs((merged + "\n").c_str(), f) < 0 || std::fclose(f) != 0) {
      fmt::print(stderr, "stampede target: cannot write the truth to {}: {}\n", options.truth_out, std::strerror(errno));
      return 1;
    }
  }
  return status;
}

}  // namespace stampede::target
