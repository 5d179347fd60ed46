#pragma once
// Scalar cyclic reduction (namespace tridsim::cr) for the symmetric Toeplitz system
// tridiag(-t, d, -t) v = g (the sub-problems of BCR for the Poisson problem), in the simplified
// form of Myllykoski, Rossi & Toivanen (2013), eq. (22)-(23): for n = 2^k - 1 every reduced system
// is again symmetric Toeplitz, so each level needs only the two scalars t^(r), d^(r) and no
// coefficient arrays.
// Other n go through the general CR of solvers/tridiagonal/cyclic_reduction.hpp.
// Stable for d > 2t > 0 (diagonal dominance, kept by every reduction).
#include <vector>

#include "core/types.hpp"
#include "solvers/tridiagonal/cyclic_reduction.hpp"

namespace tridsim::cr {

inline bool is_power_of_two_minus_one(index_t n) { return n > 0 && ((n + 1) & n) == 0; }

// g: right-hand side in, solution out (length n). work: at least 4n elements.
template <class T>
void toeplitz_cr_solve(index_t n, T t, T d, T* g, T* work) {
  if (n <= 0) return;
  if (!is_power_of_two_minus_one(n)) {
    std::vector<T> a(n, -t), b(n, d), c(n, -t);
    tridiag::cr_solve(n, a.data(), b.data(), c.data(), g, work);
    return;
  }
  // Level r holds n_r = 2^(k-r) - 1 unknowns at g_r; its row i (1-based) is row 2i of level r-1.
  struct Level {
    T* g;
    index_t n;
    T t, d;
  };
  Level lv[64];
  int top = 0;
  lv[0] = {g, n, t, d};
  T* w = work;
  while (lv[top].n > 1) {
    const Level f = lv[top];
    const index_t m = f.n / 2;
    T* gr = w;
    w += m;
    const T ratio = f.t / f.d;
#pragma omp simd
    for (index_t i = 1; i <= m; ++i)  // g_i^(r) = g_2i + (t/d)(g_2i-1 + g_2i+1), 1-based
      gr[i - 1] = f.g[2 * i - 1] + ratio * (f.g[2 * i - 2] + f.g[2 * i]);
    lv[++top] = {gr, m, f.t * f.t / f.d, f.d - 2 * f.t * f.t / f.d};
  }
  lv[top].g[0] /= lv[top].d;
  for (int r = top - 1; r >= 0; --r) {
    const Level f = lv[r];
    const T* up = lv[r + 1].g;  // solution at the even rows (1-based) of this level
    const index_t m = f.n / 2;
    // odd rows i = 2p+1 (1-based): (g_i + t (v_{i-1} + v_{i+1})) / d, v_0 = v_{n+1} = 0
#pragma omp simd
    for (index_t p = 0; p <= m; ++p) {
      const T lo = p > 0 ? up[p - 1] : T(0), hi = p < m ? up[p] : T(0);
      f.g[2 * p] = (f.g[2 * p] + f.t * (lo + hi)) / f.d;
    }
    for (index_t p = 1; p <= m; ++p) f.g[2 * p - 1] = up[p - 1];
  }
}

}  // namespace tridsim::cr
