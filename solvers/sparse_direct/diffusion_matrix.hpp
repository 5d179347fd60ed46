#pragma once
// The variable-coefficient diffusion operator as a symmetric sparse matrix (namespace
// tridsim::sparse), for the sparse direct solver's users (Poisson with variable conductivity, the
// unsplit implicit heat step, the benchmarks):
//
//   shift * u - scale * div(kappa grad u)      on the nodes of a box, vertex-centred,
//
// with kappa at the faces as the harmonic mean of its node values (core/diffusion.hpp). Every
// node's row is multiplied by its cell's share of a full cell (1/2 on a Neumann face, 1/4 on an
// edge of two, 1/8 at a corner), which makes the half-cell Neumann rows of the vertex-centred
// scheme symmetric; right-hand sides take the same weight (cell_weight). Dirichlet nodes are
// identity rows with their couplings moved to the right-hand side (dirichlet_lift), so the matrix
// stays symmetric positive definite.
#include <array>

#include "solvers/sparse_direct/stencil_matrix.hpp"

namespace tridsim::sparse {

struct DiffusionProblem {
  int dim = 2;
  std::array<index_t, 3> n{1, 1, 1};      // nodes per axis, x fastest
  std::array<double, 3> h{1, 1, 1};       // spacing per axis
  std::array<std::array<bool, 2>, 3> dirichlet{};  // per axis, low / high face: Dirichlet, else Neumann
  const double* kappa = nullptr;          // node values (x fastest); nullptr: 1 everywhere
  double shift = 0, scale = 1;

  GridPattern pattern() const;
  bool is_dirichlet(index_t i, index_t j, index_t k) const;
  // The node's share of a full cell: the weight of its row and of its right-hand side.
  double cell_weight(index_t i, index_t j, index_t k) const;
};

template <class T>
StencilMatrix<T> diffusion_matrix(const DiffusionProblem& p);

// Right-hand side b (already weighted by cell_weight) made consistent with the matrix: at a
// Dirichlet node b = u (the given value); next to one, b += the coupling times u there.
template <class T>
void dirichlet_lift(const DiffusionProblem& p, const T* u, T* b);

// y = the operator applied to u without the Dirichlet treatment (shift u - scale div(kappa grad
// u), row-weighted like the matrix) at every node that is not Dirichlet; y = 0 at Dirichlet nodes.
// The explicit half of a Crank-Nicolson step.
template <class T>
void apply_diffusion(const DiffusionProblem& p, const T* u, T* y);

}  // namespace tridsim::sparse
