#pragma once
// `stampede record --to URL [--listen HOST:PORT] [--allow-remote] [-o OUT.lua] [--har FILE]
// [--timeout D] [--duration D] [--keep-static] [--think-time D] [--name NAME]`: the recording
// proxy (src/record/recording_proxy.hpp). The person browses the proxy's address; Ctrl-C
// (SIGINT or SIGTERM) or the end of --duration stops it and writes the scenario, made by the
// same builder as `stampede convert`.
#include <CLI/App.hpp>
#include <string>

namespace stampede::cli {

struct RecordArgs {
  std::string to;                      // the app: http://host:port
  std::string listen = "127.0.0.1:8080";
  bool allow_remote = false;           // let --listen be an address other machines reach
  std::string output;                  // "" = stdout
  std::string har;                     // also write the recording as HAR ("" = no)
  std::string timeout = "30s";         // how long a due answer may take to start arriving
  std::string duration;                // stop by itself after this long ("" = at Ctrl-C only)
  bool keep_static = false;
  std::string think_time = "5s";
  std::string name;
};

void add_record_options(CLI::App& cmd, RecordArgs& args);
// 0 written; 2 bad options, a port that cannot be bound, or nothing recorded (the reason on stderr).
int record_command(const RecordArgs& args);

}  // namespace stampede::cli
