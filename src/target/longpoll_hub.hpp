#pragma once
// Carries a LongPoll request to the worker whose sessions hold its token. A client polls and
// publishes on two connections at once, which SO_REUSEPORT may hand to two workers; Phoenix
// finds the session's process through PubSub, the target posts the request to the owner's
// loop (and the owner posts the answer back to the connection's: reply callbacks do that).
//
// Lifetime: made before the workers, connected once they exist, before they run.
#include <functional>
#include <vector>

namespace stampede::target {

class Worker;

class LongPollHub {
 public:
  void connect(std::vector<Worker*> workers) { workers_ = std::move(workers); }
  // Runs `job` on worker `owner`'s loop: right here when that is `from`, else posted. An owner
  // that does not exist (a forged token) is taken as `from`.
  void run_on(unsigned owner, Worker& from, std::function<void(Worker&)> job);

 private:
  std::vector<Worker*> workers_;
};

}  // namespace stampede::target
