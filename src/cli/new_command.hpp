#pragma once
// `stampede new NAME [--channels | --live | --websocket] [--url URL]`: writes a scenario
// to start from, loadtest/NAME.lua, from a template (templates/); `--list` shows the kinds.
#include <CLI/App.hpp>
#include <string>

namespace stampede::cli {

struct NewArgs {
  std::string name;
  bool channels = false;
  bool live = false;
  bool websocket = false;
  bool list = false;
  std::string url = "http://localhost:4000";  // `mix phx.server`'s default
  std::string dir = "loadtest";
};

void add_new_options(CLI::App& cmd, NewArgs& args);
int new_command(const NewArgs& args);

}  // namespace stampede::cli
