#pragma once
// A tridiagonal line split into segments (namespace tridsim::tridiag): the substructuring step of
// a distributed line solve. Each segment (one rank's piece of the line) eliminates its interior
// by a modified Thomas sweep that keeps its first and last unknowns, leaving at most two rows of
// a reduced tridiagonal system that couples neighbouring segments; once the reduced system is
// solved (gathered, or by PCR over the segments), each segment recovers its interior from its two
// kept unknowns alone.
//
// Rows of a segment of length m, local index i = 0..m-1, read
//   a_i x_{i-1} + b_i x_i + c_i x_{i+1} = d_i,
// where x_{-1} is the previous segment's last unknown and x_m the next segment's first (a_0 and
// c_{m-1} are 0 at the ends of the whole line). Row i of a segment is element i * stride, so the
// same functions serve one line or interleaved batches of lines. No pivoting: intended for the
// diagonally dominant systems the modules build, like the single-segment solvers.
//
// The reduced rows, in line order, are
//   first unknown:  ra x_{-1} + x_0     + rc x_{m-1} = rd
//   last unknown:   ra x_0    + x_{m-1} + rc x_m     = rd
// (a segment of length 1 gives one row, ra x_{-1} + x_0 + rc x_1 = rd), so the reduced system of
// the whole line is tridiagonal with a unit diagonal.
#include <algorithm>
#include <vector>

#include "core/decomposition.hpp"
#include "core/host_device.hpp"
#include "core/types.hpp"

