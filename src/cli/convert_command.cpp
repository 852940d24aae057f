#include "cli/convert_command.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "proto/duration.hpp"
#include "record/har_reader.hpp"
#include "record/lua_writer.hpp"
#include "record/scenario_builder.hpp"

namespace stampede::cli {

void add_scenario_options(CLI::App& cmd, std::string& origin, bool& keep_static, std::string& think_time,
                          std::string& name) {
  cmd.add_option("--origin", origin,
                 "The app's origin, e.g. http://127.0.0.1:4000: requests elsewhere are left out "
                 "(default: the first page's)");
  cmd.add_flag("--keep-static", keep_static, "Keep requests for scripts, styles, images and fonts");
  cmd.add_option("--think-time", think_time,
                 "The longest pause kept between two user actions (stampede.sleep); 0: no pauses")
      ->capture_default_str()
      ->check([](const std::string& text) {
        std::string error;
        return proto::parse_duration(text, &error) ? std::string() : error;
      });
  cmd.add_option("--name", name, "The scenario's name (default: the output file's name)");
}

void add_convert_options(CLI::App& cmd, ConvertArgs& args) {
  cmd.add_option("har", args.har, "A HAR file: Chromium's or Firefox's Network panel, \"Save all as HAR with content\"")
      ->required()
      ->check(CLI::ExistingFile);
  cmd.add_option("-o,--out", args.output, "Write the scenario to this file (default: stdout)");
  cmd.add_flag("--check", args.check,
               "Print what the recording holds (pages, LiveViews, topics, events, what would be left out) "
               "and write nothing");
  add_scenario_options(cmd, args.origin, args.keep_static, args.think_time, args.name);
}

std::string scenario_name_for(const std::string& explicit_name, const std::string& output) {
  if (!explicit_name.empty()) return explicit_name;
  if (!output.empty()) {
    const auto stem = std::filesystem::path(output).stem().string();
    if (!stem.empty()) return stem;
  }
  return "Recorded";
}

int write_scenario_file(const std::string& text, const std::string& output) {
  if (output.empty()) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  std::error_code ec;
  const auto parent = std::filesystem::path(output).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "error: cannot write %s\n", output.c_str());
    return 2;
  }
  std::fprintf(stderr, "wrote %s\n", output.c_str());
  return 0;
}

int convert_command(const ConvertArgs& args) {
  const auto read = record::read_har_file(args.har);
  if (!read.ok()) {
    std::fprintf(stderr, "error: %s: %s\n", args.har.c_str(), read.error.c_str());
    return 2;
  }
  record::ConvertOptions options;
  options.origin = args.origin;
  options.keep_static = args.keep_static;
  options.think_time_cap_ms = static_cast<double>(*proto::parse_duration(args.think_time)) / 1e6;
  options.name = scenario_name_for(args.name, args.output);
  const auto built = record::build_scenario(read.recording, options);
  if (!built.error.empty()) {
    std::fprintf(stderr, "error: %s: %s\n", args.har.c_str(), built.error.c_str());
    return 2;
  }
  if (args.check) {
    std::fputs(record::describe(built.scenario).c_str(), stdout);
    return 0;
  }
  record::WriteOptions write;
  write.command = "stampede convert " + std::filesystem::path(args.har).filename().string();
  write.output_path = args.output;
  return write_scenario_file(record::write_lua(built.scenario, write), args.output);
}

}  // namespace stampede::cli
