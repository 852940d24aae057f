#include "target/liveview_dialect.hpp"

#include <utility>

namespace stampede::target {

std::optional<LiveViewDialect> parse_liveview_dialect(std::string_view text) {
  if (text == "0.20" || text == "0.20.17") return LiveViewDialect::V0_20;
  if (text == "1.x" || text == "1" || text == "1.2" || text == "1.2.10") return LiveViewDialect::V1;
  return std::nullopt;
}

std::string_view dialect_name(LiveViewDialect dialect) { return dialect == LiveViewDialect::V0_20 ? "0.20" : "1.x"; }

std::string_view liveview_version(LiveViewDialect dialect) {
  return dialect == LiveViewDialect::V0_20 ? "0.20.17" : "1.2.10";
}

int session_token_vsn(LiveViewDialect dialect) { return dialect == LiveViewDialect::V0_20 ? 5 : 6; }

LiveViewScope scope_of_path(std::string_view path, LiveViewDialect root_dialect, std::string_view& rest) {
  for (const auto& [prefix, dialect] :
       {std::pair{kLv020Prefix, LiveViewDialect::V0_20}, std::pair{kLv1Prefix, LiveViewDialect::V1}}) {
    if (path.size() > prefix.size() && path.substr(0, prefix.size()) == prefix && path[prefix.size()] == '/') {
      rest = path.substr(prefix.size());
      return {dialect, prefix};
    }
  }
  rest = path;
  return {root_dialect, {}};
}

}  // namespace stampede::target
