#include "distributed/mpi_world.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "distributed/rank_wait.hpp"

namespace stampede::distributed {

namespace {

constexpr int kTag = 7;         // the run's messages (MessageType first)
constexpr int kExchangeTag = 8;  // the collectives' messages, raw bytes
constexpr int kBeatTag = 9;      // rank 0 is alive: its rank timeout, an int64
// A wait sleeps between polls (PollBackoff, rank_wait.hpp: 200 µs growing to 10 ms).
void sleep_before_next_poll(PollBackoff& backoff, bool heard) {
  std::this_thread::sleep_for(std::chrono::nanoseconds(backoff.next(heard)));
}

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

std::string pack_int64(std::int64_t v) { return std::string(reinterpret_cast<const char*>(&v), sizeof v); }

struct Received {
  int from = 0;
  std::string bytes;
};

// The next message with `tag` from `from` (or MPI_ANY_SOURCE) if one has arrived; never
// waits: the receive comes only after Iprobe said the message is here. The caller holds
// the World's MPI lock.
std::optional<Received> receive_if_arrived(int from, int tag) {
  int flag = 0;
  MPI_Status status;
  check(MPI_Iprobe(from, tag, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
  if (flag == 0) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  Received r{status.MPI_SOURCE, std::string(static_cast<std::size_t>(count), '\0')};
  check(MPI_Recv(r.bytes.data(), count, MPI_CHAR, r.from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  return r;
}

}  // namespace

int launched_world_size() {
  if (int n = env_int("OMPI_COMM_WORLD_SIZE"); n > 0) return n;
  return env_int("PMI_SIZE");
}

struct World::Pending {
  std::shared_ptr<const std::string> bytes;  // shared by a broadcast's sends
  MPI_Request request = MPI_REQUEST_NULL;
};

// Rank 0's beat thread, and the others' view of rank 0.
struct World::Beats {
  std::mutex mutex;
  std::condition_variable wake;
  bool stop = false;
  std::thread thread;
  std::int64_t payload = 0;  // rank 0's timeout; the beats' send buffer
  Liveness rank0;
};

World::World() : sends_(new std::deque<Pending>), beats_(std::make_unique<Beats>()) {
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
  serialized_ = provided >= MPI_THREAD_SERIALIZED;
  // Errors come back as return codes instead of ending the job: a rank that died must not
  // take rank 0 (and what it measured) with it.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

World::~World() {
  stop_beats();
  wait_sends();
  delete sends_;
  MPI_Finalize();
}

void World::bound_waits(Nanos timeout) {
  rank_timeout_ = timeout;
  if (rank_ != 0 || size_ < 2 || !serialized_ || beats_->thread.joinable()) return;
  beats_->payload = timeout;
  beats_->thread = std::thread([this, every = std::chrono::nanoseconds(beat_interval(timeout))] {
    std::unique_lock lock(beats_->mutex);
    do {
      std::lock_guard mpi(mpi_);
      for (int r = 1; r < size_; ++r) {
        // A beat is never waited for: to a dead rank it may never complete.
        MPI_Request request = MPI_REQUEST_NULL;
        if (MPI_Isend(&beats_->payload, 1, MPI_INT64_T, r, kBeatTag, MPI_COMM_WORLD, &request) == MPI_SUCCESS)
          MPI_Request_free(&request);
      }
    } while (!beats_->wake.wait_for(lock, every, [this] { return beats_->stop; }));
  });
}

void World::stop_beats() {
  if (!beats_->thread.joinable()) return;
  {
    std::lock_guard lock(beats_->mutex);
    beats_->stop = true;
  }
  beats_->wake.notify_all();
  beats_->thread.join();
}

void World::take_beats() {
  for (;;) {
    int flag = 0;
    MPI_Status status;
    std::int64_t timeout = 0;
    {
      std::lock_guard mpi(mpi_);
      check(MPI_Iprobe(MPI_ANY_SOURCE, kBeatTag, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
      if (flag == 0) return;
      check(MPI_Recv(&timeout, 1, MPI_INT64_T, status.MPI_SOURCE, kBeatTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
            "MPI_Recv");
    }
    if (status.MPI_SOURCE == 0) beats_->rank0.beat(SteadyClock::monotonic_now(), timeout);
  }
}

void World::send_control(int to, std::shared_ptr<const std::string> bytes) {
  std::lock_guard mpi(mpi_);
  Pending& p = sends_->emplace_back();
  p.bytes = std::move(bytes);
  check(MPI_Isend(p.bytes->data(), static_cast<int>(p.bytes->size()), MPI_CHAR, to, kExchangeTag, MPI_COMM_WORLD,
                  &p.request),
        "MPI_Isend");
}

std::optional<std::string> World::try_receive(int from) {
  std::lock_guard mpi(mpi_);
  std::optional<Received> r = receive_if_arrived(from, kExchangeTag);
  if (!r) return std::nullopt;
  return std::move(r->bytes);
}

std::optional<std::string> World::rank0_lost(std::string_view while_doing) const {
  const Liveness& rank0 = beats_->rank0;
  const Nanos now = SteadyClock::monotonic_now();
  if (rank_ == 0 || !rank0.presumed_dead(now)) return std::nullopt;
  return fmt::format("rank {}: error: rank 0 sent nothing for {:.1f} s (its rank timeout is {:.1f} s) while this "
                     "rank {}; it may have died",
                     rank_, static_cast<double>(rank0.silence(now)) / kSecond,
                     static_cast<double>(rank0.timeout()) / kSecond, while_doing);
}

std::string World::receive_from_rank0() {
  beats_->rank0.started(SteadyClock::monotonic_now());
  PollBackoff backoff;
  for (;;) {
    if (auto bytes = try_receive(0)) return std::move(*bytes);
    take_beats();
    if (const auto lost = rank0_lost("waited for it")) {
      std::fprintf(stderr, "%s\n", lost->c_str());
      std::fflush(stderr);
      abort(kRankLostStatus);
    }
    sleep_before_next_poll(backoff, false);
  }
}

void World::broadcast(std::string& bytes) {
  if (rank_ != 0) {
    bytes = receive_from_rank0();
    return;
  }
  const auto shared = std::make_shared<const std::string>(bytes);
  for (int r = 1; r < size_; ++r) send_control(r, shared);
  progress_sends();
}

std::int64_t World::broadcast(std::int64_t value) {
  std::string bytes = pack_int64(value);
  broadcast(bytes);
  if (bytes.size() != sizeof value) throw std::runtime_error("malformed broadcast from rank 0");
  std::memcpy(&value, bytes.data(), sizeof value);
  return value;
}

std::vector<int> World::all_gather(int value) {
  std::vector<int> all(static_cast<std::size_t>(size_));
  const std::size_t all_bytes = all.size() * sizeof(int);
  if (rank_ != 0) {
    send_control(0, std::make_shared<const std::string>(reinterpret_cast<const char*>(&value), sizeof value));
    const std::string bytes = receive_from_rank0();
    if (bytes.size() != all_bytes) throw std::runtime_error("malformed all-gather from rank 0");
    std::memcpy(all.data(), bytes.data(), all_bytes);
    return all;
  }
  all[0] = value;
  std::vector<int> others;
  for (int r = 1; r < size_; ++r) others.push_back(r);
  AnswerWait wait(std::move(others), SteadyClock::monotonic_now(), rank_timeout_);
  PollBackoff backoff;
  while (!wait.complete()) {
    bool heard = false;
    for (int r : std::vector<int>(wait.awaited())) {
      auto bytes = try_receive(r);
      if (!bytes) continue;
      if (bytes->size() != sizeof value) throw std::runtime_error("malformed all-gather from rank " + std::to_string(r));
      std::memcpy(&all[static_cast<std::size_t>(r)], bytes->data(), sizeof value);
      wait.answered(r);
      heard = true;
    }
    if (wait.complete()) break;
    if (auto late = wait.overdue(SteadyClock::monotonic_now()); !late.empty()) throw NoAnswer(late, rank_timeout_);
    sleep_before_next_poll(backoff, heard);
  }
  std::string bytes(all_bytes, '\0');
  std::memcpy(bytes.data(), all.data(), all_bytes);
  broadcast(bytes);
  return all;
}

void World::send(int to, MessageType type, std::string_view payload) {
  auto bytes = std::make_shared<std::string>();
  bytes->reserve(payload.size() + 1);
  bytes->push_back(static_cast<char>(type));
  *bytes += payload;
  std::lock_guard mpi(mpi_);
  Pending& p = sends_->emplace_back();
  p.bytes = bytes;
  check(MPI_Isend(bytes->data(), static_cast<int>(bytes->size()), MPI_CHAR, to, kTag, MPI_COMM_WORLD, &p.request),
        "MPI_Isend");
}

bool World::progress_sends() {
  std::lock_guard mpi(mpi_);
  // Sends to several ranks (a broadcast's) complete in any order: test them all.
  std::erase_if(*sends_, [](Pending& p) {
    int done = 0;
    MPI_Test(&p.request, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
  return sends_->empty();
}

void World::wait_sends() {
  std::lock_guard mpi(mpi_);
  for (Pending& p : *sends_) MPI_Wait(&p.request, MPI_STATUS_IGNORE);
  sends_->clear();
}

std::optional<Message> World::poll() {
  take_beats();
  std::lock_guard mpi(mpi_);
  std::optional<Received> r = receive_if_arrived(MPI_ANY_SOURCE, kTag);
  if (!r) return std::nullopt;
  if (r->bytes.empty()) throw std::runtime_error("empty message from rank " + std::to_string(r->from));
  Message m;
  m.from = r->from;
  m.type = static_cast<MessageType>(r->bytes[0]);
  m.payload = r->bytes.substr(1);
  return m;
}

void World::end_with(int status) {
  std::fflush(nullptr);  // nothing after this runs exit()'s flush
  if (rank_ == 0) {
    std::vector<int> others;
    for (int r = 1; r < size_; ++r) others.push_back(r);
    AnswerWait wait(std::move(others), SteadyClock::monotonic_now(), rank_timeout_);
    // A rank that does not answer in time is ended by the abort all the same.
    PollBackoff backoff;
    while (!wait.complete() && wait.overdue(SteadyClock::monotonic_now()).empty()) {
      for (int r : std::vector<int>(wait.awaited()))
        if (try_receive(r)) wait.answered(r);
      progress_sends();
      if (!wait.complete()) sleep_before_next_poll(backoff, false);
    }
    abort(status);
  }
  const Nanos bound = std::max(beats_->rank0.timeout(), 10 * kSecond);
  const Nanos give_up = SteadyClock::monotonic_now() + bound;
  send_control(0, std::make_shared<const std::string>("R"));
  PollBackoff backoff;
  while (!progress_sends() && SteadyClock::monotonic_now() < give_up) sleep_before_next_poll(backoff, false);
  while (SteadyClock::monotonic_now() < give_up) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::fprintf(stderr, "rank %d: error: rank 0 did not end the job within %.1f s of the run's end; exiting with %d\n",
               rank_, static_cast<double>(bound) / kSecond, status);
  std::fflush(stderr);
  std::_Exit(status);
}

void World::abort(int status) {
  // Not while the beat thread is in a call (MPI_THREAD_SERIALIZED); it never holds the lock long.
  std::lock_guard mpi(mpi_);
  MPI_Abort(MPI_COMM_WORLD, status);
  std::_Exit(status);
}

}  // namespace stampede::distributed
