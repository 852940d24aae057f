#pragma once
// Ctrl-C (SIGINT), SIGTERM and SIGUSR1 stop a command that runs load (SIGUSR1 because
// OpenMPI's mpirun passes it on to every rank, while a Ctrl-C to mpirun kills the whole job).
// Their default action ends the process without a word and loses what was measured, so from
// the command's start (note_stop_signals(), which cli/ calls first) they are noted here; while
// something must act on one at once (a run's load, setup(), teardown()), a StopSignalWatch on
// its event loop hears it instead, and notes it too. Every one noted counts:
// - a load does not start once one was noted (Run::run(), run_setup() throw
//   StoppedBeforeTheLoad; setup() is abandoned at once);
// - before the first load of the process has started, a second one (that no watch hears)
//   ends the process at once (exit status kStoppedBeforeTheLoad, one line on stderr): the
//   step the first one waits for may be stuck (a scenario's top-level code, a DNS lookup), and
//   nothing was measured to lose.
//   Once a load has started (load_started()) it is noted like the first: what was measured is
//   still summarised and written.
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <functional>
#include <optional>
#include <stdexcept>

namespace stampede::engine {

// The exit status of a command stopped by a stop signal before any load started (README,
// "Exit status"): nothing was measured.
constexpr int kStoppedBeforeTheLoad = 4;

// Thrown where a load would start, once a stop signal was noted: it does not start.
class StoppedBeforeTheLoad : public std::runtime_error {
 public:
  StoppedBeforeTheLoad() : std::runtime_error("interrupted before the load started") {}
};

// Notes SIGINT, SIGTERM and SIGUSR1 from now on (unless a StopSignalWatch hears them: then
// when the last one goes). Idempotent.
void note_stop_signals();
// How many were noted (or heard by a watch: one that two watches heard counts twice) since
// the process began; what matters is whether it is 0, and whether it grew.
int stops_noted();
// Throws StoppedBeforeTheLoad when one was.
void stop_if_noted();
// The first load of the process is starting: from now on a second stop signal is noted like
// the first instead of ending the process.
void load_started();

// While it lives, SIGINT, SIGTERM and SIGUSR1 call `heard(signal)` on `io` (each noted first);
// when the last watch goes they are noted again. One that came before it was noted only: the
// owner checks stops_noted() once the watch is in place, so that none falls between the two.
class StopSignalWatch {
 public:
  StopSignalWatch(boost::asio::io_context& io, std::function<void(int signal)> heard);
  ~StopSignalWatch();
  StopSignalWatch(const StopSignalWatch&) = delete;
  StopSignalWatch& operator=(const StopSignalWatch&) = delete;

 private:
  void wait();

  std::function<void(int)> heard_;
  std::optional<boost::asio::signal_set> signals_;
};

}  // namespace stampede::engine
