#pragma once
// This process's place in an MPI job, and the few MPI calls Stampede makes.
//
// MPI is started only when a launcher started us (mpirun sets OMPI_COMM_WORLD_SIZE, Slurm
// and other PMI launchers set PMI_SIZE): a plain `stampede run` never touches MPI.
// Every MPI call is made on the main thread (MPI_THREAD_FUNNELED): worker threads hand
// their bytes to it.
//
// Point-to-point traffic is one tag, with the message type as the first byte, so a
// rank's messages reach rank 0 in the order they were sent (MPI's non-overtaking rule
// holds for messages that match the same receive).
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

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

  // Collective: every rank calls these in the same order.
  void broadcast(std::string& bytes);        // rank 0's bytes to everyone
  std::int64_t broadcast(std::int64_t value);
  std::vector<int> all_gather(int value);   // everyone's value, by rank

  // Non-blocking send: the bytes are kept until MPI is done with them.
  void send(int to, MessageType type, std::string_view payload);
  // Completes what sends it can; true when none is pending.
  bool progress_sends();
  void wait_sends();
  // A message for this rank, if one has arrived (never blocks).
  std::optional<Message> poll();

  // Ends the whole job now, every rank, with this exit status. Does not return.
  [[noreturn]] void abort(int status);

 private:
  struct Pending;
  int rank_ = 0;
  int size_ = 1;
  std::deque<Pending>* sends_;  // heap: keeps <mpi.h> out of this header
};

}  // namespace stampede::distributed
