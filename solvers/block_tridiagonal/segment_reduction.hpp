#pragma once
// One segment of a block-tridiagonal line split over ranks (namespace tridsim::blocktri), host and
// device: the reduction to two block rows, the solve of a line's reduced system and the recovery of
// the interior, shared by the CPU (distributed.hpp) and the GPU (cuda/distributed_block_cuda.cuh).
// A segment has rows k = 0..n-1 (n >= 2); x_{-1} and x_n are the neighbours' unknowns.
//   Reduce: the interior rows 1..n-2 are solved by block Thomas for 1 + 2M right-hand-side columns
//   at once, x_k = y_k - V_k x_0 - W_k x_{n-1} (y from d, V from A_1 moved to row 1's right-hand
//   side, W from C_{n-2} moved to row n-2's); rows 0 and n-1 with x_1 and x_{n-2} substituted are
//   the segment's two reduced rows
//     A_0 x_{-1} + (B_0 - C_0 V_1) x_0 - C_0 W_1 x_{n-1} = d_0 - C_0 y_1
//     -A_{n-1} V_{n-2} x_0 + (B_{n-1} - A_{n-1} W_{n-2}) x_{n-1} + C_{n-1} x_n = d_{n-1} - A_{n-1} y_{n-2}
//   (n = 2: rows 0 and 1 as they are).
//   Recover: with x_0 and x_{n-1} known the interior is one block Thomas solve, its first and last
//   right-hand sides less A_1 x_0 and C_{n-2} x_{n-1}.
// A reduced block row is A, B, C (M x M, row-major) then d (M): reduced_row_size(M) values. A
// failed reduction fills its rows with NaN so that every rank of the axis sees the failure in the
// reduced system.
#include "core/coupled_diffusion.hpp"
#include "core/host_device.hpp"
#include "solvers/block_tridiagonal/reference.hpp"

namespace tridsim::blocktri {

TRIDSIM_HOST_DEVICE inline index_t reduced_row_size(int m) { return index_t(3 * m + 1) * m; }

// Work space of one segment's block Thomas solves: X (n block rows of m x K) and cs (n m x m
// blocks), T* or Strided<T>, plus per-thread blocks.
template <class T, class PX>
struct SegmentWork {
  PX X, cs;
  T A[kMaxSpecies * kMaxSpecies], B[kMaxSpecies * kMaxSpecies], C[kMaxSpecies * kMaxSpecies];
  T R[kMaxSpecies * (kMaxSpecies + 2 * kMaxSpecies + 1)];
  template <class Rows>
  TRIDSIM_HOST_DEVICE int thomas(int m, index_t n, int K, const Rows& rows, Pivoting pivoting) {
    return block_thomas_in<T>(m, n, K, rows, X, cs, A, B, C, R, pivoting);
  }
};

// The blocks of one segment of one line: row k lies at node base + k * stride and is row
// global_row + k of the whole line (the generator sees the whole line's ends).
template <class T, class Blocks>
struct SegmentRows {
  Blocks blocks;
  int m;
  index_t base, stride, global_row;
  TRIDSIM_HOST_DEVICE void operator()(index_t k, T* A, T* B, T* C) const {
    const index_t o = base + k * stride;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) blocks.entry(o, global_row + k, i, j, A[i * m + j], B[i * m + j], C[i * m + j]);
  }
};

namespace detail {

// One of a segment's two rows (A, B, C, d) with the neighbouring interior unknown
// x = y - V x_kept - W x_other substituted: X is that interior row's m x K block [y | V | W];
// `kept` and `other` are the first columns of the blocks multiplying this row's own unknown and
// the segment's other end, `coupling` the offset of the block G multiplying x: B -= G X_kept,
// d -= G y, and G's slot takes the other end's block -G X_other.
template <class T, class PX>
TRIDSIM_HOST_DEVICE void substitute(int m, int K, PX X, T* row, int kept, int other, index_t coupling) {
  const index_t mm = index_t(m) * m;
  T* G = row + coupling;
  T* B = row + mm;
  T GV[kMaxSpecies * kMaxSpecies], GW[kMaxSpecies * kMaxSpecies], Gy[kMaxSpecies];
  for (int i = 0; i < m; ++i) {
    T y = 0;
    for (int c = 0; c < m; ++c) y += G[i * m + c] * X[c * K];
    Gy[i] = y;
    for (int j = 0; j < m; ++j) {
      T v = 0, w = 0;
      for (int c = 0; c < m; ++c) v += G[i * m + c] * X[c * K + kept + j], w += G[i * m + c] * X[c * K + other + j];
      GV[i * m + j] = v, GW[i * m + j] = w;
    }
  }
  for (index_t e = 0; e < mm; ++e) B[e] -= GV[e], G[e] = -GW[e];
  for (int i = 0; i < m; ++i) row[3 * mm + i] -= Gy[i];
}

// Rows 1..n-2 of a segment, numbered from 0 (block Thomas's rows).
template <class T, class Rows>
struct InteriorRows {
  const Rows& rows;
  TRIDSIM_HOST_DEVICE void operator()(index_t r, T* A, T* B, T* C) const { rows(r + 1, A, B, C); }
};

}  // namespace detail

