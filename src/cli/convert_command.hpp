#pragma once
// `stampede convert FILE.har [-o OUT.lua] [--check] [--origin URL] [--keep-static]
// [--think-time D] [--name NAME]`: a HAR file in, a Lua scenario out (src/record/).
#include <CLI/App.hpp>
#include <string>

namespace stampede::cli {

struct ConvertArgs {
  std::string har;
  std::string output;  // "" = stdout
  bool check = false;  // print what was found, write nothing
  std::string origin;
  bool keep_static = false;
  std::string think_time = "5s";
  std::string name;    // default: the output file's stem, else "Recorded"
};

void add_convert_options(CLI::App& cmd, ConvertArgs& args);
// Shared with `stampede record`: the options that shape the scenario, its default name, and
// writing it (stdout when `output` is "").
void add_scenario_options(CLI::App& cmd, std::string& origin, bool& keep_static, std::string& think_time,
                          std::string& name);
std::string scenario_name_for(const std::string& explicit_name, const std::string& output);
int write_scenario_file(const std::string& text, const std::string& output);
// 0 written (or checked), 2 a file that cannot be read or converted (the reason on stderr).
int convert_command(const ConvertArgs& args);

}  // namespace stampede::cli
