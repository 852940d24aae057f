#pragma once
// Where the files that ship beside the binary are: the Lua type definitions (LuaLS) and
// the docs. An installed binary (bin/stampede) finds them under ../share; a binary run
// from the build tree finds them in the source tree it was built from.
#include <string>

namespace stampede::cli {

// The directory of the LuaLS type definitions (`---@meta` files), e.g.
// /usr/share/stampede/types; empty when neither place has them.
std::string types_dir();

// The docs directory (reference/, guides/), e.g. /usr/share/doc/stampede; empty when
// neither place has it.
std::string docs_dir();

}  // namespace stampede::cli
