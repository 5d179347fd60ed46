#pragma once
// ReactionDiffusionModule<T>::step_cpu (namespace tridsim), apart from the rest of the module: its block line solves
// (every block size, row source and load/store pair) are most of the module's compile time, so
// reaction_diffusion_step_float.cpp and _double.cpp compile it once each, side by side.
#include "core/domain.hpp"
#include "physics/reaction_diffusion/reaction_diffusion.hpp"
#include "solvers/block_tridiagonal/batched.hpp"
#include "solvers/block_tridiagonal/distributed.hpp"

namespace tridsim {

// One step of either scheme: the right-hand side dt (A u + b [+ R]) formed in the x-sweep's load
// (zero at Dirichlet nodes), the increment carried between sweeps in work_, u += du in the last
// sweep's store; douglas wraps this in two half steps of reaction.
template <class T>
void ReactionDiffusionModule<T>::step_cpu(double t, double dt) {
  const bool li = scheme_ == Scheme::linearly_implicit;
  if (li) linearize(t + 0.5 * dt);
  else react(t, 0.5 * dt);
  const int m = m_, d = g_.dim;
  T* u = u_.data();
  T* w = work_.data();
  if (domain_) domain_->exchange_halos(u, m);  // the operator reads the neighbours' nodes
  const rd::RightHandSide<T> f{lattice_, D_, u, boundary_source_.empty() ? nullptr : boundary_source_.data(),
                               li ? R_.data() : nullptr, T(dt)};
  auto rhs = [&](index_t o, index_t count, T* out) {
    for (index_t l = 0; l < count; ++l)
      for (int s = 0; s < m; ++s) out[s * count + l] = f(o + l, s);
  };
  const blocktri::InterleavedAccess<T> work{w, m};
  auto load_work = [&](index_t o, index_t count, T* out) { work.load(o, count, out); };
  auto store_work = [&](index_t o, index_t count, const T* in) { work.store(o, count, in); };
  auto update = [&](index_t o, index_t count, const T* in) {
    for (int s = 0; s < m; ++s)
      for (index_t l = 0; l < count; ++l) u[(o + l) * m + s] += in[s * count + l];
  };
  const bool uniform = !li && D_.node == nullptr;
  if (uniform) factor_uniform(dt);
  auto sweep = [&](int axis, const auto& load, const auto& store) {
    const tridiag::LineSet L = tridiag::LineSet::dense(g_, axis);
    if (split(axis)) {
      const AxisSplit& part = domain_->layout().axes[std::size_t(axis)];
      blocktri::solve_split_lines<T>(m, L, tridiag::segment_of(part), rows(axis, dt), load,
                                     store, domain_->line_comm(axis), pivoting_);
    } else if (uniform) {
      blocktri::solve_lines<T>(m, L, uniform_[std::size_t(axis)], load, store, pivoting_);
    } else {
      blocktri::solve_lines<T>(m, L, rows(axis, dt), load, store, pivoting_);
    }
  };
  if (d == 1) {
    sweep(0, rhs, update);
  } else {
    sweep(0, rhs, store_work);
    for (int a = 1; a < d; ++a) {
      if (a < d - 1) sweep(a, load_work, store_work);
      else sweep(a, load_work, update);
    }
  }
  if (!li) react(t + 0.5 * dt, 0.5 * dt);
}

}  // namespace tridsim
