#pragma once
// Reference Thomas algorithm on one contiguous line (namespace tridsim::tridiag): kept plain and
// obviously right, so every optimized or batched variant can be tested against it.
// Row r of the line reads
//   a_r x_{r-1} + b_r x_r + c_r x_{r+1} = d_r,   r = 0..n-1   (a_0 and c_{n-1} are ignored).
// No pivoting: intended for diagonally dominant (or otherwise safely factorable) matrices.
#include <vector>

#include "core/types.hpp"

namespace tridsim::tridiag {

// Solve one line of length n >= 1 (n <= 0 does nothing). a, b, c, d are read only; x receives
// the solution and may be the same array as d. Computed in the working precision T.
template <class T>
void thomas_reference(index_t n, const T* a, const T* b, const T* c, const T* d, T* x) {
  if (n <= 0) return;
  std::vector<T> cp(static_cast<std::size_t>(n));  // c'_r = c_r / (b_r - a_r c'_{r-1})
  // Forward elimination: row r becomes x_r + c'_r x_{r+1} = d'_r (d'_r kept in x_r).
  cp[0] = n > 1 ? c[0] / b[0] : T(0);
  x[0] = d[0] / b[0];
  for (index_t r = 1; r < n; ++r) {
    const T pivot = b[r] - a[r] * cp[r - 1];
    cp[r] = r + 1 < n ? c[r] / pivot : T(0);
    x[r] = (d[r] - a[r] * x[r - 1]) / pivot;
  }
  // Back substitution.
  for (index_t r = n - 2; r >= 0; --r) x[r] -= cp[r] * x[r + 1];
}

}  // namespace tridsim::tridiag
