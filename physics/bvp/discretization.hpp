#pragma once
// -u'' = f (namespace tridsim::bvp) on the vertex-centred grid x_i = lo + i h, i = 0..N-1, with the
// 3-point difference and one boundary condition per end, turned into the almost-Toeplitz system of
// solvers/recurrence (rows scaled by h^2):
//   Dirichlet end  u = g           the node is known; its neighbour's row gets + g (row (2, -1))
//   Neumann end    du/dn = g       (outward derivative: -u'(lo) at lo, u'(hi) at hi) the node is
//                                  unknown; the ghost-node row halved: (1, -1), h^2 f/2 + h g
// This is the paper's (3): its problem is Neumann (g = 0) at lo and Dirichlet (0) at hi.
#include <algorithm>
#include <stdexcept>

#include "core/types.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace tridsim::bvp {

struct EndCondition {
  bool dirichlet = true;
  double value = 0;
};

// The unknowns are u[first .. first+m-1]; the solver runs on that slice of u in place. With
// Dirichlet values at both ends the solver sees zero boundary data and finish() adds the linear
// interpolant of the two values afterwards: fed into d, the values would pass through the
// Sherman-Morrison step as terms of size m*g that cancel, costing log10(m) digits.
struct System {
  index_t first = 0, m = 0;
  rec::Ends ends;
  bool lift = false;
  double lift_lo = 0, lift_hi = 0;
};

// The nodes a process holds: global nodes first .. first+n-1, at u[0 .. n-1] (all N by default;
// a rank's local box when the grid is split over ranks).
struct Nodes {
  index_t first = 0, n = -1;  // -1: all
  index_t end(index_t N) const { return n < 0 ? N : first + n; }
};

// After the solve: add the linear lift (two Dirichlet ends). The whole grid has N nodes.
template <class T>
void finish(const System& s, index_t N, T* u, Nodes held = {}) {
  if (!s.lift) return;
  const index_t begin = std::max<index_t>(1, held.first), end = std::min(N - 1, held.end(N));
#pragma omp parallel for schedule(static)
  for (index_t i = begin; i < end; ++i) {
    const double w = double(i) / double(N - 1);
    u[i - held.first] = T(double(u[i - held.first]) + (1 - w) * s.lift_lo + w * s.lift_hi);
  }
}

// Fills u with the right-hand side at the unknowns and the Dirichlet values at the known ends, of
// the `held` nodes of a grid of N. f_at(i) gives f at global node i in double (it may read the node's
// u, which is written after).
template <class T, class F>
System assemble(index_t N, double lo, double hi, EndCondition left, EndCondition right, F&& f_at, T* u,
                Nodes held = {}) {
  if (!left.dirichlet && !right.dirichlet)
    throw std::invalid_argument("Neumann conditions at both ends leave u undetermined up to a constant");
  if (N < (left.dirichlet && right.dirichlet ? 3 : 2))
    throw std::invalid_argument("too few grid points for these boundary conditions");
  const double h = (hi - lo) / double(N - 1), h2 = h * h;
  System s;
  s.first = left.dirichlet ? 1 : 0;
  const index_t last = right.dirichlet ? N - 2 : N - 1;
  s.m = last - s.first + 1;
  s.ends.first = left.dirichlet ? rec::EndRow::fixed : rec::EndRow::free;
  s.ends.last = right.dirichlet ? rec::EndRow::fixed : rec::EndRow::free;
  s.lift = left.dirichlet && right.dirichlet;
  s.lift_lo = left.value;
  s.lift_hi = right.value;
  const double gl = s.lift ? 0.0 : left.value, gr = s.lift ? 0.0 : right.value;
  const index_t begin = std::max(s.first, held.first), end = std::min(last + 1, held.end(N));
#pragma omp parallel for schedule(static)
  for (index_t i = begin; i < end; ++i) {
    double d = h2 * f_at(i);
    if (i == 0) d = 0.5 * d + h * left.value;          // Neumann at lo
    if (i == N - 1) d = 0.5 * d + h * right.value;     // Neumann at hi
    if (i == 1 && left.dirichlet) d += gl;             // Dirichlet neighbours
    if (i == N - 2 && right.dirichlet) d += gr;
    u[i - held.first] = T(d);
  }
  if (left.dirichlet && held.first == 0) u[0] = T(left.value);
  if (right.dirichlet && held.end(N) == N) u[N - 1 - held.first] = T(right.value);
  return s;
}

}  // namespace tridsim::bvp
