#pragma once
// The level structure of block cyclic reduction over n block rows with radix q (bcr.hpp; namespace
// tridsim::cr): which rows each level keeps, the intervals between them, and the sine eigenpairs of
// the intervals. Shared by the CPU solver and the CUDA one (no OpenMP or CUDA here).
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/types.hpp"

namespace tridsim::cr {

namespace detail {

// (w_j)_s for K_m; exact zeros where j*s is a multiple of m+1. The angle is reduced in integers
// to [0, pi/2] first: near a zero of the sine a rounded angle would carry a relative error of
// eps * m, which shows up in the residual at n ~ 8000.
inline double sine_weight(index_t m, index_t j, index_t s) {
  const index_t p = m + 1;
  index_t r = (j * s) % (2 * p);
  if (r % p == 0) return 0.0;
  double sign = 1;
  if (r > p) {  // sin(pi (r - p)/p) = -sin(pi r/p)
    r -= p;
    sign = -1;
  }
  if (2 * r > p) r = p - r;  // sin(pi (p - r)/p) = sin(pi r/p)
  return sign * std::sqrt(2.0 / double(p)) * std::sin(M_PI * double(r) / double(p));
}
inline double k_eigenvalue(index_t m, index_t j) {
  const double s = std::sin(0.5 * M_PI * double(j) / double(m + 1));
  return 4 * s * s;  // 2 - 2cos(j pi/(m+1)) without cancellation for small j
}

// One interval of a level: rows a < b (1-based; 0 and n+1 are the zero boundary rows) and
// the rows of the level below that lie inside it.
struct Interval {
  index_t a = 0, b = 0, m = 0;
  int nsub = 0;
  index_t sub[3] = {0, 0, 0};
};

inline std::vector<Interval> level_intervals(index_t n, int q, int r) {
  index_t stride = 1;
  for (int i = 0; i < r; ++i) stride *= q;
  const index_t half = stride / q;
  std::vector<Interval> out;
  for (index_t a = 0; a <= n; a += stride) {
    Interval iv;
    iv.a = a;
    iv.b = std::min(a + stride, n + 1);
    iv.m = iv.b - iv.a - 1;
    for (int s = 1; s < q; ++s)
      if (a + s * half < iv.b) iv.sub[iv.nsub++] = a + s * half;
    if (iv.m > 0 && iv.nsub > 0) out.push_back(iv);
  }
  return out;
}

inline int top_level(index_t n, int q) {  // largest R with q^R <= n
  int R = 0;
  for (index_t p = q; p <= n; p *= q) ++R;
  return R;
}

}  // namespace detail

}  // namespace tridsim::cr
