#pragma once
// Field statistics and error norms (namespace tridsim), written once for the host loops and the
// device reductions of every module: min, max, a sum (plain, or with the trapezoidal rule's node
// weights: an integral) and the measures of up to two level sets {u >= threshold}. Sums are in
// double on both backends. A NaN anywhere is made visible (min, max and sum all NaN), never skipped
// by a min or max.
#include <cmath>
#include <limits>
#include <string>

#include "core/decomposition.hpp"
#include "core/domain.hpp"
#include "core/grid.hpp"
#include "core/host_device.hpp"
#include "core/types.hpp"

namespace tridsim {

// Error of a field against an exact solution.
struct ErrorNorms {
  std::string field;
  double l2 = 0;    // sqrt(mean of squared errors over all nodes)
  double max = 0;   // max abs error
};

// What to accumulate over a grid.
struct StatsSpec {
  int dim = 1;
  index_t n[3] = {1, 1, 1};
  double h[3] = {1, 1, 1};
  bool trapezoid = false;  // weights: 1 per node, or the trapezoidal rule's (an integral)
  double threshold[2] = {HUGE_VAL, HUGE_VAL};  // level sets; HUGE_VAL: none

  // The nodes counted, by array index along each axis: first[a] .. first[a] + count[a] - 1 (all
  // by default; a rank's owned nodes under MPI, see owned()), and the whole grid's index of array
  // node 0 and its node count along each axis (the trapezoidal weights' ends).
  index_t first[3] = {0, 0, 0}, count[3] = {1, 1, 1}, origin[3] = {0, 0, 0}, whole[3] = {1, 1, 1};

  static StatsSpec plain(const Grid& g);
  // Thresholds are compared with the field's own values: give them rounded to its precision.
  static StatsSpec integral(const Grid& g, double threshold0, double threshold1);

  // Only this rank's owned nodes of an array over its local box (core/decomposition.hpp).
  StatsSpec owned(const Decomposition& d) const;

  // Weight of array position p along axis a.
  TRIDSIM_HOST_DEVICE double axis_weight(int a, index_t p) const {
    if (!trapezoid || a >= dim) return 1.0;
    p += origin[a];
    return h[a] * (p == 0 || p == whole[a] - 1 ? 0.5 : 1.0);
  }
};

struct FieldStats {
  double lo = HUGE_VAL, hi = -HUGE_VAL, sum = 0, level[2] = {0, 0};

  TRIDSIM_HOST_DEVICE void add(const StatsSpec& s, double x, double weight) {
    lo = x < lo ? x : lo;
    hi = x > hi ? x : hi;
    sum += weight * x;
    if (x >= s.threshold[0]) level[0] += weight;
    if (x >= s.threshold[1]) level[1] += weight;
  }
  TRIDSIM_HOST_DEVICE void merge(const FieldStats& b) {
    lo = b.lo < lo ? b.lo : lo;
    hi = b.hi > hi ? b.hi : hi;
    sum += b.sum;
    level[0] += b.level[0];
    level[1] += b.level[1];
  }
  // A NaN value left the comparisons untouched but made the sum NaN: report it in min and max.
  void make_nan_visible() {
    if (std::isnan(sum)) lo = hi = sum;
  }
};

// Host: OpenMP over the nodes of `u` (x-fastest, s.n[0] * s.n[1] * s.n[2] values).
template <class T>
FieldStats field_stats(const StatsSpec& s, const T* u);
// Device (CUDA builds): `u` is a device pointer; the host's accumulation in a reduction kernel
// (core/field_stats.cu).
template <class T>
FieldStats field_stats_cuda(const StatsSpec& s, const T* u);

// sqrt(mean of e^2) and max |e| over n errors e = u - exact (exact null: u holds the errors);
// any non-finite error makes both norms NaN.
template <class T>
ErrorNorms error_norms_of(const std::string& field, const T* u, const double* exact, index_t n);
// The same over the nodes of `spec` (a rank's owned nodes), combined over the ranks of `domain`.
template <class T>
ErrorNorms error_norms_of(const std::string& field, const T* u, const double* exact, const StatsSpec& spec,
                          const Domain& domain);
// Statistics of every rank's nodes combined (min, max, sums) on every rank.
FieldStats combine(const Domain& domain, FieldStats s);
// `stats` (host or device statistics for a spec) over this rank's owned nodes of `spec`, combined
// over the ranks of `domain`; with no domain (one process), over all of `spec`.
template <class Stats>
FieldStats owned_stats(const StatsSpec& spec, const Domain* domain, const Stats& stats) {
  if (!domain || !domain->distributed()) return stats(spec);
  return combine(*domain, stats(spec.owned(domain->layout())));
}

}  // namespace tridsim
