#include "cli/new_command.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <system_error>
#include <vector>

#include "cli/install_paths.hpp"
#include "cli/templates.hpp"

namespace stampede::cli {

namespace fs = std::filesystem;

namespace {

// One row per kind: `--list` prints these and add_new_options makes a flag of each, so a
// kind that is listed is always a flag that is accepted.
struct Kind {
  const char* name;  // also the flag: --channels
  const char* what;  // for --list
  const char* help;  // for --help
  const std::string_view* text;
};

const std::array<Kind, 7> kKinds = {{
    {"http", "plain HTTP requests to pages and JSON APIs (the default)",
     "A plain HTTP scenario (pages, JSON APIs); the default", &templates::http_lua},
    {"channels", "Phoenix Channels: connect to /socket, join a topic, push and await broadcasts",
     "A Phoenix Channels scenario (socket, join, push, broadcast)", &templates::channels_lua},
    {"live", "Phoenix LiveView: load a page, join the LiveView, click",
     "A Phoenix LiveView scenario (page, join, click)", &templates::live_lua},
    {"websocket", "a plain WebSocket endpoint: send messages and await the answers",
     "A plain WebSocket scenario (send, await)", &templates::websocket_lua},
    {"sse", "Server-Sent Events: open a text/event-stream and await events",
     "A Server-Sent Events scenario (stream, await events)", &templates::sse_lua},
    {"graphql-ws", "GraphQL over WebSocket (graphql-transport-ws): subscribe, mutate, await the result",
     "A GraphQL-over-WebSocket scenario (subscribe, mutation, await)", &templates::graphql_ws_lua},
    {"socketio", "Socket.IO v4: connect to a namespace, emit with an ack, await events",
     "A Socket.IO scenario (namespace, emit with ack, await)", &templates::socketio_lua},
}};

const Kind& kind_of(const NewArgs& args) {
  for (const auto& kind : kKinds)
    if (args.kind == kind.name) return kind;
  return kKinds[0];
}

// A string inside a Lua "..." literal: the URL and the name are the user's words.
std::string lua_escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

int list_kinds() {
  std::puts("stampede new NAME [--KIND] writes loadtest/NAME.lua; kinds:");
  for (const auto& kind : kKinds) std::printf("  --%-10s %s\n", kind.name, kind.what);
  return 0;
}

// LuaLS (the Lua language server of VS Code, Neovim, ...) reads .luarc.json at the root of
// the workspace; its workspace.library makes `require "stampede.channels"` complete.
void write_luarc(const std::string& types) {
  if (types.empty()) {
    std::fprintf(stderr, "note: Stampede's Lua type definitions were not found; editors will not complete its API\n");
    return;
  }
  if (fs::exists(".luarc.json")) {
    std::ifstream in(".luarc.json");
    std::stringstream current;
    current << in.rdbuf();
    if (current.str().find(types) == std::string::npos)
      std::fprintf(stderr,
                   "note: .luarc.json exists; for completion in your editor add \"%s\" to its \"workspace.library\"\n",
                   types.c_str());
    return;
  }
  std::ofstream out(".luarc.json");
  out << fmt::format(
      "{{\n  \"runtime.version\": \"LuaJIT\",\n  \"workspace.library\": [\"{}\"]\n}}\n", types);
  if (out) std::printf("created .luarc.json (editor completion from %s)\n", types.c_str());
}

}  // namespace

void add_new_options(CLI::App& cmd, NewArgs& args) {
  cmd.add_option("name", args.name, "The scenario's name: writes loadtest/NAME.lua");
  std::vector<CLI::Option*> flags;
  for (const auto& kind : kKinds) {
    auto* flag = cmd.add_flag_callback(std::string("--") + kind.name, [&args, &kind] { args.kind = kind.name; },
                                       kind.help);
    for (auto* other : flags) flag->excludes(other);
    flags.push_back(flag);
  }
  cmd.add_option("--url", args.url, "The app's URL the scenario uses unless BASE_URL is set")->capture_default_str();
  cmd.add_option("--dir", args.dir, "The folder to write the scenario into")->capture_default_str();
  cmd.add_flag("--list", args.list, "List the kinds of scenario and exit");
}

int new_command(const NewArgs& args) {
  if (args.list) return list_kinds();
  std::string name = args.name;
  if (name.size() > 4 && name.ends_with(".lua")) name.resize(name.size() - 4);
  if (name.empty()) {
    std::fprintf(stderr, "error: stampede new: give the scenario a name, e.g. `stampede new lobby --channels` "
                         "(`stampede new --list` shows the kinds)\n");
    return 2;
  }
  if (!std::regex_match(name, std::regex("[A-Za-z0-9][A-Za-z0-9_-]*"))) {
    std::fprintf(stderr,
                 "error: stampede new: '%s' is not a usable name: letters, digits, '_' and '-' only "
                 "(it becomes the file name)\n",
                 name.c_str());
    return 2;
  }
  if (args.url.find("://") == std::string::npos) {
    std::fprintf(stderr, "error: stampede new: --url '%s' needs a scheme, e.g. http://localhost:4000\n",
                 args.url.c_str());
    return 2;
  }
  std::error_code ec;
  fs::create_directories(args.dir, ec);
  if (ec) {
    std::fprintf(stderr, "error: stampede new: cannot create %s: %s\n", args.dir.c_str(), ec.message().c_str());
    return 2;
  }
  const std::string path = (fs::path(args.dir) / (name + ".lua")).string();
  const std::string docs = docs_dir();
  std::string text(*kind_of(args).text);
  text = templates::fill_template(text, "{{name}}", lua_escaped(name));
  text = templates::fill_template(text, "{{path}}", path);
  text = templates::fill_template(text, "{{url}}", lua_escaped(args.url));
  text = templates::fill_template(text, "{{docs}}", docs.empty() ? "Stampede's docs" : docs);

  // "x": fails when the file exists, so a scenario somebody edited is never overwritten.
  std::FILE* file = std::fopen(path.c_str(), "wx");
  if (file == nullptr) {
    if (errno == EEXIST)
      std::fprintf(stderr, "error: stampede new: %s exists; not overwriting it (pick another name or delete it)\n",
                   path.c_str());
    else
      std::fprintf(stderr, "error: stampede new: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    return 2;
  }
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  if (std::fclose(file) != 0 || !written) {
    std::fprintf(stderr, "error: stampede new: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    return 2;
  }
  std::printf("created %s (%s)\n", path.c_str(), kind_of(args).name);
  write_luarc(types_dir());
  std::printf("run it:  stampede run %s\n", path.c_str());
  std::printf("against another URL:  BASE_URL=http://127.0.0.1:4000 stampede run %s\n", path.c_str());
  return 0;
}

}  // namespace stampede::cli
