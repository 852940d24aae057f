#include "distributed/launcher.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>

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

constexpr std::string_view kStatusFileVariable = "STAMPEDE_STATUS_FILE";

// The running mpirun, for the signal handler (0: none).
volatile std::sig_atomic_t mpirun_pid = 0;

extern "C" void pass_on_as_usr1(int) {
  const int saved = errno;
  if (mpirun_pid > 0) kill(static_cast<pid_t>(mpirun_pid), SIGUSR1);
  errno = saved;
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
  if (!request.status_file.empty()) cmd.insert(cmd.end(), {"-x", std::string(kStatusFileVariable) + "=" + request.status_file});
  cmd.push_back(request.self);
  std::vector<std::string> rest = without_option(without_option(request.argv, "--nodes"), "--procs-per-node");
  cmd.insert(cmd.end(), rest.begin() + (rest.empty() ? 0 : 1), rest.end());
  return cmd;
}

void tell_launcher(int status) {
  const char* path = std::getenv(std::string(kStatusFileVariable).c_str());
  if (path == nullptr || *path == '\0') return;
  if (std::FILE* f = std::fopen(path, "w")) {
    std::fprintf(f, "%d\n", status);
    std::fclose(f);
  }
}

std::optional<int> status_told(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return std::nullopt;
  int status = -1;
  const bool read = std::fscanf(f, "%d", &status) == 1;
  std::fclose(f);
  std::remove(path.c_str());
  if (!read || status < 0 || status > 255) return std::nullopt;
  return status;
}

int run_mpirun(const std::vector<std::string>& command) {
  std::vector<char*> args;
  for (const std::string& a : command) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  // SIGINT and SIGTERM wait, blocked, until the handler that passes them on is in place.
  sigset_t stops;
  sigset_t before;
  sigemptyset(&stops);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  sigprocmask(SIG_BLOCK, &stops, &before);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGUSR1);
    if (getppid() != parent) kill(getpid(), SIGUSR1);  // the parent is already gone
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, STDIN_FILENO);
    if (null > STDIN_FILENO) close(null);
    sigprocmask(SIG_SETMASK, &before, nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "error: cannot start %s: %s (install OpenMPI: apt-get install openmpi-bin)\n", args[0],
                 std::strerror(errno));
    _exit(2);
  }
  if (child < 0) {
    const int why = errno;
    sigprocmask(SIG_SETMASK, &before, nullptr);
    std::fprintf(stderr, "error: cannot start %s: %s\n", args[0], std::strerror(why));
    return 2;
  }
  setpgid(child, child);  // as the child does: whichever runs first

  mpirun_pid = child;
  struct sigaction pass_on{};
  pass_on.sa_handler = pass_on_as_usr1;
  sigemptyset(&pass_on.sa_mask);
  pass_on.sa_flags = SA_RESTART;
  struct sigaction old_int{};
  struct sigaction old_term{};
  sigaction(SIGINT, &pass_on, &old_int);
  sigaction(SIGTERM, &pass_on, &old_term);
  sigprocmask(SIG_SETMASK, &before, nullptr);

  int status = 0;
  pid_t waited = 0;
  do {
    waited = waitpid(child, &status, 0);
  } while (waited < 0 && errno == EINTR);

  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  mpirun_pid = 0;
  if (waited < 0) {
    std::fprintf(stderr, "error: waiting for %s: %s\n", args[0], std::strerror(errno));
    return 2;
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace stampede::distributed
