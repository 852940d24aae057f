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

std::optional<Nanos> VuSchedule::next_outside_after(Nanos t, long long lo, long long hi) const {
  const auto outside = [&](long long level) { return level < lo || level > hi; };
  long long level = std::llround(shape_.start);
  Nanos stage_start = 0;
  for (const Stage& s : shape_.stages) {
    const long long target = std::llround(s.target);
    const Nanos stage_end = stage_start + s.duration;
    if (stage_end > t && s.duration > 0) {
      if (stage_start > t && outside(level)) return stage_start;  // a jump (a stage of no duration) before it
      // The first level outside in the line's direction, if the line gets there in this stage.
      const long long bound = target > level ? hi + 1 : lo - 1;
      if (target != level && (target > level ? target >= bound : target <= bound)) {
        // The level moves one unit each time span * elapsed / duration crosses an integer:
        // unit k is reached at elapsed = ceil(k * duration / span). The level at t is
        // inside, so `bound` is reached after t.
        const long long span = target > level ? target - level : level - target;
        const long long k = bound > level ? bound - level : level - bound;
        const auto num = static_cast<Wide>(k) * s.duration;
        return stage_start + static_cast<Nanos>((num + span - 1) / span);
      }
    }
    level = target;
    stage_start = stage_end;
  }
  if (stage_start > t && outside(level)) return stage_start;
  return std::nullopt;
}

}  // namespace stampede::engine
