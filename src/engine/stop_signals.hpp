#pragma once
// SIGUSR1 is a Ctrl-C too: OpenMPI's mpirun passes SIGUSR1 on to every rank, while a Ctrl-C
// (SIGINT) to mpirun kills the whole job. Its default action ends the process, so from the
// scenario's loading on it is noted here instead; a Run's signal_set takes over while the
// load runs (and resets it to the default when it goes: call note_usr1_until_the_run()
// again), and counts what was noted before it as interrupts.
namespace stampede::engine {

void note_usr1_until_the_run();
// The SIGUSR1s noted since the last call (0, 1, 2...).
int take_noted_usr1();

}  // namespace stampede::engine
