#include "record/scenario_model.hpp"

namespace stampede::record {

std::string runtime_ref(std::string_view lua_expression) { return std::string(kRefPrefix) + std::string(lua_expression); }

std::string url_runtime_ref(std::string_view lua_expression) { return runtime_ref(lua_expression) + kRefEnd; }

}  // namespace stampede::record
