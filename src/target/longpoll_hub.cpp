#include "target/longpoll_hub.hpp"

#include <boost/asio/post.hpp>

#include "target/worker.hpp"

namespace stampede::target {

void LongPollHub::run_on(unsigned owner, Worker& from, std::function<void(Worker&)> job) {
  Worker* target = owner < workers_.size() ? workers_[owner] : &from;
  if (target == &from) {
    job(from);
    return;
  }
  boost::asio::post(target->io(), [target, job = std::move(job)] { job(*target); });
}

}  // namespace stampede::target
