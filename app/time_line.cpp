#include "app/time_line.hpp"

#include <algorithm>
#include <cmath>

namespace tridsim {

double steps_to_cover(double span, double dt) {
  return span > 0 ? std::max(1.0, std::ceil(span / dt - 1e-9)) : 0.0;
}

TimeLine::TimeLine(double t0, double end, double dt, std::vector<double> stops) : dt_(dt) {
  std::sort(stops.begin(), stops.end());
  stops.erase(std::remove_if(stops.begin(), stops.end(), [&](double s) { return !(s > t0 && s < end); }), stops.end());
  stops.erase(std::unique(stops.begin(), stops.end()), stops.end());
  stops.push_back(end);
  double start = t0;
  for (const double stop : stops) {
    const long count = long(steps_to_cover(stop - start, dt));  // (the deck's times are checked: finite, bounded)
    if (count == 0) continue;
    stretches_.push_back({start, stop, steps_, count});
    steps_ += count;
    start = stop;
  }
  if (stretches_.empty()) stretches_.push_back({t0, t0, 0, 0});
}

const TimeLine::Stretch& TimeLine::stretch_of(long s) const {
  // the first stretch whose last step is at or after s
  auto it = std::lower_bound(stretches_.begin(), stretches_.end(), s,
                             [](const Stretch& r, long step) { return r.first + r.count < step; });
  return it == stretches_.end() ? stretches_.back() : *it;
}

double TimeLine::time_after(long s) const {
  if (s <= 0) return stretches_.front().start;
  const Stretch& r = stretch_of(s);
  const long j = s - r.first;
  return j >= r.count ? r.stop : r.start + double(j) * dt_;
}

bool TimeLine::ends_stretch(long s) const {
  if (s <= 0) return false;
  const Stretch& r = stretch_of(s);
  return s == r.first + r.count;
}

std::optional<long> TimeLine::step_at(double t) const {
  if (t == time_after(0)) return 0L;
  auto it = std::lower_bound(stretches_.begin(), stretches_.end(), t,
                             [](const Stretch& r, double time) { return r.stop < time; });
  if (it == stretches_.end()) return std::nullopt;
  const long j = long(std::llround((t - it->start) / dt_));
  for (long s = std::max(it->first + 1, it->first + j - 1); s <= std::min(it->first + it->count, it->first + j + 1); ++s)
    if (time_after(s) == t) return s;
  return std::nullopt;
}

}  // namespace tridsim
