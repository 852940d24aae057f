#pragma once
// When the kernel received what a read returns: the truth of a request starts there, not when
// the target's loop got round to reading it (docs/design/053). On a shared machine the loop
// may wake a millisecond after the bytes arrived; a client counts that wait, so the target
// must too, or every generator looks late by the target's own lateness.
//
// SO_TIMESTAMPNS stamps each received segment on the real-time clock; recvmsg returns the
// newest stamp among the segments it copied. The stamp is moved onto the monotonic clock with
// the two clocks' offset read at the same moment as the read.
#include <sys/types.h>

#include <boost/asio/buffer.hpp>
#include <boost/system/error_code.hpp>
#include <cstddef>

#include "common/clock.hpp"

namespace stampede::transport {

// Asks the kernel to stamp what `fd` (a TCP socket) receives. false: it would not (the reads
// then return no stamp and the caller falls back on its own clock).
bool enable_receive_timestamps(int fd);

struct StampedRead {
  ssize_t bytes = -1;  // as recv(): -1 with errno set, 0 at the end of the stream
  Nanos received_at = 0;  // monotonic; 0 when the kernel gave no stamp
};

// recvmsg() into `data`, with the stamp of the newest segment read.
StampedRead read_stamped(int fd, char* data, std::size_t size);

// read_stamped() as an Asio read_some on a non-blocking socket reports it: the byte count
// (> 0), or 0 with `ec` set (would_block, eof, or the error); an interrupted call is made
// again. `received_at`: the kernel's stamp, or the monotonic clock now when it gave none.
std::size_t read_available_stamped(int fd, boost::asio::mutable_buffer into, boost::system::error_code& ec,
                                   Nanos& received_at);

// A real-time stamp on the monotonic clock, given both clocks read now. Never later than
// `monotonic_now` (a stamp cannot be in the future; a clock step could make it look so).
Nanos realtime_to_monotonic(Nanos realtime_stamp, Nanos realtime_now, Nanos monotonic_now);

}  // namespace stampede::transport