namespace tridsim::tridiag {

template <class T>
struct ReducedRow {
  T a, c, d;  // the unit diagonal is implied
};

// This rank's rows of its local lines (a line split over ranks).
struct Segment {
  index_t first_row = 0;   // local index of the first owned row
  index_t rows = 0;        // owned rows (at least 2)
  index_t global_row = 0;  // index of first_row in the whole line
};

// This rank's segment of the lines along an axis the decomposition splits.
inline Segment segment_of(const AxisSplit& part) { return {part.halo_lo, part.owned, part.first}; }

// One lane's downward sweep, row by row. Row i >= 1 of a segment becomes
//   a'_i x_0 + x_i + c'_i x_{i+1} = d'_i          (eliminate_row, from row i-1's; row 1 from sweep_start)
// so the last row is the last reduced row, and with x_0 and x_{m-1} known the interior follows
// upwards, x_i = d'_i - a'_i x_0 - c'_i x_{i+1} (recover_row). The first reduced row needs x_1 in
// terms of x_0 and x_{m-1}: that upward substitution unrolled, x_1 = s.d - s.a x_0 + s.w x_{m-1}
// with sums over the interior rows 1..m-2 that the same downward sweep adds (FirstRowSums; the
// weights are products of -c', which shrink on the diagonally dominant rows). One pass over the
// rows reduces a segment, and only (a', c', d') of the interior rows are kept for the recovery.
template <class T>
TRIDSIM_HOST_DEVICE constexpr ReducedRow<T> sweep_start() {
  return {T(-1), T(0), T(0)};  // row 0 as row 1's predecessor: x_0 kept
}

template <class T>
TRIDSIM_HOST_DEVICE ReducedRow<T> eliminate_row(T a, T b, T c, T d, const ReducedRow<T>& prev) {
  const T r = T(1) / (b - a * prev.c);
  return {-a * prev.a * r, c * r, (d - a * prev.d) * r};
}

template <class T>
TRIDSIM_HOST_DEVICE T recover_row(const ReducedRow<T>& swept, T first, T next) {
  return swept.d - swept.a * first - swept.c * next;
}

template <class T>
struct FirstRowSums {
  T w = T(1), a = T(0), d = T(0);
  // Row k of the interior (1 <= k <= m-2, in order).
  TRIDSIM_HOST_DEVICE void add_interior(const ReducedRow<T>& swept) {
    a += w * swept.a;
    d += w * swept.d;
    w *= -swept.c;
  }
  // Row 0 with x_1 substituted.
  TRIDSIM_HOST_DEVICE ReducedRow<T> first_row(T a0, T b0, T c0, T d0) const {
    const T r = T(1) / (b0 - c0 * a);
    return {a0 * r, c0 * w * r, (d0 - c0 * d) * r};
  }
};

// A segment of one row: ra x_{-1} + x_0 + rc x_1 = rd.
template <class T>
TRIDSIM_HOST_DEVICE ReducedRow<T> single_row(T a, T b, T c, T d) {
  const T r = T(1) / b;
  return {a * r, c * r, d * r};
}

// Eliminates the interior of `lanes` segments of length m >= 1 side by side: element (i, l) of the
// segments' rows at i * stride + l (stride >= lanes; lanes 1: one segment, rows i * stride). a, c
// and d of rows 1..m-1 are overwritten with the swept rows that recover_segments needs (b is read
// only); writes the reduced rows of lane l to rows[l] (first unknown) and rows[lanes + l] (last
// unknown, when m >= 2). Returns how many rows each lane wrote.
template <class T>
TRIDSIM_HOST_DEVICE int reduce_segments(index_t m, index_t stride, index_t lanes, T* a, const T* b, T* c, T* d,
                                        ReducedRow<T>* rows) {
  if (m == 1) {
    for (index_t l = 0; l < lanes; ++l) rows[l] = single_row(a[l], b[l], c[l], d[l]);
    return 1;
  }
  constexpr index_t kGroup = 16;  // lanes swept together, their sums in registers
  for (index_t l0 = 0; l0 < lanes; l0 += kGroup) {
    const index_t g = lanes - l0 < kGroup ? lanes - l0 : kGroup;
    FirstRowSums<T> sums[kGroup];
    auto sweep = [&](index_t i, index_t j, const ReducedRow<T>& prev) {
      const index_t k = i * stride + l0 + j;
      const ReducedRow<T> row = eliminate_row(a[k], b[k], c[k], d[k], prev);
      a[k] = row.a;
      c[k] = row.c;
      d[k] = row.d;
    };
    for (index_t j = 0; j < g; ++j) sweep(1, j, sweep_start<T>());
    for (index_t i = 2; i < m; ++i)
#pragma omp simd
      for (index_t j = 0; j < g; ++j) {
        const index_t p = (i - 1) * stride + l0 + j;
        const ReducedRow<T> prev{a[p], c[p], d[p]};
        sums[j].add_interior(prev);
        sweep(i, j, prev);
      }
    for (index_t j = 0; j < g; ++j) {
      const index_t l = l0 + j, last = (m - 1) * stride + l;
      rows[l] = sums[j].first_row(a[l], b[l], c[l], d[l]);
      rows[lanes + l] = {a[last], c[last], d[last]};
    }
  }
  return 2;
}

// One segment (rows at i * stride).
template <class T>
TRIDSIM_HOST_DEVICE int reduce_segment(index_t m, index_t stride, T* a, const T* b, T* c, T* d, ReducedRow<T>* rows) {
  return reduce_segments(m, stride, index_t(1), a, b, c, d, rows);
}

// Writes the segments' solutions into d (overwritten by reduce_segments), given each lane's first
// and last unknowns from the reduced system (first[l], last[l]).
template <class T>
TRIDSIM_HOST_DEVICE void recover_segments(index_t m, index_t stride, index_t lanes, const T* a, const T* c, T* d,
                                          const T* first, const T* last) {
  for (index_t l = 0; l < lanes; ++l) d[l] = first[l];
  if (m == 1) return;
  for (index_t l = 0; l < lanes; ++l) d[(m - 1) * stride + l] = last[l];
  for (index_t i = m - 2; i >= 1; --i)
#pragma omp simd
    for (index_t l = 0; l < lanes; ++l) {
      const index_t k = i * stride + l;
      d[k] = recover_row(ReducedRow<T>{a[k], c[k], d[k]}, first[l], d[k + stride]);
    }
}

template <class T>
TRIDSIM_HOST_DEVICE void recover_segment(index_t m, index_t stride, const T* a, const T* c, T* d, T first, T last) {
  recover_segments(m, stride, index_t(1), a, c, d, &first, &last);
}

// reduce_segments and recover_segments for segments whose rows are the same in every lane (a
// constant-coefficient line): the coefficients' part of the elimination is done once here, so a
// lane costs only its right-hand side's part. Built from the segment's rows (m >= 2; a, b, c are
// read, element i at a[i]).
//  - Reduction: reduce_segments's forward sweep and the backward sweep that gives the first
//    reduced row are linear in d with coefficients fixed by the rows, so each reduced row's d is a
//    fixed weighted sum of the segment's right-hand side (first_weight, last_weight), whose rows
//    may be added in any order (SplitRhsSums adds them while another sweep writes them).
//  - Recovery: with x_0 and x_{m-1} known, the interior is a tridiagonal system of its own,
//    solved by Thomas's sweeps (the forward sweep's pivots are the reduction's).
// A factored segment's right-hand-side arithmetic for one lane (host and device), given pointers
// to its per-row arrays (FactoredSegment::view: host memory, or a copy of them on the device):
// add row i's part of the reduced rows' d, and row i's Thomas forward and backward steps.
template <class T>
struct SegmentFactors {
  const T *first_weight, *last_weight, *a, *pivot, *c_forward;
  ReducedRow<T> first, last;
  TRIDSIM_HOST_DEVICE static T forward_step(T d, T prev, T a_i, T pivot_i) { return (d - a_i * prev) * pivot_i; }
  TRIDSIM_HOST_DEVICE static T backward_step(T d, T next, T c_i) { return d - c_i * next; }
  TRIDSIM_HOST_DEVICE void add(index_t i, T d, T& first_d, T& last_d) const {
    first_d += first_weight[i] * d;
    last_d += last_weight[i] * d;
  }
  TRIDSIM_HOST_DEVICE T forward(index_t i, T d, T prev) const { return forward_step(d, prev, a[i], pivot[i]); }
  TRIDSIM_HOST_DEVICE T backward(index_t i, T d, T next) const { return backward_step(d, next, c_forward[i]); }
};

template <class T>
struct FactoredSegment {
  index_t m = 0;
  std::vector<T> pivot;      // 1 / forward pivot of row i (i >= 1)
  std::vector<T> a, b, c;    // the rows as given
  std::vector<T> c_forward;  // c'_i after the forward sweep
  std::vector<T> first_weight, last_weight;  // the reduced rows' d = sum over i of weight[i] d_i
  ReducedRow<T> first{}, last{};             // the reduced rows' a and c (d = 0)

