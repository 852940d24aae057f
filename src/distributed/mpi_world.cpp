#include "distributed/mpi_world.hpp"

#include <mpi.h>

#include <cstdlib>
#include <stdexcept>

namespace stampede::distributed {

namespace {

constexpr int kTag = 7;

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? 0 : std::atoi(v);
}

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(std::string(what) + ": " + std::string(text, static_cast<std::size_t>(len)));
}

}  // namespace

int launched_world_size() {
  if (int n = env_int("OMPI_COMM_WORLD_SIZE"); n > 0) return n;
  return env_int("PMI_SIZE");
}

struct World::Pending {
  std::string bytes;
  MPI_Request request = MPI_REQUEST_NULL;
};

World::World() : sends_(new std::deque<Pending>) {
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  // Errors come back as return codes instead of ending the job: a rank that died must not
  // take rank 0 (and what it measured) with it.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

World::~World() {
  wait_sends();
  delete sends_;
  MPI_Finalize();
}

void World::broadcast(std::string& bytes) {
  std::int64_t n = broadcast(static_cast<std::int64_t>(bytes.size()));
  bytes.resize(static_cast<std::size_t>(n));
  check(MPI_Bcast(bytes.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
}

std::int64_t World::broadcast(std::int64_t value) {
  check(MPI_Bcast(&value, 1, MPI_INT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return value;
}

std::vector<int> World::all_gather(int value) {
  std::vector<int> all(static_cast<std::size_t>(size_));
  check(MPI_Allgather(&value, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
  return all;
}

void World::send(int to, MessageType type, std::string_view payload) {
  Pending& p = sends_->emplace_back();
  p.bytes.reserve(payload.size() + 1);
  p.bytes.push_back(static_cast<char>(type));
  p.bytes += payload;
  check(MPI_Isend(p.bytes.data(), static_cast<int>(p.bytes.size()), MPI_CHAR, to, kTag, MPI_COMM_WORLD, &p.request),
        "MPI_Isend");
}

bool World::progress_sends() {
  // Sends complete in order to one destination; testing from the front is enough.
  while (!sends_->empty()) {
    int done = 0;
    MPI_Test(&sends_->front().request, &done, MPI_STATUS_IGNORE);
    if (done == 0) return false;
    sends_->pop_front();
  }
  return true;
}

void World::wait_sends() {
  for (Pending& p : *sends_) MPI_Wait(&p.request, MPI_STATUS_IGNORE);
  sends_->clear();
}

std::optional<Message> World::poll() {
  int flag = 0;
  MPI_Status status;
  check(MPI_Iprobe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
  if (flag == 0) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  std::string bytes(static_cast<std::size_t>(count), '\0');
  // The message is already here (Iprobe said so): this receive does not wait.
  check(MPI_Recv(bytes.data(), count, MPI_CHAR, status.MPI_SOURCE, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Recv");
  if (bytes.empty()) throw std::runtime_error("empty message from rank " + std::to_string(status.MPI_SOURCE));
  Message m;
  m.from = status.MPI_SOURCE;
  m.type = static_cast<MessageType>(bytes[0]);
  m.payload = bytes.substr(1);
  return m;
}

void World::abort(int status) {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::_Exit(status);
}

}  // namespace stampede::distributed
