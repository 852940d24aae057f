#pragma once
// `stampede new NAME [--http | --channels | --live | --websocket] [--url URL]`: writes a
// scenario to start from, loadtest/NAME.lua, from a template (templates/); `--list` shows the
// kinds. The kind flags are made from the same table `--list` prints, so the two agree.
#include <CLI/App.hpp>
#include <string>

namespace stampede::cli {

struct NewArgs {
  std::string name;
  std::string kind = "http";  // set by --http, --channels, --live or --websocket
  bool list = false;
  std::string url = "http://localhost:4000";  // `mix phx.server`'s default
  std::string dir = "loadtest";
};

void add_new_options(CLI::App& cmd, NewArgs& args);
int new_command(const NewArgs& args);

}  // namespace stampede::cli
