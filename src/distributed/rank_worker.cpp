#include "distributed/rank_worker.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <fmt/format.h>

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>

#include "common/address_list.hpp"
#include "distributed/rank_dump.hpp"
#include "distributed/rank_plan.hpp"
#include "distributed/rank_split.hpp"
#include "distributed/rank_wait.hpp"
#include "distributed/snapshot_wire.hpp"
#include "distributed/start_line.hpp"
#include "engine/measured_run.hpp"

namespace stampede::distributed {

namespace {

constexpr Nanos kPollEvery = 5 * kMilli;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The scenario as rank 0 has it: this machine's copy when it is the same file, otherwise
// the text rank 0 sent, written to a private directory (a scenario that loads other files
// relative to itself needs them on every machine; the guide says so) that goes away with
// this object, when the rank's share of the scenario is over (or failed).
class ScenarioCopy {
 public:
  ScenarioCopy(const RankPlan& plan, int rank) {
    std::error_code ec;
    if (std::filesystem::exists(plan.file, ec) && read_file(plan.file) == plan.source) {
      path_ = plan.file;
      return;
    }
    dir_ = std::filesystem::temp_directory_path() / fmt::format("stampede-rank{}-{}", rank, getpid());
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / std::filesystem::path(plan.file).filename()).string();
    std::ofstream(path_, std::ios::binary) << plan.source;
  }
  ~ScenarioCopy() {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  ScenarioCopy(const ScenarioCopy&) = delete;
  ScenarioCopy& operator=(const ScenarioCopy&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::filesystem::path dir_;  // empty: this machine's own file
  std::string path_;
};

// Seconds merged on worker threads wait here for the main thread, the only one that
// talks MPI.
class Outbox {
 public:
  void put(std::string bytes) {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(bytes));
  }
  std::deque<std::string> take() {
    std::lock_guard lock(mutex_);
    return std::exchange(queue_, {});
  }

 private:
  std::mutex mutex_;
  std::deque<std::string> queue_;
};

// Runs one scenario's share; returns the error to report to rank 0 ("" when it ran).
std::string run_share(World& world, const RankPlan& plan, const RankWorkerOptions& options) {
  metrics::Registry registry;
  engine::RunPlan run_plan;
  run_plan.shape = plan.shape;
  run_plan.threads =
      rank_threads(engine::worker_threads(options.threads, options.cpu_policy), plan.shape, world.size());
  run_plan.cpu_policy = options.cpu_policy;
  const Segments seg = segments_of(world.all_gather(run_plan.threads), world.rank());
  run_plan.first_segment = seg.first;
  run_plan.total_segments = seg.total;

  Outbox outbox;
  std::string error;
  std::unique_ptr<ScenarioCopy> copy;  // declared before the run, so it outlives it
  std::unique_ptr<engine::MeasuredRun> run;
  bool loaded = false;
  try {
    copy = std::make_unique<ScenarioCopy>(plan, world.rank());
    run_plan.env = scenario::RuntimeEnv{copy->path(), 0, plan.setup_data, plan.insecure};
    run_plan.local_addresses = parse_address_list(plan.local_addresses);
    run = std::make_unique<engine::MeasuredRun>(run_plan, registry);
    run->collector().subscribe([&outbox, &registry](const metrics::Snapshot& second) {
      outbox.put(encode_snapshot(second, registry));
    });
    run->load();
    loaded = true;
  } catch (const std::exception& e) {
    error = e.what();
    world.send(0, MessageType::Error, error);
  }
  const std::optional<Nanos> t0 = agree_start(world, loaded);
  if (!t0) {
    world.wait_sends();
    return error;  // nobody runs; rank 0 says why
  }

  // Rank 0 presumed dead while this rank runs (killed: its beats stopped): nobody is left
  // to merge what this rank measures, so its load stops at once and the job ends.
  std::optional<std::string> rank0_lost;
  const auto pump = [&] {
    for (std::string& bytes : outbox.take()) world.send(0, MessageType::Second, bytes);
    world.progress_sends();
    while (auto m = world.poll()) {
      if (m->type != MessageType::Stop) continue;
      std::uint64_t sequence = 0;
      int graceful = 0;
      std::istringstream(m->payload) >> sequence >> graceful;
      if (sequence == plan.sequence) run->stop(graceful != 0);  // an old stop is for an earlier scenario
    }
    if (!rank0_lost && (rank0_lost = world.rank0_lost("ran its share of the load"))) run->stop(false);
  };
  boost::asio::io_context& io = run->io();
  boost::asio::steady_timer timer(io);
  std::function<void()> arm = [&] {
    timer.expires_after(std::chrono::nanoseconds(kPollEvery));
    timer.async_wait([&](const boost::system::error_code& ec) {
      if (ec) return;
      pump();
      arm();
    });
  };
  arm();
  run->start(*t0);
  run->run_to_end();
  if (rank0_lost) {
    std::fprintf(stderr, "%s; stopping\n", rank0_lost->c_str());
    std::fflush(stderr);
    world.abort(kRankLostStatus);
  }
  for (std::string& bytes : outbox.take()) world.send(0, MessageType::Second, bytes);
  world.send(0, MessageType::Done, "");
  world.wait_sends();
  if (!options.dump_dir.empty())
    write_dump(options.dump_dir, fmt::format("rank-{}", world.rank()),
               summary_dump_json(run->collector().summary(), registry, world.rank()));
  return {};
}

}  // namespace

int serve_rank(World& world, const RankWorkerOptions& options) {
  // mpirun passes SIGUSR1 on to every rank as the user's Ctrl-C; rank 0 hears it and stops
  // the others through MPI, so here it must only not end the process (its default).
  std::signal(SIGUSR1, SIG_IGN);
  int status = 0;
  for (;;) {
    std::string bytes;
    world.broadcast(bytes);
    const RankPlan plan = decode_plan(bytes);
    if (plan.done) {
      if (plan.exit_status != 0) world.end_with(plan.exit_status);
      break;
    }
    const std::string error = run_share(world, plan, options);
    if (!error.empty()) {
      std::fprintf(stderr, "rank %d: error: %s\n", world.rank(), error.c_str());
      status = 2;
    }
  }
  return status;
}

}  // namespace stampede::distributed
