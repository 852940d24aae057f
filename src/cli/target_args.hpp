#pragma once
// `stampede target` options, parsed into target::TargetOptions.
#include <CLI/App.hpp>
#include <cstdint>
#include <optional>
#include <string>

namespace stampede::cli {

struct TargetArgs {
  std::string listen = "127.0.0.1:4000";
  std::string tls_listen;  // --tls-listen: empty, no TLS listener
  std::string delay = "fixed:0";
  std::string capacity;  // --capacity N:MS, empty: none
  std::optional<std::uint64_t> seed;
  unsigned threads = 1;
  unsigned procs = 1;  // --procs: target processes sharing the port (target/target_processes.hpp)
  std::string truth_out;
  std::string ws_idle_timeout = "60s";
  bool ws_compress = false;
  std::string longpoll_session_lifetime;  // empty: sessions end only as Phoenix ends them
  std::string liveview = "1.x";
};

void add_target_options(CLI::App& cmd, TargetArgs& args);
int target_command(const TargetArgs& args);

}  // namespace stampede::cli
