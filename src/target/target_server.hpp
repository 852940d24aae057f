#pragma once
// The built-in target server, in process: `stampede target` runs it from the command line,
// `stampede demo` and the tests start it on port 0 next to the load generator.
//
//   TargetServer server(options);
//   server.start();             // returns once listening; serves on its own threads
//   ... hit http://127.0.0.1:<server.port()>/ ...
//   Truth truth = server.truth();
//   server.stop();
//
// Call its methods from one controlling thread (not from the server's own threads).
#include <cstdint>
#include <memory>

#include "target/target_options.hpp"
#include "target/truth.hpp"

namespace stampede::target {

class TargetServer {
 public:
  explicit TargetServer(TargetOptions options);
  ~TargetServer();  // stops
  TargetServer(const TargetServer&) = delete;
  TargetServer& operator=(const TargetServer&) = delete;

  // Binds every worker's listener and starts the threads. Throws std::runtime_error with a
  // sentence for the user ("cannot listen on 127.0.0.1:4000: Address already in use").
  void start();

  // The bound port (the kernel's choice when listening on port 0); 0 before start().
  std::uint16_t port() const;
  // The TLS listener's port (TargetOptions::tls_listen); 0 without one, or before start().
  std::uint16_t tls_port() const;

  // What the workers held since start or the last reset (after stop(): the final record).
  Truth truth() const;
  void reset_truth();

  // Stops accepting, closes every connection (responses still on hold are dropped and not
  // counted) and joins the threads. Idempotent.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stampede::target
