#include "cli/parallel_runs.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <thread>

#include "engine/stop_signals.hpp"
#include "scenario/scenario_error.hpp"

namespace stampede::cli {

int run_in_parallel(const std::vector<std::string>& files,
                    const std::function<int(const std::string& file, report::ScenarioResult& result)>& run_file,
                    std::vector<report::ScenarioResult>& results, std::vector<std::string>& not_started) {
  struct Slot {
    int status = 0;
    bool ran = false;
    bool stopped = false;  // before its load started
    report::ScenarioResult result;
  };
  std::vector<Slot> slots(files.size());
  std::vector<std::thread> threads;
  threads.reserve(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    threads.emplace_back([&, i] {
      Slot& slot = slots[i];
      try {
        slot.status = run_file(files[i], slot.result);
        slot.ran = true;
      } catch (const engine::StoppedBeforeTheLoad&) {
        slot.stopped = true;
      } catch (const scenario::ScenarioError& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        slot.status = 2;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s: %s\n", files[i].c_str(), e.what());
        slot.status = 2;
      }
    });
  }
  for (auto& t : threads) t.join();
  int status = 0;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    status = std::max(status, slots[i].status);
    if (slots[i].ran) results.push_back(std::move(slots[i].result));
    if (slots[i].stopped) not_started.push_back(files[i]);
  }
  return status;
}

}  // namespace stampede::cli
