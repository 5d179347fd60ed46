#include "physics/poisson/poisson_sparse.hpp"

#include <algorithm>
#include <utility>

#include "core/diffusion.hpp"

namespace tridsim {

namespace {
// Refine while the relative residual falls, down to about double rounding (the module promises
// 1e-12); refinement stops earlier when a step no longer halves it (float's floor).
constexpr double kTolerance = 1e-14;
}  // namespace

template <class T>
PoissonSparse<T>::PoissonSparse(const Grid& grid, const Boundary& bc, std::vector<double> kappa, double kappa0,
                                Backend backend)
    : g_(grid), bc_(bc), kappa_(std::move(kappa)), kappa0_(kappa0) {
  problem_.dim = grid.dim;
  for (int a = 0; a < 3; ++a) {
    problem_.n[a] = a < grid.dim ? grid.n[a] : 1;
    problem_.h[a] = a < grid.dim ? grid.h(a) : 1.0;
    for (int side = 0; side < 2; ++side) problem_.dirichlet[a][side] = a < grid.dim && bc.dirichlet(a, side);
  }
  problem_.kappa = kappa_.empty() ? nullptr : kappa_.data();
  problem_.shift = 0;                            // -div(kappa grad u): no zeroth-order term
  problem_.scale = kappa_.empty() ? kappa0 : 1;  // a constant kappa scales the Laplacian
  sparse::SolverOptions options;
  options.backend = backend;
  solver_ = std::make_unique<sparse::Multifrontal<T>>(problem_.pattern(), options);
  fixed_.resize(static_cast<std::size_t>(grid.size()));
  for (index_t k = 0; k < problem_.n[2]; ++k)
    for (index_t j = 0; j < problem_.n[1]; ++j)
      for (index_t i = 0; i < problem_.n[0]; ++i)
        fixed_[i + problem_.n[0] * (j + problem_.n[1] * k)] = problem_.is_dirichlet(i, j, k);  // x-fastest
}

template <class T>
PoissonSparse<T>::~PoissonSparse() = default;

// b = w (f + 2 kappa g / h on Neumann faces), w the node's cell weight (the matrix's row weight),
// with the couplings to Dirichlet nodes moved in (dirichlet_lift) and 0 on the Dirichlet rows, so
// that the solve gives 0 there and the residual measures only the equations solved. In double: a
// float deck rounds once.
template <class T>
void PoissonSparse<T>::form_rhs(const T* f, const std::vector<std::vector<double>>& neumann, const T* u,
                                double* b) const {
  const sparse::DiffusionProblem& p = problem_;
  const index_t n = g_.size();
  std::copy(f, f + n, b);
  for (std::size_t fi = 0; fi < bc_.faces().size(); ++fi) {
    const Face& face = bc_.faces()[fi];
    if (face.kind != BoundaryKind::neumann) continue;
    const double inv_h = 1 / g_.h(face.axis);
    for (index_t iq = 0; iq < face.nq; ++iq)
      for (index_t ip = 0; ip < face.np; ++ip) {
        const index_t node = face.node(g_, ip, iq);
        const double k = kappa_.empty() ? kappa0_ : kappa_[node];
        b[node] += neumann_flux_term(k, neumann[fi][ip + face.np * iq], inv_h);  // face array x-fastest
      }
  }
#pragma omp parallel for collapse(2) schedule(static)
  for (index_t k = 0; k < p.n[2]; ++k)
    for (index_t j = 0; j < p.n[1]; ++j)
      for (index_t i = 0; i < p.n[0]; ++i) {
        const index_t node = i + p.n[0] * (j + p.n[1] * k);  // x-fastest
        b[node] *= p.cell_weight(i, j, k);
      }
  const std::vector<double> ud(u, u + n);
  sparse::dirichlet_lift<double>(p, ud.data(), b);
  for (index_t o = 0; o < n; ++o)
    if (fixed_[o]) b[o] = 0;
}

template <class T>
sparse::Refinement PoissonSparse<T>::solve(const T* f, const std::vector<std::vector<double>>& neumann, T* u) {
  const index_t n = g_.size();
  const sparse::StencilMatrix<T> a = sparse::diffusion_matrix<T>(problem_);
  solver_->factor(a);
  std::vector<double> b(static_cast<std::size_t>(n));
  form_rhs(f, neumann, u, b.data());
  std::vector<T> x(b.begin(), b.end());
  const sparse::Refinement out = solver_->solve_refined(a, x.data(), 1, kTolerance);
  for (index_t o = 0; o < n; ++o)  // u keeps its Dirichlet values
    if (!fixed_[o]) u[o] = x[o];
  return out;
}

template class PoissonSparse<float>;
template class PoissonSparse<double>;

}  // namespace tridsim