  FactoredSegment(index_t rows, const T* ra, const T* rb, const T* rc)
      : m(rows), pivot(rows), a(ra, ra + rows), b(rb, rb + rows), c(rc, rc + rows), c_forward(rows) {
    std::vector<T> aa(ra, ra + rows), cc(rc, rc + rows);
    // Forward, as reduce_segments does it (d = 0), keeping each row's pivot and c'; the first
    // reduced row's a and c from FirstRowSums, whose weights are the to_first below.
    pivot[1] = T(1) / rb[1];
    aa[1] *= pivot[1];
    cc[1] *= pivot[1];
    for (index_t i = 2; i < m; ++i) {
      pivot[i] = T(1) / (rb[i] - aa[i] * cc[i - 1]);
      aa[i] = -aa[i] * aa[i - 1] * pivot[i];
      cc[i] *= pivot[i];
    }
    for (index_t i = 1; i < m; ++i) c_forward[i] = cc[i];
    // The upward substitution's d''_1 = sum over i = 1 .. m-2 of to_first[i] d'_i (d'_i: forward-
    // eliminated; products of |c'| < 1 shrink, so a far row's weight underflows to 0).
    std::vector<T> to_first(m, T(0));
    FirstRowSums<T> sums;
    for (index_t i = 1; i + 1 < m; ++i) {
      to_first[i] = sums.w;
      sums.add_interior({aa[i], cc[i], T(0)});
    }
    last = {aa[m - 1], cc[m - 1], T(0)};
    first = sums.first_row(ra[0], rb[0], rc[0], T(0));
    const T pivot0 = T(1) / (rb[0] - rc[0] * sums.a);
    // d'_1 = d_1 pivot_1, d'_i = (d_i - a_i d'_{i-1}) pivot_i, first d = (d_0 - c_0 d''_1) pivot0,
    // last d = d'_{m-1}: back through the forward recurrence, g and h are the derivatives of
    // d''_1 and d'_{m-1} with respect to d'_i.
    first_weight.assign(m, T(0));
    last_weight.assign(m, T(0));
    first_weight[0] = pivot0;
    T g = 0, h = 1;
    for (index_t i = m - 1; i >= 1; --i) {
      if (i + 1 < m) {
        const T back = -a[i + 1] * pivot[i + 1];
        g = to_first[i] + g * back;
        h *= back;
      }
      first_weight[i] = -rc[0] * pivot0 * g * pivot[i];
      last_weight[i] = h * pivot[i];
    }
  }

  // Segment `seg`'s rows of a row source shared by every line (load_row(offset, count,
  // global_row, a, b, c), whole-line row indices), factored.
  template <class Rows>
  static FactoredSegment of_rows(const Rows& M, const Segment& seg) {
    const index_t n = seg.rows;
    std::vector<T> ra(n), rb(n), rc(n);
    for (index_t r = 0; r < n; ++r) M.load_row(0, 1, seg.global_row + r, &ra[r], &rb[r], &rc[r]);
    return FactoredSegment(n, ra.data(), rb.data(), rc.data());
  }

