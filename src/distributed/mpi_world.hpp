#pragma once
// This process's place in an MPI job, and the few MPI calls Stampede makes.
//
// MPI is started only when a launcher started us (mpirun sets OMPI_COMM_WORLD_SIZE, Slurm
// and other PMI launchers set PMI_SIZE): a plain `stampede run` never touches MPI.
// MPI calls are made on the main thread, except rank 0's beats (rank_wait.hpp), sent from
// a thread of their own: every call holds one mutex (MPI_THREAD_SERIALIZED). Worker
// threads hand their bytes to the main thread.
//
// The run's point-to-point traffic is one tag, with the message type as the first byte, so
// a rank's messages reach rank 0 in the order they were sent (MPI's non-overtaking rule
// holds for messages that match the same receive). The exchanges before a run ("collective"
// below) are point-to-point messages on a tag of their own, polled, so that no wait for a
// dead rank can last: rank 0 gives up on ranks that do not answer within the rank timeout
// (NoAnswer), and the others give up on rank 0 when it stops beating.
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.hpp"

namespace stampede::distributed {

// The size of the job this process was launched in by an MPI launcher; 0 when none.
int launched_world_size();

enum class MessageType : char {
  Second = 'S',  // a rank's merged second (snapshot_wire.hpp)
  Done = 'D',    // a rank finished the scenario; the payload is its error, if it failed
  Error = 'E',   // a rank could not load the scenario; the payload says why
  Stop = 'T',    // rank 0 to the others: stop; the payload is the sequence and "graceful"
};

struct Message {
  int from = 0;
  MessageType type = MessageType::Second;
  std::string payload;
};

class World {
 public:
  World();  // MPI_Init_thread; throws std::runtime_error when MPI cannot start
  ~World();  // MPI_Finalize (after waiting for this rank's sends)
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Bounds the waits of the collectives below (rank 0 calls it, before the first): rank 0
  // throws NoAnswer when ranks have not answered within `timeout`, and starts beating, so
  // that the others wait for it as long as it is alive and end the job (exit 3) once it has
  // sent nothing for `timeout`. Until then the waits have no bound.
  void bound_waits(Nanos timeout);

  // Collective: every rank calls these in the same order. On rank 0, broadcasts never wait.
  void broadcast(std::string& bytes);        // rank 0's bytes to everyone
  std::int64_t broadcast(std::int64_t value);
  std::vector<int> all_gather(int value);   // everyone's value, by rank

  // Non-blocking send: the bytes are kept until MPI is done with them.
  void send(int to, MessageType type, std::string_view payload);
  // Completes what sends it can; true when none is pending.
  bool progress_sends();
  void wait_sends();
  // A message for this rank, if one has arrived (never blocks). Also takes in beats.
  std::optional<Message> poll();
  // On a rank other than 0, after poll(): why rank 0 is presumed dead (it has beaten, and
  // then sent nothing for its rank timeout), or nullopt while it lives. `while_doing` says
  // what this rank was waiting for or doing ("waited for it", "ran its share").
  std::optional<std::string> rank0_lost(std::string_view while_doing) const;

  // Ends the whole job now, every rank, with this exit status. Does not return.
  [[noreturn]] void abort(int status);

  // Ends a job whose ranks are all alive with `status` (not 0) through rank 0's abort, the
  // only status mpirun passes on under orte_abort_on_non_zero_status 0; every rank calls it
  // once rank 0 has told them the status. No rank finalizes: an abort while other ranks were
  // in MPI_Finalize deadlocked mpirun's own finalize in 10 jobs of 1,520 with OpenMPI 4.1.4
  // (docs/design/032-ending-a-failed-job.md). The others say they are ready, then wait without
  // calling MPI to be killed; rank 0 waits for them (bounded by the rank timeout), then
  // aborts. A rank still alive max(rank timeout, 10 s) later exits by itself.
  [[noreturn]] void end_with(int status);

 private:
  struct Pending;
  struct Beats;
  void send_control(int to, std::shared_ptr<const std::string> bytes);
  std::optional<std::string> try_receive(int from);  // the next exchange message from `from`
  std::string receive_from_rank0();                   // waits while rank 0 is alive
  void take_beats();
  void stop_beats();

  int rank_ = 0;
  int size_ = 1;
  bool serialized_ = false;  // MPI gave MPI_THREAD_SERIALIZED: rank 0 may beat
  Nanos rank_timeout_ = 0;   // bound_waits()
  std::mutex mpi_;           // held by every MPI call
  std::deque<Pending>* sends_;  // heap: keeps <mpi.h> out of this header
  std::unique_ptr<Beats> beats_;
};

}  // namespace stampede::distributed
