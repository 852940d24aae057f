#include "cli/cli.hpp"

int main(int argc, char** argv) { return stampede::cli::main(argc, argv); }
