#pragma once
// Parallel cyclic reduction (PCR) and cyclic reduction (CR) on one contiguous line (namespace
// tridsim::tridiag): the selectable alternatives to Thomas (more parallelism per line, more work).
// Written plainly; the fast CPU path is Thomas in batched.hpp. See Laszlo, Giles & Appleyard
// (2014), sec. 2.2. Row r of the line reads
//   a_r x_{r-1} + b_r x_r + c_r x_{r+1} = d_r,   r = 0..n-1   (a_0 and c_{n-1} are ignored,
// and may hold any value, even NaN). Any n >= 1 works, not only powers of two; n <= 0 does
// nothing. No pivoting: both are stable for diagonally dominant matrices (each reduction step
// keeps diagonal dominance).
#include <algorithm>
#include <utility>

#include "core/types.hpp"

namespace tridsim::tridiag {

// Elements of type T of scratch that pcr_solve and cr_solve need for a line of length n
// (PCR: two buffers of normalized a, c, d = 6n; CR: reduced levels, at most 4n).
inline index_t cyclic_reduction_workspace(index_t n) { return n > 0 ? 6 * n : 0; }

namespace detail {

// One PCR step for rows [i0, i1) at coupling distance s on the normalized system
// (b = 1): a_i x_{i-s} + x_i + c_i x_{i+s} = d_i. Lo / Hi say whether rows i-s / i+s exist.
// The new row couples x_{i-2s} and x_{i+2s} (paper, Algorithm 2).
template <class T, bool Lo, bool Hi>
inline void pcr_rows(index_t i0, index_t i1, index_t s, const T* a, const T* c, const T* d, T* na, T* nc,
                     T* nd) {
#pragma omp simd
  for (index_t i = i0; i < i1; ++i) {
    T den = T(1), rhs = d[i], an = T(0), cn = T(0);
    if constexpr (Lo) {
      den -= a[i] * c[i - s];
      rhs -= a[i] * d[i - s];
    }
    if constexpr (Hi) {
      den -= c[i] * a[i + s];
      rhs -= c[i] * d[i + s];
    }
    const T r = T(1) / den;
    if constexpr (Lo) an = -r * a[i] * a[i - s];
    if constexpr (Hi) cn = -r * c[i] * c[i + s];
    na[i] = an;
    nc[i] = cn;
    nd[i] = r * rhs;
  }
}

}  // namespace detail

// PCR: ceil(log2 n) steps; step k eliminates, for every row at once, the couplings at
// distance s = 2^k using rows i-s and i+s, leaving couplings at distance 2s. Once 2s >= n every
// coupling points outside the line and each row reads x_i = d_i.
// d: right-hand side in, solution out. a, b, c are not modified.
// work: at least cyclic_reduction_workspace(n) elements.
template <class T>
void pcr_solve(index_t n, const T* a, const T* b, const T* c, T* d, T* work) {
  if (n <= 0) return;
  if (n == 1) {
    d[0] /= b[0];
    return;
  }
  T *ca = work, *cc = work + n, *cd = work + 2 * n;          // current step
  T *na = work + 3 * n, *nc = work + 4 * n, *nd = work + 5 * n;  // next step
  // Normalize every row so that b_i = 1.
#pragma omp simd
  for (index_t i = 0; i < n; ++i) {
    const T inv = T(1) / b[i];
    ca[i] = a[i] * inv;
    cc[i] = c[i] * inv;
    cd[i] = d[i] * inv;
  }
  ca[0] = T(0);  // invariant: a_i = 0 when i - s < 0 and c_i = 0 when i + s >= n
  cc[n - 1] = T(0);
  for (index_t s = 1; s < n; s *= 2) {
    // Rows [0, p) have only an upper neighbour, rows [q, n) only a lower one; the rows in
    // between have both (s <= n - s) or neither (s > n - s).
    const index_t p = std::min(s, n - s), q = std::max(s, n - s);
    detail::pcr_rows<T, false, true>(0, p, s, ca, cc, cd, na, nc, nd);
    if (s <= n - s) detail::pcr_rows<T, true, true>(p, q, s, ca, cc, cd, na, nc, nd);
    else detail::pcr_rows<T, false, false>(p, q, s, ca, cc, cd, na, nc, nd);
    detail::pcr_rows<T, true, false>(q, n, s, ca, cc, cd, na, nc, nd);
    std::swap(ca, na);
    std::swap(cc, nc);
    std::swap(cd, nd);
  }
  std::copy(cd, cd + n, d);
}

// CR: forward reduction eliminates the even rows (0-based) from the odd ones, giving a
// tridiagonal system of floor(m/2) unknowns (the odd rows), repeated down to one unknown;
// back substitution then recovers the even rows of each level from the odd ones.
// Same arguments as pcr_solve.
template <class T>
void cr_solve(index_t n, const T* a, const T* b, const T* c, T* d, T* work) {
  if (n <= 0) return;
  struct Level {
    const T *a, *b, *c;
    T* d;  // right-hand side, then solution
    index_t m;
  };
  Level lv[64];  // sizes halve: at most 63 reductions for any index_t n
  int top = 0;
  lv[0] = {a, b, c, d, n};
  T* w = work;  // levels 1, 2, ... take 4 * (n/2 + n/4 + ...) <= 4n elements
  // Forward reduction.
  while (lv[top].m > 1) {
    const Level f = lv[top];
    const index_t m = f.m, h = m / 2;
    T *ra = w, *rb = w + h, *rc = w + 2 * h, *rd = w + 3 * h;
    w += 4 * h;
    // Reduced row j is row i = 2j+1 minus multiples of rows i-1 and i+1 (i+1 exists for every
    // j < full; when m is even the last odd row, i = m-1, has no row below it).
    const index_t full = m % 2 == 1 ? h : h - 1;
#pragma omp simd
    for (index_t j = 0; j < full; ++j) {
      const index_t i = 2 * j + 1;
      const T alpha = -f.a[i] / f.b[i - 1], gamma = -f.c[i] / f.b[i + 1];
      ra[j] = alpha * f.a[i - 1];
      rc[j] = gamma * f.c[i + 1];
      rb[j] = f.b[i] + alpha * f.c[i - 1] + gamma * f.a[i + 1];
      rd[j] = f.d[i] + alpha * f.d[i - 1] + gamma * f.d[i + 1];
    }
    if (full < h) {
      const index_t j = h - 1, i = m - 1;
      const T alpha = -f.a[i] / f.b[i - 1];
      ra[j] = alpha * f.a[i - 1];
      rc[j] = T(0);
      rb[j] = f.b[i] + alpha * f.c[i - 1];
      rd[j] = f.d[i] + alpha * f.d[i - 1];
    }
    // a_0 and c_{m-1} of a level are ignored values, not couplings: the reduced system's first
    // and last rows have no lower / upper neighbour.
    ra[0] = T(0);
    rc[h - 1] = T(0);
    lv[++top] = {ra, rb, rc, rd, h};
  }
  lv[top].d[0] /= lv[top].b[0];
  // Back substitution, from the smallest level up.
  for (int k = top - 1; k >= 0; --k) {
    const Level f = lv[k];
    const T* xo = lv[k + 1].d;  // solution at the odd rows of this level
    const index_t m = f.m, h = m / 2;
    T* x = f.d;
#pragma omp simd
    for (index_t j = 0; j < h; ++j) x[2 * j + 1] = xo[j];
    x[0] = (x[0] - f.c[0] * x[1]) / f.b[0];  // m >= 2 here
    const index_t even = (m + 1) / 2, inner = m % 2 == 1 ? even - 1 : even;
#pragma omp simd
    for (index_t j = 1; j < inner; ++j) {
      const index_t i = 2 * j;
      x[i] = (x[i] - f.a[i] * x[i - 1] - f.c[i] * x[i + 1]) / f.b[i];
    }
    if (m % 2 == 1) {
      const index_t i = m - 1;
      x[i] = (x[i] - f.a[i] * x[i - 1]) / f.b[i];
    }
  }
}

}  // namespace tridsim::tridiag
