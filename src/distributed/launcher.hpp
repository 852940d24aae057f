#pragma once
// `stampede run --nodes host1,host2 --procs-per-node 2 ...` is
// `mpirun -H host1:2,host2:2 ... stampede run ...` (minus those two flags): Stampede
// runs itself under OpenMPI's launcher, which starts the ranks over ssh, and stays in
// front of it to turn a Ctrl-C into what mpirun passes on to the ranks (SIGUSR1).
#include <optional>
#include <string>
#include <vector>

namespace stampede::distributed {

struct LaunchRequest {
  std::vector<std::string> argv;  // the command line as typed, argv[0] included
  std::string nodes;              // "host1,host2"
  int procs_per_node = 1;
  std::string self;     // this executable's absolute path (the same path on every node)
  bool as_root = false;  // OpenMPI refuses root unless told
  std::string status_file;  // where rank 0 leaves the run's exit status (empty: nowhere)
};

// The mpirun command line. Throws std::invalid_argument for an empty node list.
// Options added, and why (OpenMPI 4.1, Debian 12):
//   --mca orte_abort_on_non_zero_status 0: a rank that dies does not make mpirun kill
//     the others at once, so rank 0 can notice, keep what was measured and write it
//     (rank 0 then passes its exit status on through MPI_Abort: with this option mpirun
//     would otherwise exit 0 whatever the ranks returned);
//   -q: no banner when rank 0 ends the job that way;
//   -x STAMPEDE_STATUS_FILE=...: rank 0 leaves its exit status there (tell_launcher), for
//     mpirun's own is that of the first process that failed: 137 when a rank was killed,
//     where the run's is 3 ("a rank was lost") whether the rank died or stalled.
std::vector<std::string> mpirun_command(const LaunchRequest& request);

// On rank 0: leaves `status` where the launcher (--nodes) looks for it, when there is one.
// The file is on rank 0's machine: the launcher finds it when that is its own (the first
// of --nodes is this machine, or all of them are).
void tell_launcher(int status);
// On the launcher: the status rank 0 left in `path` (and removes the file), if any.
std::optional<int> status_told(const std::string& path);

// Runs `command` (mpirun's) as a child and returns its exit status (128 + the signal when a
// signal ended it; 2, after printing why, when it could not be started).
//
// OpenMPI's mpirun kills the whole job on SIGINT or SIGTERM, so nothing measured would be
// written; it passes SIGUSR1 on to every rank, which Stampede's ranks read as a Ctrl-C. So
// the child runs in its own process group (a terminal's Ctrl-C reaches only this process)
// with stdin from /dev/null (a background group must not read the terminal), and while it
// runs each SIGINT or SIGTERM here becomes a SIGUSR1 to it: the first stops the run
// gracefully, the second at once, and rank 0 still summarises and writes its files. If
// this process dies, the child gets SIGUSR1 too (PR_SET_PDEATHSIG).
int run_mpirun(const std::vector<std::string>& command);

}  // namespace stampede::distributed
