#include "engine/generator_setup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

namespace stampede::engine {

namespace {

std::string target_phrase(const MachineView& m) {
  const std::string name = m.target_name.empty() ? "the target" : "the target " + m.target_name;
  switch (m.target) {
    case TargetPlace::this_machine: return name + " on this machine";
    case TargetPlace::elsewhere: return name + " elsewhere";
    case TargetPlace::unknown: return "the target maybe on this machine";
  }
  return name;
}

}  // namespace

GeneratorSetup choose_generator_setup(int threads_asked, std::optional<CpuPolicy> policy_asked,
                                      const MachineView& machine) {
  const unsigned cores = std::max(1u, machine.cores);
  GeneratorSetup s;
  if (threads_asked > 0 || policy_asked) {
    s.policy = policy_asked.value_or(CpuPolicy::normal);
    s.threads = threads_asked > 0 ? threads_asked : default_worker_threads(s.policy, cores);
    s.why = "as asked";
    return s;
  }
  const bool shared = machine.target != TargetPlace::elsewhere;  // unknown: assume it may be here
  if (cores == 1) {
    s.why = "1 core";
    return s;
  }
  // Adaptive: a worker sleeps when idle, and polls only while its own work takes most of its
  // core. Always polling would hold a core even at a moderate rate, which a local BEAM (one
  // scheduler per core) or a CI runner's other jobs need (047); never polling loses the
  // fastest rates on quiet cores to the wake-ups' cost (054). One core: the worker shares it
  // with the target, and holding it would starve the target: sleeping only.
  s.policy = CpuPolicy::adaptive;
  if (cores == 2) {
    // The measured case: whether the target is here, in a namespace or behind the kernel's
    // network work, a second worker competes for the other core (docs/design/047).
    s.why = shared ? fmt::format("2 cores, {}: the other core is left to it", target_phrase(machine))
                   : fmt::format("2 cores, {}: the other core is left to the kernel's network "
                                 "work and Stampede's own thread",
                                 target_phrase(machine));
    return s;
  }
  s.threads = shared ? static_cast<int>(cores / 2) : static_cast<int>(cores);
  s.why = shared ? fmt::format("{} cores, {}: half of them, the rest are left to it", cores, target_phrase(machine))
                 : fmt::format("{} cores, {}: one worker per core", cores, target_phrase(machine));
  return s;
}

std::vector<std::string> url_hosts(const std::string& text) {
  // scheme://host[:port]: an IPv6 host in brackets, otherwise up to a / : ? # quote or space.
  static const std::regex url(R"((?:https?|wss?)://(\[[0-9A-Fa-f:.%]+\]|[^/:?#\s"'\]\[\\]+)(:[0-9]+)?)",
                              std::regex::icase);
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), url); it != std::sregex_iterator(); ++it) {
    std::string host = (*it)[1].str() + (*it)[2].str();
    if (std::find(out.begin(), out.end(), host) == out.end()) out.push_back(std::move(host));
  }
  return out;
}

std::vector<std::string> getenv_names(const std::string& text) {
  static const std::regex getenv(R"(os\.getenv\s*\(?\s*["']([A-Za-z_][A-Za-z0-9_]*)["'])");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), getenv); it != std::sregex_iterator(); ++it) {
    std::string name = (*it)[1].str();
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
  }
  return out;
}

}  // namespace stampede::engine
