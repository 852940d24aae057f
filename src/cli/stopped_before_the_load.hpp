#pragma once
// What `stampede run` says when a Ctrl-C (or SIGTERM, SIGUSR1) kept scenarios' loads from
// starting (engine::StoppedBeforeTheLoad): a plain run, --parallel, find-limit and rank 0 of
// a distributed run alike.
#include <string>
#include <vector>

namespace stampede::cli {

// `files`: the scenarios whose load did not start, in order. When nothing at all was
// measured (`anything_measured` false), one line and engine::kStoppedBeforeTheLoad: no
// summary and no results file would hold anything, and a CI job must not read it as a pass.
// After other scenarios ran, a line each and 0: as for the files a Ctrl-C during a load
// leaves unstarted, the exit status is that of what ran, and their results are written.
int say_stopped_before_the_load(const std::vector<std::string>& files, bool anything_measured);

}  // namespace stampede::cli
