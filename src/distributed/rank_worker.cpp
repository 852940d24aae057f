#include "distributed/rank_worker.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "common/address_list.hpp"
#include "distributed/rank_dump.hpp"
#include "distributed/rank_plan.hpp"
#include "distributed/rank_split.hpp"
#include "distributed/rank_wait.hpp"
#include "distributed/run_peers.hpp"
#include "engine/run.hpp"

namespace stampede::distributed {

namespace {

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

  RankPeers peers(world, registry, plan.sequence);
  std::unique_ptr<ScenarioCopy> copy;  // declared before the run, so it outlives it
  try {
    copy = std::make_unique<ScenarioCopy>(plan, world.rank());
    run_plan.env = scenario::RuntimeEnv{copy->path(), 0, plan.setup_data, plan.insecure};
    run_plan.local_addresses = parse_address_list(plan.local_addresses);
  } catch (const std::exception& e) {
    peers.agree_start(false, e.what());  // nobody runs; rank 0 says why
    return e.what();
  }
  // Rank 0 stops this rank (it ignores SIGUSR1: serve_rank) and prints everything.
  engine::Run run(std::move(run_plan), registry, nullptr, &peers, engine::Run::Options{false});
  try {
    run.run();
  } catch (const std::exception& e) {
    return e.what();  // the scenario did not load here: rank 0 was told
  }
  if (peers.rank0_lost()) {
    std::fprintf(stderr, "%s; stopping\n", peers.rank0_lost()->c_str());
    std::fflush(stderr);
    world.abort(kRankLostStatus);
  }
  if (!options.dump_dir.empty())
    write_dump(options.dump_dir, fmt::format("rank-{}", world.rank()),
               summary_dump_json(run.own_collector().summary(), registry, world.rank()));
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