// Reduces a segment of n rows (blocks `rows`, right-hand side d(k, s)) to its two reduced rows
// `first` and `last` (reduced_row_size(m) values each). X needs (n - 2) m (2m + 1) values, cs
// (n - 2) m m. Returns false (both rows NaN) where a pivot block is singular.
template <class T, class Rows, class D, class PX>
TRIDSIM_HOST_DEVICE bool reduce_block_segment(int m, index_t n, const Rows& rows, const D& d, SegmentWork<T, PX>& w,
                                              T* first, T* last, Pivoting pivoting) {
  const index_t mm = index_t(m) * m, interior = n - 2;
  const int K = 1 + 2 * m;
  rows(0, first, first + mm, first + 2 * mm);
  rows(n - 1, last, last + mm, last + 2 * mm);
  for (int s = 0; s < m; ++s) first[3 * mm + s] = d(0, s), last[3 * mm + s] = d(n - 1, s);
  if (interior == 0) return true;
  for (index_t e = 0; e < interior * m * K; ++e) w.X[e] = T(0);
  for (index_t k = 1; k <= interior; ++k)
    for (int s = 0; s < m; ++s) w.X[((k - 1) * m + s) * K] = d(k, s);
  rows(1, w.A, w.B, w.C);  // A_1 -> V's columns of interior row 0
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) w.X[i * K + 1 + j] = w.A[i * m + j];
  rows(n - 2, w.A, w.B, w.C);  // C_{n-2} -> W's columns of the last interior row
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) w.X[((interior - 1) * m + i) * K + 1 + m + j] = w.C[i * m + j];
  if (w.thomas(m, interior, K, detail::InteriorRows<T, Rows>{rows}, pivoting) >= 0) {
    const T nan = T(0) / T(0);
    for (index_t e = 0; e < reduced_row_size(m); ++e) first[e] = last[e] = nan;
    return false;
  }
  // Substitute x_1 and x_{n-2}: y, V, W of the first and last interior rows are columns of X.
  detail::substitute<T>(m, K, w.X, first, /*kept=*/1, /*other=*/1 + m, /*coupling=*/2 * mm);
  detail::substitute<T>(m, K, w.X + (interior - 1) * m * K, last, 1 + m, 1, 0);
  return true;
}

// Solves one line's reduced system of `count` block rows (row(r): a reduced row, rank r / 2's first
// or last) into X (count * m values; cs holds count m x m blocks). Returns false where a row
// holds NaN (a rank's reduction failed) or a pivot block is singular.
template <class T, class Row, class PX>
TRIDSIM_HOST_DEVICE bool solve_block_reduced(int m, index_t count, const Row& row, SegmentWork<T, PX>& w,
                                             Pivoting pivoting) {
  const index_t mm = index_t(m) * m;
  for (index_t r = 0; r < count; ++r) {
    const T* x = row(r);
    for (int s = 0; s < m; ++s) {
      const T v = x[3 * mm + s], b = x[mm + s * m + s];
      if (v != v || b != b) return false;
      w.X[r * m + s] = v;
    }
  }
  auto blocks = [&](index_t r, T* A, T* B, T* C) {
    const T* x = row(r);
    for (index_t e = 0; e < mm; ++e) A[e] = x[e], B[e] = x[mm + e], C[e] = x[2 * mm + e];
  };
  return w.thomas(m, count, 1, blocks, pivoting) < 0;
}

// Recovers a segment of n rows from its two ends x0 and x1 (m values each): out(k, s, value) for
// every row k and species s. X needs (n - 2) m values, cs (n - 2) m m. Returns false where a
// pivot block is singular.
template <class T, class Rows, class D, class Out, class PX>
TRIDSIM_HOST_DEVICE bool recover_block_segment(int m, index_t n, const Rows& rows, const D& d, const T* x0, const T* x1,
                                               SegmentWork<T, PX>& w, const Out& out, Pivoting pivoting) {
  const index_t interior = n - 2;
  if (interior > 0) {
    for (index_t k = 1; k <= interior; ++k)
      for (int s = 0; s < m; ++s) w.X[(k - 1) * m + s] = d(k, s);
    rows(1, w.A, w.B, w.C);
    dense_minus_product(m, 1, w.A, x0, w.X);
    rows(n - 2, w.A, w.B, w.C);
    dense_minus_product(m, 1, w.C, x1, w.X + (interior - 1) * m);
    if (w.thomas(m, interior, 1, detail::InteriorRows<T, Rows>{rows}, pivoting) >= 0) return false;
    for (index_t k = 1; k <= interior; ++k)
      for (int s = 0; s < m; ++s) out(k, s, T(w.X[(k - 1) * m + s]));
  }
  for (int s = 0; s < m; ++s) out(0, s, x0[s]), out(n - 1, s, x1[s]);
  return true;
}

}  // namespace tridsim::blocktri
