#pragma once
// The paper's algorithm A1 (namespace tridsim::rec): forward reduction (7) then back substitution
// (8), one element at a time, in the working precision T (A1D: double, A1S: float). Kept plain: it
// is also the reference every other variant is tested against (with T = double or long double).
#include "solvers/recurrence/recurrence.hpp"

namespace tridsim::rec {

template <class T>
void solve_sequential(T* d, index_t m, Ends ends) {
  check_ends(ends, m);
  const IndexMap at{m, !ends.prefix_first()};
  for (index_t i = 1; i < m; ++i) d[at(i)] += d[at(i - 1)];      // (7): y_i = d_i + y_{i-1}
  for (index_t i = m - 2; i >= 0; --i) d[at(i)] += d[at(i + 1)];  // (8): u_i = y_i + u_{i+1}
  if (ends.rank_one()) {  // both ends fixed: subtract the Sherman-Morrison term (a linear function)
    const T z0 = d[0];
    for (index_t i = 0; i < m; ++i) d[i] = T(double(d[i]) - double(z0) * rank_one_weight(i, m));
  }
}

}  // namespace tridsim::rec
