#pragma once

namespace stampede::target {

// Every connection costs a descriptor: raises the soft open-file limit to the hard one.
// `stampede target` calls it before serving; with --procs, before forking, so each process
// (each has a limit of its own: that is the point of several) starts with the raised one.
void raise_descriptor_limit();

}  // namespace stampede::target
