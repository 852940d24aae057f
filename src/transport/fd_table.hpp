#pragma once
// Sizes the process's file descriptor table once, up front, for every descriptor it may open.
//
// Why: Linux grows a process's fd table by doubling it (64, 128, 256, ... entries) when a
// new descriptor does not fit, and in a process with more than one thread each growth waits
// for an RCU grace period (expand_files -> synchronize_rcu), during which the thread that
// opened the socket sleeps. On the 2-core VMs we measure on that wait was 10-20 ms per
// doubling, so a run that opened its first 1,000 connections stalled its event loop four or
// five times in its first second (iteration.lag p99 of that second: 34 ms, against 0.3 ms
// afterwards). A table that is already large never grows again, and growing it while the
// process still has a single thread costs no grace period at all.
// docs/design/015-presized-fd-table.md
#include <cstddef>

namespace stampede::transport {

// The most descriptor slots presize_fd_table() asks for, whatever the limit: 65,536 slots
// cost 512 KiB of kernel memory, a limit of a million would cost 8 MiB for nothing.
inline constexpr std::size_t kMaxPresizedFds = 65536;

// Grows the table to hold min(soft RLIMIT_NOFILE, kMaxPresizedFds) descriptors. Call it
// first thing in main, before any thread starts. Returns the number of slots asked for
// (0 when the limit could not be read or nothing was done); failures are harmless: the
// kernel then grows the table on demand as it always did.
std::size_t presize_fd_table();

}  // namespace stampede::transport
