// The end of an MPI job that fails, without Stampede: what bench/mpi-ending measures
// OpenMPI itself on (docs/design/032-ending-a-failed-job.md).
//
// Rank 0 tells the others the job is over (one message), then ends the job with
// MPI_Abort(1), the only status mpirun passes on under orte_abort_on_non_zero_status 0.
//   argv[1] = finalize: the others MPI_Finalize as soon as they hear it (Stampede before
//             design 032); the abort races their finalize.
//   argv[1] = wait:     the others answer "ready" and then wait, calling no MPI, to be
//             killed (World::end_with); rank 0 aborts once every answer is in.
// Either way mpirun should exit 1 at once; the bench counts the runs where it did not.
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { kRelease = 8, kReady = 9 };

int main(int argc, char** argv) {
  if (argc != 2 || (strcmp(argv[1], "finalize") != 0 && strcmp(argv[1], "wait") != 0)) {
    fprintf(stderr, "usage: mpi_end_race finalize|wait\n");
    return 2;
  }
  const int wait = strcmp(argv[1], "wait") == 0;
  int provided = 0, rank = 0, size = 0;
  MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int one = 1;
  if (rank == 0) {
    for (int r = 1; r < size; ++r) MPI_Send(&one, 1, MPI_INT, r, kRelease, MPI_COMM_WORLD);
    if (wait)
      for (int r = 1; r < size; ++r) MPI_Recv(&one, 1, MPI_INT, r, kReady, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Recv(&one, 1, MPI_INT, 0, kRelease, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (!wait) return MPI_Finalize();
  MPI_Send(&one, 1, MPI_INT, 0, kReady, MPI_COMM_WORLD);
  sleep(30);  // killed long before
  _exit(1);
}
