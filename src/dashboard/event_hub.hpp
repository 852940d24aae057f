#pragma once
// What the dashboard has said so far, and who is listening: every browser that opens
// /events first gets the events of the current scenario from its start (so a page opened
// or reloaded mid-run, or after it, draws the whole run), then each new one as it comes.
// Used on the dashboard's thread only.
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stampede::dashboard {

class HttpConnection;

class EventHub {
 public:
  // A scenario starts: what came before is forgotten (the final results keep it).
  void begin(std::string scenario_json);
  // One merged second of the current scenario.
  void add_second(std::string second_json);
  // The scenario ended; `results_json` is the results file's content so far.
  void finish(std::string results_json);

  // Replays the events so far to `stream` (whose head is written) and keeps sending.
  void subscribe(const std::shared_ptr<HttpConnection>& stream);
  // The latest finished results, if any scenario has finished.
  const std::optional<std::string>& results() const { return results_; }

 private:
  void broadcast(const std::shared_ptr<const std::string>& event);

  std::vector<std::shared_ptr<const std::string>> history_;  // formatted events, in order
  std::optional<std::string> results_;
  std::vector<std::weak_ptr<HttpConnection>> streams_;
};

}  // namespace stampede::dashboard
