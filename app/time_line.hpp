#pragma once
// The steps of a run (namespace tridsim): from t0 to end in steps of dt, each stretch between
// output times ending exactly on its output time (its last step shortened). The time after every
// step is computed from the start of its stretch (start + j dt), never accumulated, so it is the
// same number whichever way the run got there (a restart included).
#include <optional>
#include <vector>

namespace tridsim {

class TimeLine {
 public:
  // stops: output times; those outside (t0, end) are ignored.
  TimeLine(double t0, double end, double dt, std::vector<double> stops = {});

  long steps() const { return steps_; }
  // The time after step s (0 <= s <= steps(); time_after(0) = t0, time_after(steps()) = end).
  double time_after(long s) const;
  // Does step s end on an output time (or on end)?
  bool ends_stretch(long s) const;
  // The step after which the time is exactly t, if there is one.
  std::optional<long> step_at(double t) const;

 private:
  struct Stretch {
    double start, stop;
    long first, count;  // steps first+1 .. first+count end in (start, stop]
  };
  const Stretch& stretch_of(long s) const;
  double dt_;
  long steps_ = 0;
  std::vector<Stretch> stretches_;
};

// Steps to cover `span` with steps of dt, the last one possibly shorter (a remainder below
// 1e-9 dt is rounding, not a step); a double, so that a deck's absurd count can be refused.
double steps_to_cover(double span, double dt);

}  // namespace tridsim
