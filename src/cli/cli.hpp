#pragma once

namespace stampede::cli {
// Parses the command line, runs the subcommand, returns the process exit status:
// 0 ok, 1 a threshold failed, 2 usage or scenario error.
int main(int argc, char** argv);
}  // namespace stampede::cli
