#include "core/field_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace tridsim {

StatsSpec StatsSpec::plain(const Grid& g) {
  StatsSpec s;
  s.dim = g.dim;
  for (int a = 0; a < 3; ++a) s.n[a] = s.count[a] = s.whole[a] = g.n[a], s.h[a] = a < g.dim ? g.h(a) : 1.0;
  return s;
}

StatsSpec StatsSpec::owned(const Decomposition& d) const {
  StatsSpec s = *this;
  for (int a = 0; a < 3; ++a) {
    s.first[a] = d.axes[a].halo_lo;
    s.count[a] = d.axes[a].owned;
    s.origin[a] = d.axes[a].local_first();
    s.whole[a] = d.axes[a].global_n;
  }
  return s;
}

FieldStats combine(const Domain& domain, FieldStats s) {
  if (!domain.distributed()) return s;
  s.lo = domain.min(s.lo);
  s.hi = domain.max(s.hi);
  s.sum = domain.sum(s.sum);
  s.level[0] = domain.sum(s.level[0]);
  s.level[1] = domain.sum(s.level[1]);
  // A NaN of one rank's box is in every rank's sum, but MPI_MIN/MAX give it or not by the order in
  // which they meet it: every rank reports it in min and max alike, as one process does.
  s.make_nan_visible();
  return s;
}

StatsSpec StatsSpec::integral(const Grid& g, double threshold0, double threshold1) {
  StatsSpec s = plain(g);
  s.trapezoid = true;
  s.threshold[0] = threshold0;
  s.threshold[1] = threshold1;
  return s;
}

template <class T>
FieldStats field_stats(const StatsSpec& s, const T* u) {
  FieldStats total;
  const index_t rows = s.count[1] * s.count[2];
#pragma omp parallel
  {
    FieldStats mine;
#pragma omp for schedule(static) nowait
    for (index_t r = 0; r < rows; ++r) {
      const index_t j = s.first[1] + r % s.count[1], k = s.first[2] + r / s.count[1];
      const double wjk = s.axis_weight(1, j) * s.axis_weight(2, k);
      const T* row = u + s.n[0] * (j + s.n[1] * k);
      for (index_t i = s.first[0]; i < s.first[0] + s.count[0]; ++i) mine.add(s, double(row[i]), wjk * s.axis_weight(0, i));
    }
#pragma omp critical
    total.merge(mine);
  }
  total.make_nan_visible();
  return total;
}

template <class T>
ErrorNorms error_norms_of(const std::string& field, const T* u, const double* exact, index_t n) {
  double sq = 0, mx = 0;
  index_t bad = 0;
#pragma omp parallel for reduction(+ : sq, bad) reduction(max : mx)
  for (index_t i = 0; i < n; ++i) {
    const double d = std::abs(exact ? double(u[i]) - exact[i] : double(u[i]));
    if (!std::isfinite(d)) {
      ++bad;
      continue;
    }
    sq += d * d;
    mx = std::max(mx, d);
  }
  if (bad > 0) {  // a non-finite exact value or u is reported, not hidden in a max
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {field, nan, nan};
  }
  return {field, std::sqrt(sq / double(n)), mx};
}

template <class T>
ErrorNorms error_norms_of(const std::string& field, const T* u, const double* exact, const StatsSpec& spec,
                          const Domain& domain) {
  // The owned nodes packed, then the norms of those combined: l2^2 n sums over ranks.
  std::vector<T> mine;
  std::vector<double> exact_mine;
  for (index_t k = spec.first[2]; k < spec.first[2] + spec.count[2]; ++k)
    for (index_t j = spec.first[1]; j < spec.first[1] + spec.count[1]; ++j) {
      const index_t o = spec.first[0] + spec.n[0] * (j + spec.n[1] * k);
      mine.insert(mine.end(), u + o, u + o + spec.count[0]);
      if (exact) exact_mine.insert(exact_mine.end(), exact + o, exact + o + spec.count[0]);
    }
  const index_t n = index_t(mine.size());
  ErrorNorms e = error_norms_of(field, mine.data(), exact ? exact_mine.data() : nullptr, n);
  if (!domain.distributed()) return e;
  const double total = domain.sum(double(n));
  e.l2 = std::sqrt(domain.sum(e.l2 * e.l2 * double(n)) / total);
  e.max = domain.max(e.max);
  if (domain.any(std::isnan(e.l2))) e.l2 = e.max = std::numeric_limits<double>::quiet_NaN();
  return e;
}

template FieldStats field_stats<float>(const StatsSpec&, const float*);
template FieldStats field_stats<double>(const StatsSpec&, const double*);
template ErrorNorms error_norms_of<float>(const std::string&, const float*, const double*, index_t);
template ErrorNorms error_norms_of<double>(const std::string&, const double*, const double*, index_t);
template ErrorNorms error_norms_of<float>(const std::string&, const float*, const double*, const StatsSpec&, const Domain&);
template ErrorNorms error_norms_of<double>(const std::string&, const double*, const double*, const StatsSpec&,
                                           const Domain&);

}  // namespace tridsim
