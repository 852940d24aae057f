#include "distributed/launcher.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace stampede::distributed {

namespace {

// Drops `--name VALUE` and `--name=VALUE` from argv.
std::vector<std::string> without_option(const std::vector<std::string>& argv, const std::string& name) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == name) {
      ++i;  // and its value
      continue;
    }
    if (argv[i].rfind(name + "=", 0) == 0) continue;
    out.push_back(argv[i]);
  }
  return out;
}

}  // namespace

std::vector<std::string> mpirun_command(const LaunchRequest& request) {
  std::string hosts;
  std::size_t from = 0;
  while (from <= request.nodes.size()) {
    std::size_t comma = request.nodes.find(',', from);
    if (comma == std::string::npos) comma = request.nodes.size();
    const std::string host = request.nodes.substr(from, comma - from);
    if (!host.empty()) hosts += fmt::format("{}{}:{}", hosts.empty() ? "" : ",", host, request.procs_per_node);
    from = comma + 1;
  }
  if (hosts.empty()) throw std::invalid_argument("--nodes: no host given (e.g. --nodes host1,host2)");
  if (request.procs_per_node < 1) throw std::invalid_argument("--procs-per-node must be at least 1");

  std::vector<std::string> cmd{"mpirun", "-q", "-H", hosts};
  if (request.as_root) cmd.push_back("--allow-run-as-root");
  cmd.insert(cmd.end(), {"--mca", "orte_abort_on_non_zero_status", "0"});
  cmd.push_back(request.self);
  std::vector<std::string> rest = without_option(without_option(request.argv, "--nodes"), "--procs-per-node");
  cmd.insert(cmd.end(), rest.begin() + (rest.empty() ? 0 : 1), rest.end());
  return cmd;
}

int exec_mpirun(const std::vector<std::string>& command) {
  std::vector<char*> args;
  for (const std::string& a : command) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(stdout);
  execvp(args[0], args.data());
  std::fprintf(stderr, "error: cannot start %s: %s (install OpenMPI: apt-get install openmpi-bin)\n", args[0],
               std::strerror(errno));
  return 2;
}

}  // namespace stampede::distributed
