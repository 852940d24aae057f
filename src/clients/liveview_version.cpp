#include "clients/liveview_version.hpp"

#include <fmt/format.h>

#include "proto/liveview_session_token.hpp"

namespace stampede::clients {

PageDialect page_dialect(std::string_view session_token) {
  const auto format = proto::lv::session_token_format(session_token);
  // 0.20.17: the last 0.20 release, whose join params (no _mount_attempts, no sticky) every
  // release of format 5 accepts.
  if (format == 5) return {"0.20 to 1.0.5 (session token format 5)", proto::lv::Version{0, 20, 17}};
  if (format == 6) return {"1.0.6 or later (session token format 6)", proto::lv::kNewestCheckedVersion};
  return {"unknown (not joined)", proto::lv::kNewestCheckedVersion};
}

bool supported_version(const proto::lv::Version& v) {
  return (v.major == 0 && v.minor == 20) || (v.major == 1 && v.minor <= 2);
}

std::string unsupported_version_message(std::string_view version_text) {
  return fmt::format("LiveView {} is not supported: Stampede speaks LiveView 0.20.x and 1.0 to 1.2", version_text);
}

}  // namespace stampede::clients
