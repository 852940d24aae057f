// The HAR reader (record/har_reader.hpp) on any bytes, fed in two pieces split where the first
// byte says (streaming must not depend on where the pieces end), then, for what it accepts,
// the whole convert path: the scenario builder (which decodes the recorded Phoenix and LiveView
// frames with proto/) and the Lua writer. Must never crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "record/har_reader.hpp"
#include "record/lua_writer.hpp"
#include "record/scenario_builder.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  stampede::record::HarLimits limits;
  limits.max_kept_total = 8 << 20;  // keep each run small
  stampede::record::HarReader reader(limits);
  const std::size_t split = size == 0 ? 0 : data[0] % (size + 1);
  reader.feed(text.substr(0, split));
  reader.feed(text.substr(split));
  const auto result = reader.finish();
  if (!result.ok()) return 0;
  const auto built = stampede::record::build_scenario(result.recording, {});
  if (!built.error.empty()) return 0;
  (void)stampede::record::write_lua(built.scenario, {});
  (void)stampede::record::describe(built.scenario);
  return 0;
}
