#pragma once
// Plain-socket writes gathered over one turn of a worker's loop and handed to the kernel in
// one io_uring submission, instead of one sendmsg system call each.
//
// Why: on the VMs we measure on (kernel page-table isolation), entering and leaving the
// kernel costs ~1 µs on top of the call's own work; a send and a receive per request cost
// 6.9-8.6 µs one call at a time and 4.7-6.8 µs with the sends of 10 sockets in one
// submission (docs/design/028-batched-sends-through-io-uring.md). Each send is made with
// MSG_DONTWAIT, so the kernel does it during the submission, completely, in part, or not at
// all (a full socket buffer): every result is known when submit returns, and what was not
// sent is left to the caller (Stream finishes it with an ordinary Asio write).
//
// One per worker (ClientContext owns it), used from that worker's thread only. open()
// returns null where io_uring is unavailable (an old kernel, a seccomp profile that blocks
// it, kernel.io_uring_disabled) or STAMPEDE_IO_URING=0 turned it off; callers then write
// as before.
#include <sys/uio.h>

#include <boost/asio/io_context.hpp>
#include <boost/system/error_code.hpp>
#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "common/clock.hpp"
#include "common/inline_function.hpp"

namespace stampede::transport {

class SendBatch {
 public:
  // The most buffers one send may have (HTTP: the head and the body).
  static constexpr std::size_t kMaxBuffers = 4;

  // What became of one send, called from the loop (never inside queue()):
  //   sent == the bytes asked for: all sent;
  //   0 <= sent < asked, ec empty: the socket took only that much (or nothing) without
  //     waiting; the rest is the caller's to send;
  //   ec set: the socket's error (broken_pipe, connection_reset, ...), or operation_aborted
  //     when `still_wanted` said no before the send was made.
  // `sent_at` is when the batch went to the kernel (the batch's clock); `buffers` are the
  // ones queued, for sending the rest. Both callbacks keep their captures inline (one send
  // per request: no allocation for it, docs/design/031).
  using Done = InlineFunction<void(const boost::system::error_code& ec, std::size_t sent, Nanos sent_at,
                                   std::span<const iovec> buffers),
                              96>;
  // Asked just before the send is made: false when the stream closed meanwhile (its file
  // descriptor may by now belong to another socket, which must not get these bytes).
  using StillWanted = InlineFunction<bool(), 32>;
  // Asked just before the send is made, instead of buffers given up front: fills `buffers`
  // and returns how many it filled, or 0 for no send after all (then `done` is told
  // operation_aborted, as for StillWanted's no). The buffers must stay alive until `done`.
  using Gather = InlineFunction<std::size_t(std::array<iovec, kMaxBuffers>& buffers), 64>;

  // Null when io_uring cannot be used here (see the top of this file).
  static std::unique_ptr<SendBatch> open(boost::asio::io_context& io, const Clock& clock);

  ~SendBatch();
  SendBatch(const SendBatch&) = delete;
  SendBatch& operator=(const SendBatch&) = delete;

  // Queues a send of `buffers` (at most kMaxBuffers, kept alive by the caller until `done`)
  // on socket `fd`; it is made with every other send queued before the loop's next turn.
  void queue(int fd, const std::array<iovec, kMaxBuffers>& buffers, std::size_t count, StillWanted still_wanted,
             Done done);
  // The same, with the bytes asked for by `gather` when the batch is sent: a caller can keep
  // adding to them for the rest of the loop turn (a WebSocket's frames of one turn, one send).
  void queue_gathered(int fd, Gather gather, Done done);

  // For tests and the design note's numbers: submissions made, sends they carried.
  std::size_t submissions() const { return submissions_; }
  std::size_t sends() const { return sends_; }
  // Entries' room kept between batches (for tests): at most two ring's worth.
  std::size_t kept_capacity() const;

 private:
  struct Ring;
  struct Entry;
  SendBatch(boost::asio::io_context& io, const Clock& clock, std::unique_ptr<Ring> ring);
  Entry& add(int fd, Done done);  // a new entry of the next batch, whose flush it posts
  void flush();

  boost::asio::io_context& io_;
  const Clock& clock_;
  std::shared_ptr<const char> alive_ = std::make_shared<const char>('\0');  // a posted flush outliving the batch finds it expired
  std::unique_ptr<Ring> ring_;
  std::vector<Entry> queued_;
  std::vector<Entry> flushing_;  // the batch being sent; kept for its capacity
  bool flush_posted_ = false;
  std::size_t submissions_ = 0;
  std::size_t sends_ = 0;
};

}  // namespace stampede::transport