  // The arrays as a SegmentFactors (their per-lane arithmetic); `at` the arrays packed one after
  // another (packed(): first_weight, last_weight, a, pivot, c_forward), on the host or the device.
  std::vector<T> packed() const {
    std::vector<T> p;
    for (const auto* v : {&first_weight, &last_weight, &a, &pivot, &c_forward}) p.insert(p.end(), v->begin(), v->end());
    return p;
  }
  SegmentFactors<T> view(const T* at) const { return {at, at + m, at + 2 * m, at + 3 * m, at + 4 * m, first, last}; }

  // The right-hand side's part, a row of `lanes` lanes at a time (so it fuses with loading and
  // storing rows). add_row: row i's part of the reduced rows' d (rows in any order). Recovery:
  // with row 0 holding x_0, forward_row for i = 1 .. m-2 (prev: row i-1); then with row m-1
  // holding x_{m-1}, backward_row for i = m-2 .. 1 (next: row i+1) leaves the solution.
  void add_row(index_t i, index_t lanes, const T* d, T* first_d, T* last_d) const {
    const T f = first_weight[i], l = last_weight[i];
#pragma omp simd
    for (index_t k = 0; k < lanes; ++k) {
      first_d[k] += f * d[k];
      last_d[k] += l * d[k];
    }
  }
  void forward_row(index_t i, index_t lanes, T* cur, const T* prev) const {
    const T ai = a[i], pi = pivot[i];
#pragma omp simd
    for (index_t l = 0; l < lanes; ++l) cur[l] = SegmentFactors<T>::forward_step(cur[l], prev[l], ai, pi);
  }
  void backward_row(index_t i, index_t lanes, T* cur, const T* next) const {
    const T ci = c_forward[i];
#pragma omp simd
    for (index_t l = 0; l < lanes; ++l) cur[l] = SegmentFactors<T>::backward_step(cur[l], next[l], ci);
  }

  // The whole segment at once: the reduced rows' d (first_d, last_d), and the solution given x_0
  // and x_{m-1} per lane (element (i, l) at i * stride + l).
  void reduce(index_t stride, index_t lanes, const T* d, T* first_d, T* last_d) const {
    std::fill(first_d, first_d + lanes, T(0));
    std::fill(last_d, last_d + lanes, T(0));
    for (index_t i = 0; i < m; ++i) add_row(i, lanes, d + i * stride, first_d, last_d);
  }
  void solve(index_t stride, index_t lanes, T* d, const T* x_first, const T* x_last) const {
    std::copy(x_first, x_first + lanes, d);
    std::copy(x_last, x_last + lanes, d + (m - 1) * stride);
    for (index_t i = 1; i + 1 < m; ++i) forward_row(i, lanes, d + i * stride, d + (i - 1) * stride);
    for (index_t i = m - 2; i >= 1; --i) backward_row(i, lanes, d + i * stride, d + (i + 1) * stride);
  }
};

// Solves `lanes` reduced systems of `count` rows each side by side, in line order (Thomas on the
// unit-diagonal rows): row(j, l) gives row j of system l, cp(j, l) and x(j, l) are work and
// result (references), so the rows and unknowns may lie at any stride (the GPU's: one line per
// thread, lines adjacent); the lanes' recurrences are independent, so they overlap.
template <class T, class RowAt, class CpAt, class XAt>
TRIDSIM_HOST_DEVICE void solve_reduced_at(index_t count, index_t lanes, const RowAt& row, const CpAt& cp, const XAt& x) {
  if (count <= 0) return;
  for (index_t l = 0; l < lanes; ++l) {
    const ReducedRow<T> r0 = row(0, l);
    cp(0, l) = r0.c;
    x(0, l) = r0.d;
  }
  for (index_t j = 1; j < count; ++j)
    for (index_t l = 0; l < lanes; ++l) {
      const ReducedRow<T> rj = row(j, l);
      const T r = T(1) / (T(1) - rj.a * cp(j - 1, l));
      cp(j, l) = rj.c * r;
      x(j, l) = (rj.d - rj.a * x(j - 1, l)) * r;
    }
  for (index_t j = count - 2; j >= 0; --j)
    for (index_t l = 0; l < lanes; ++l) x(j, l) -= cp(j, l) * x(j + 1, l);
}

// One system on contiguous arrays; x[j] receives the unknown of row j.
template <class T>
TRIDSIM_HOST_DEVICE void solve_reduced(index_t count, const ReducedRow<T>* rows, T* cp, T* x) {
  solve_reduced_at<T>(
      count, 1, [rows](index_t j, index_t) { return rows[j]; }, [cp](index_t j, index_t) -> T& { return cp[j]; },
      [x](index_t j, index_t) -> T& { return x[j]; });
}

}  // namespace tridsim::tridiag
