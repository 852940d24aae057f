#pragma once
// `stampede target --procs N`: N target processes on one port (SO_REUSEPORT: the kernel
// spreads new connections over them), so the target can hold more connections than one
// process's file limit allows.
//
// Truth across processes: each process keeps its own record and answers /__truth,
// /__channels and /__reset for itself (the live endpoints are per process: a request lands
// on whichever process the kernel picked). At exit the parent collects every process's
// final truth over a pipe and merges it: counts add up exactly, the mean and max are
// exact, and the merged file lists each process's percentiles (percentiles of a merge
// cannot be computed from percentiles; for exact ones use one process, as the accuracy
// tests do).
#include "target/target_options.hpp"

namespace stampede::target {

// Runs until SIGINT/SIGTERM (passed on to the children) or until a child dies. Returns
// the exit status (1 when a child failed).
int run_target_processes(const TargetOptions& options, unsigned procs);

}  // namespace stampede::target
