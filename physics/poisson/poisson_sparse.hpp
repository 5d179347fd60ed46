#pragma once
// The poisson module's sparse direct path (namespace tridsim): -div(kappa grad u) = f with any
// positive conductivity and Dirichlet or Neumann faces, as one symmetric positive definite system
// (solvers/sparse_direct/diffusion_matrix.hpp: harmonic face means, row-weighted half cells at
// Neumann faces, Dirichlet identity rows) factored by the multifrontal Cholesky solver and
// refined (solve_refined: residuals in double) until ||b - A u|| / ||b|| stops falling.
//
// Neumann data are the outward normal derivative g = du/dn, as for the heat module (core/
// boundary_kind.hpp): a node of a Neumann face of axis a adds 2 kappa g / h_a to its row's right-
// hand side (core/diffusion.hpp's neumann_flux_term), weighted like the row.
#include <memory>
#include <vector>

#include "core/backend.hpp"
#include "core/boundary.hpp"
#include "core/grid.hpp"
#include "solvers/sparse_direct/diffusion_matrix.hpp"
#include "solvers/sparse_direct/multifrontal.hpp"

namespace tridsim {

template <class T>
class PoissonSparse {
 public:
  // kappa: node values, x-fastest, or empty for kappa0 everywhere. The analysis (nested
  // dissection, exact sizes) is done here; nothing is factored yet.
  PoissonSparse(const Grid& grid, const Boundary& bc, std::vector<double> kappa, double kappa0, Backend backend);
  ~PoissonSparse();

  // Bytes the factorization will hold (panels, fronts, contribution stacks).
  double working_bytes() const { return solver_->working_bytes(); }
  const sparse::Analysis& analysis() const { return solver_->analysis(); }
  double factor_seconds() const { return solver_->factor_seconds(); }

  // u holds the Dirichlet values on the Dirichlet faces (left as they are); f is the source at
  // every node; neumann[face] the outward derivative at the nodes of bc.faces()[face] (ignored for
  // Dirichlet faces). Forms the matrix, factors it, solves and refines; u gets the solution.
  // Returns the relative residual of the system (over the rows that are not Dirichlet) and the
  // refinement steps.
  sparse::Refinement solve(const T* f, const std::vector<std::vector<double>>& neumann, T* u);

 private:
  void form_rhs(const T* f, const std::vector<std::vector<double>>& neumann, const T* u, double* b) const;

  Grid g_;
  Boundary bc_;
  std::vector<double> kappa_;
  double kappa0_ = 1;
  sparse::DiffusionProblem problem_;
  std::vector<unsigned char> fixed_;  // per node, x-fastest: on a Dirichlet face
  std::unique_ptr<sparse::Multifrontal<T>> solver_;
};

}  // namespace tridsim
