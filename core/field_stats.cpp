#include "core/field_stats.hpp"

#include <algorithm>

namespace tridsim {

StatsSpec StatsSpec::plain(const Grid& g) {
  StatsSpec s;
  s.dim = g.dim;
  for (int a = 0; a < 3; ++a) s.n[a] = g.n[a], s.h[a] = a < g.dim ? g.h(a) : 1.0;
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
  const index_t rows = s.n[1] * s.n[2], nx = s.n[0];
#pragma omp parallel
  {
    FieldStats mine;
#pragma omp for schedule(static) nowait
    for (index_t r = 0; r < rows; ++r) {
      const double wjk = s.axis_weight(1, r % s.n[1]) * s.axis_weight(2, r / s.n[1]);
      const T* row = u + r * nx;
      for (index_t i = 0; i < nx; ++i) mine.add(s, double(row[i]), wjk * s.axis_weight(0, i));
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

template FieldStats field_stats<float>(const StatsSpec&, const float*);
template FieldStats field_stats<double>(const StatsSpec&, const double*);
template ErrorNorms error_norms_of<float>(const std::string&, const float*, const double*, index_t);
template ErrorNorms error_norms_of<double>(const std::string&, const double*, const double*, index_t);

}  // namespace tridsim
