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
#include "core/host_device.hpp"
#include "core/types.hpp"

namespace tridsim::tridiag {

template <class T>
struct ReducedRow {
  T a, c, d;  // the unit diagonal is implied
};

// Eliminates the interior of one segment (m >= 1). a, c and d are overwritten with the
// coefficients that recover_segment needs (b is read only); writes the segment's reduced rows to
// rows[0] (first unknown) and rows[1] (last unknown, when m >= 2). Returns how many it wrote.
template <class T>
TRIDSIM_HOST_DEVICE int reduce_segment(index_t m, index_t stride, T* a, const T* b, T* c, T* d,
                                       ReducedRow<T>* rows) {
  const auto at = [stride](index_t i) { return i * stride; };
  if (m == 1) {
    const T r = T(1) / b[0];
    rows[0] = {a[0] * r, c[0] * r, d[0] * r};
    return 1;
  }
  // Forward (i >= 1): row i becomes  a'_i x_0 + x_i + c'_i x_{i+1} = d'_i.
  T r = T(1) / b[at(1)];
  a[at(1)] *= r;
  c[at(1)] *= r;
  d[at(1)] *= r;
  for (index_t i = 2; i < m; ++i) {
    const index_t k = at(i), p = at(i - 1);
    r = T(1) / (b[k] - a[k] * c[p]);
    d[k] = (d[k] - a[k] * d[p]) * r;
    a[k] = -a[k] * a[p] * r;
    c[k] *= r;
  }
  const index_t last = at(m - 1);
  rows[1] = {a[last], c[last], d[last]};
  // Backward (m-2 >= i >= 1): x_i = d'_i - a'_i x_0 - c'_i x_{m-1}.
  for (index_t i = m - 3; i >= 1; --i) {
    const index_t k = at(i), n = at(i + 1);
    d[k] -= c[k] * d[n];
    a[k] -= c[k] * a[n];
    c[k] = -c[k] * c[n];
  }
  // Row 0 with x_1 substituted (x_1 is the kept last unknown itself when m == 2).
  const index_t one = at(1);
  const T a1 = m > 2 ? a[one] : T(0), c1 = m > 2 ? c[one] : T(-1), d1 = m > 2 ? d[one] : T(0);
  r = T(1) / (b[0] - c[0] * a1);
  rows[0] = {a[0] * r, -c[0] * c1 * r, (d[0] - c[0] * d1) * r};
  return 2;
}

// Writes the segment's solution into d (overwritten by reduce_segment), given its first and last
// unknowns from the reduced system.
template <class T>
TRIDSIM_HOST_DEVICE void recover_segment(index_t m, index_t stride, const T* a, const T* c, T* d, T first,
                                         T last) {
  d[0] = first;
  if (m == 1) return;
  for (index_t i = 1; i + 1 < m; ++i) {
    const index_t k = i * stride;
    d[k] -= a[k] * first + c[k] * last;
  }
  d[(m - 1) * stride] = last;
}

// Solves a reduced system of `count` rows in line order (Thomas on the unit-diagonal rows);
// x[j] receives the unknown of row j.
template <class T>
TRIDSIM_HOST_DEVICE void solve_reduced(index_t count, const ReducedRow<T>* rows, T* cp, T* x) {
  if (count <= 0) return;
  cp[0] = rows[0].c;
  x[0] = rows[0].d;
  for (index_t j = 1; j < count; ++j) {
    const T r = T(1) / (T(1) - rows[j].a * cp[j - 1]);
    cp[j] = rows[j].c * r;
    x[j] = (rows[j].d - rows[j].a * x[j - 1]) * r;
  }
  for (index_t j = count - 2; j >= 0; --j) x[j] -= cp[j] * x[j + 1];
}

}  // namespace tridsim::tridiag
