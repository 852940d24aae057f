#pragma once
// The Date header line ("Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"), formatted once per second
// per worker instead of once per response.
#include <ctime>
#include <string>
#include <string_view>

namespace stampede::target {

class HttpDateCache {
 public:
  std::string_view header_line();

 private:
  std::time_t formatted_for_ = -1;
  std::string line_;
};

}  // namespace stampede::target
