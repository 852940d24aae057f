#include "engine/vu_schedule.hpp"

#include <cmath>

namespace stampede::engine {

namespace {
__extension__ typedef __int128 Wide;  // span * duration overflows 64 bits for long stages

// Level within a stage from `from` to `to` after `elapsed` of `duration`, truncated toward
// `from`, so a ramp from 0 to 10 over 10 s has its first extra VU at 1 s and its tenth at 10 s.
long long level_in_stage(long long from, long long to, Nanos elapsed, Nanos duration) {
  if (duration <= 0 || elapsed >= duration) return to;
  if (elapsed <= 0) return from;
  // Integer arithmetic (128-bit) so the boundaries are exact: moved = floor(span * elapsed / duration).
  const long long span = to > from ? to - from : from - to;
  const auto moved = static_cast<long long>((static_cast<Wide>(span) * elapsed) / duration);
  return to > from ? from + moved : from - moved;
}
}  // namespace

long long VuSchedule::vus_at(Nanos t) const {
  long long level = std::llround(shape_.start);
  Nanos stage_start = 0;
  for (const Stage& s : shape_.stages) {
    const long long target = std::llround(s.target);
    if (t < stage_start + s.duration) return level_in_stage(level, target, t - stage_start, s.duration);
    level = target;
    stage_start += s.duration;
  }
  return level;
}

std::optional<Nanos> VuSchedule::next_change_after(Nanos t) const {
  const long long current = vus_at(t);
  long long level = std::llround(shape_.start);
  Nanos stage_start = 0;
  for (const Stage& s : shape_.stages) {
    const long long target = std::llround(s.target);
    const Nanos stage_end = stage_start + s.duration;
    if (stage_end > t && s.duration > 0) {
      if (stage_start > t && level != current) return stage_start;
      if (target != level) {
        // The level moves one unit each time span * elapsed / duration crosses an integer:
        // unit k is reached at elapsed = ceil(k * duration / span).
        const long long span = target > level ? target - level : level - target;
        const Nanos from = t >= stage_start ? t - stage_start : 0;
        const long long moved = level_in_stage(level, target, from, s.duration);
        const long long k = (moved > level ? moved - level : level - moved) + 1;
        if (k <= span) {
          const auto num = static_cast<Wide>(k) * s.duration;
          const auto when = static_cast<Nanos>((num + span - 1) / span);
          return stage_start + when;
        }
      }
    }
    level = target;
    stage_start = stage_end;
  }
  if (stage_start > t && level != current) return stage_start;
  return std::nullopt;
}

}  // namespace stampede::engine
