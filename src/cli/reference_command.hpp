#pragma once
// `stampede help [--reference]`. With --reference: every subcommand, argument and flag as
// Markdown, read from the CLI11 app itself, so docs/reference/cli.md (its output) and
// `--help` cannot drift apart (docs/design/010-reference-generated.md).
#include <CLI/App.hpp>

namespace stampede::cli {

int help_command(const CLI::App& app, bool reference);

}  // namespace stampede::cli
