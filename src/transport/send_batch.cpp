#include "transport/send_batch.hpp"

#include <liburing.h>
#include <sys/socket.h>

#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/system/system_error.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace stampede::transport {

struct SendBatch::Ring {
  io_uring ring{};
  ~Ring() { io_uring_queue_exit(&ring); }
};

struct SendBatch::Entry {
  int fd = -1;
  std::array<iovec, kMaxBuffers> buffers{};
  std::size_t count = 0;
  msghdr message{};  // filled at the flush: it points into `buffers`, and entries move until then
  StillWanted still_wanted;
  Gather gather;  // set: `buffers` and `count` come from it at the flush
  Done done;
  int result = 0;  // the send's completion: bytes sent, or -errno
  bool submitted = false;
};

namespace {

// Submission slots: a longer batch goes to the kernel in several submissions.
constexpr unsigned kRingEntries = 256;

bool disabled_by_environment() {
  const char* value = std::getenv("STAMPEDE_IO_URING");
  return value != nullptr && std::strcmp(value, "0") == 0;
}

}  // namespace

std::unique_ptr<SendBatch> SendBatch::open(boost::asio::io_context& io, const Clock& clock) {
  if (disabled_by_environment()) return nullptr;
  io_uring ring{};
  if (io_uring_queue_init(kRingEntries, &ring, 0) != 0) return nullptr;  // ENOSYS, EPERM, ENOMEM: write as before
  auto owned = std::make_unique<Ring>();
  owned->ring = ring;
  return std::unique_ptr<SendBatch>(new SendBatch(io, clock, std::move(owned)));
}

SendBatch::SendBatch(boost::asio::io_context& io, const Clock& clock, std::unique_ptr<Ring> ring)
    : io_(io), clock_(clock), ring_(std::move(ring)) {}

SendBatch::~SendBatch() = default;

std::size_t SendBatch::kept_capacity() const { return queued_.capacity() + flushing_.capacity(); }

void SendBatch::queue(int fd, const std::array<iovec, kMaxBuffers>& buffers, std::size_t count,
                      StillWanted still_wanted, Done done) {
  Entry& entry = add(fd, std::move(done));
  entry.buffers = buffers;
  entry.count = count;
  entry.still_wanted = std::move(still_wanted);
}

void SendBatch::queue_gathered(int fd, Gather gather, Done done) {
  add(fd, std::move(done)).gather = std::move(gather);
}

SendBatch::Entry& SendBatch::add(int fd, Done done) {
  Entry& entry = queued_.emplace_back();
  entry.fd = fd;
  entry.done = std::move(done);
  if (!flush_posted_) {
    flush_posted_ = true;
    // Posted behind the handlers already due, so the sends those make join this batch too.
    boost::asio::post(io_, [this, alive = std::weak_ptr<const char>(alive_)] {
      if (!alive.expired()) flush();
    });
  }
  return entry;
}

void SendBatch::flush() {
  flush_posted_ = false;
  flushing_.clear();
  std::swap(queued_, flushing_);
  io_uring* ring = &ring_->ring;

  // The kernel makes each send during the submission (MSG_DONTWAIT: it never waits for room
  // in the socket's buffer), so waiting for as many completions as sends submitted returns
  // at once, in the same system call.
  unsigned in_ring = 0;
  auto submit = [&] {
    unsigned completed = 0;
    while (completed < in_ring) {
      // Submits what the kernel has not taken yet and waits for the rest of the completions.
      const int taken = io_uring_submit_and_wait(ring, in_ring - completed);
      if (taken < 0 && taken != -EINTR && taken != -EAGAIN && taken != -EBUSY) {
        throw boost::system::system_error(-taken, boost::system::system_category(), "io_uring_enter (batched sends)");
      }
      io_uring_cqe* cqe = nullptr;
      unsigned head = 0;
      unsigned seen = 0;
      io_uring_for_each_cqe(ring, head, cqe) {
        flushing_[cqe->user_data].result = cqe->res;
        ++seen;
      }
      io_uring_cq_advance(ring, seen);
      completed += seen;
    }
    if (in_ring != 0) ++submissions_;
    in_ring = 0;
  };
  const Nanos sent_at = clock_.now();
  for (std::size_t i = 0; i < flushing_.size(); ++i) {
    Entry& entry = flushing_[i];
    if (entry.still_wanted && !entry.still_wanted()) continue;
    if (entry.gather && (entry.count = entry.gather(entry.buffers)) == 0) continue;
    io_uring_sqe* sqe = io_uring_get_sqe(ring);
    if (sqe == nullptr) {
      submit();
      sqe = io_uring_get_sqe(ring);
    }
    entry.message = msghdr{};
    entry.message.msg_iov = entry.buffers.data();
    entry.message.msg_iovlen = entry.count;
    io_uring_prep_sendmsg(sqe, entry.fd, &entry.message, MSG_DONTWAIT | MSG_NOSIGNAL);
    sqe->user_data = i;
    entry.submitted = true;
    entry.result = 0;  // not sent, unless the completion says otherwise
    ++in_ring;
    ++sends_;
  }
  submit();

  // The callbacks may queue new sends (into queued_, the next batch) and may throw: a throw
  // leaves the rest of this batch to a handler of their own, so that each is still told.
  std::size_t next = 0;
  auto complete = [sent_at](Entry& entry) {
    Done done = std::move(entry.done);
    const std::span<const iovec> buffers(entry.buffers.data(), entry.count);
    if (!entry.submitted) return done(boost::asio::error::operation_aborted, 0, sent_at, buffers);
    if (entry.result >= 0) return done({}, static_cast<std::size_t>(entry.result), sent_at, buffers);
    if (entry.result == -EAGAIN) return done({}, 0, sent_at, buffers);
    done(boost::system::error_code(-entry.result, boost::system::system_category()), 0, sent_at, buffers);
  };
  try {
    for (; next < flushing_.size(); ++next) complete(flushing_[next]);
  } catch (...) {
    std::vector<Entry> rest(std::make_move_iterator(flushing_.begin() + static_cast<std::ptrdiff_t>(next) + 1),
                            std::make_move_iterator(flushing_.end()));
    flushing_.clear();
    if (!rest.empty()) {
      boost::asio::post(io_, [rest = std::move(rest), complete]() mutable {
        for (Entry& entry : rest) complete(entry);
      });
    }
    throw;
  }
  flushing_.clear();
  // A worker that fell behind may send thousands at once (a held rank's heartbeats after a
  // stall of seconds): such a batch's room is not kept, or every rank would hold megabytes.
  if (flushing_.capacity() > kRingEntries) std::vector<Entry>().swap(flushing_);
}

}  // namespace stampede::transport
