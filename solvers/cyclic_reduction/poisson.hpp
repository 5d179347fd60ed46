#pragma once
// Fast direct solvers (namespace tridsim::cr) for (-Lap_h + sigma) u = f on a box of interior nodes
// with zero Dirichlet values outside (3-/5-/7-point stencil, x-fastest arrays, m[a] nodes and
// spacing h[a] per axis), one interface over the methods:
//   bcr  - radix-2 block cyclic reduction (bcr.hpp; scalar Toeplitz CR in 1D),
//   bcr4 - radix-4 block cyclic reduction,
//   fft  - the sine-transform baseline (FFTW),
//   auto - fft: on this project's loaded 2-core machine it was the fastest or within noise of bcr4
//          once bcr4 refines (docs/performance.md); revisit with quiet-machine figures.
// A module moves its Dirichlet data into f before calling solve (see physics/poisson).
#include <array>
#include <cmath>
#include <optional>
#include <string>

#include "core/aligned.hpp"
#include "core/errors.hpp"
#include "core/types.hpp"
#include "solvers/cyclic_reduction/bcr.hpp"
#include "solvers/cyclic_reduction/fft_poisson.hpp"
#include "solvers/cyclic_reduction/poisson_box.hpp"
#include "solvers/cyclic_reduction/poisson_stencil.hpp"
#include "solvers/cyclic_reduction/toeplitz_cr.hpp"

namespace tridsim::cr {

// r = f - (-Lap_h + sigma) u on the box (zero values outside); returns nothing, r may alias f.
template <class T>
void poisson_residual(const PoissonBox& b, const T* u, const T* f, T* r) {
  const index_t mx = b.m[0], my = b.dim > 1 ? b.m[1] : 1, mz = b.dim > 2 ? b.m[2] : 1;
  const double ix = 1 / (b.h[0] * b.h[0]), iy = b.dim > 1 ? 1 / (b.h[1] * b.h[1]) : 0,
               iz = b.dim > 2 ? 1 / (b.h[2] * b.h[2]) : 0;
#pragma omp parallel for collapse(2) schedule(static)
  for (index_t k = 0; k < mz; ++k)
    for (index_t j = 0; j < my; ++j)
      for (index_t i = 0; i < mx; ++i) {
        const index_t o = i + mx * (j + my * k);  // x-fastest
        r[o] = T(double(f[o]) - apply_poisson(u, i, j, k, mx, my, mz, ix, iy, iz, b.sigma));
      }
}

template <class T>
class PoissonSolver {
 public:
  // refine: one step of iterative refinement after the solve (u += A^{-1}(f - A u)). BCR's
  // rounding error grows faster with n than the sine transforms' (residual 1.5e-12 at 3000 x 2501
  // against 4e-13), so `automatic` refines bcr/bcr4 in 2D from 2048^2 nodes on, which brings
  // the residual to the rounding floor of the transforms at twice the cost.
  PoissonSolver(const PoissonBox& box, PoissonMethod method, bool fft_measure = false,
                Refine refine = Refine::automatic)
      : box_(box), method_(method) {
    if (box.dim < 1 || box.dim > 3) throw Error("Poisson solver: dim must be 1, 2 or 3");
    for (int a = box.dim; a < 3; ++a) box_.m[a] = 1;
    if (!(box.sigma >= 0)) throw Error("Poisson solver: the shift sigma must be >= 0");
    if (method_ == PoissonMethod::automatic) method_ = PoissonMethod::fft;
    if (method_ == PoissonMethod::fft) fft_.emplace(box_.dim, box_.m, box_.h, box_.sigma, fft_measure);
    refine_ = refine == Refine::on || (refine == Refine::automatic && method_ != PoissonMethod::fft && box_.dim == 2 &&
                                       box_.size() >= index_t(2048) * 2048);
  }
  PoissonMethod method() const { return method_; }
  const PoissonBox& box() const { return box_; }
  bool refines() const { return refine_; }

  // f (m[0]*m[1]*m[2] values) in, u out. Not for concurrent calls on one solver.
  void solve(T* f) const {
    if (!refine_) return solve_once(f);
    const index_t n = box_.size();
    rhs_.resize(n);  // kept between solves: fresh pages of a large array cost a first touch each time
    r_.resize(n);
    T* rhs = rhs_.data();
    T* r = r_.data();
#pragma omp parallel for simd
    for (index_t i = 0; i < n; ++i) rhs[i] = f[i];
    solve_once(f);
    poisson_residual<T>(box_, f, rhs, r);
    solve_once(r);
#pragma omp parallel for simd
    for (index_t i = 0; i < n; ++i) f[i] += r[i];
  }

 private:
  void solve_once(T* f) const {
    if (box_.size() == 0) return;
    if (method_ == PoissonMethod::fft) return fft_->solve(f);
    const int radix = method_ == PoissonMethod::bcr4 ? 4 : 2;
    const auto& m = box_.m;
    const auto& h = box_.h;
    if (box_.dim == 1) {
      const double h2 = h[0] * h[0];
      for (index_t i = 0; i < m[0]; ++i) f[i] *= T(h2);
      AlignedVector<T> work(4 * m[0] + 4);
      toeplitz_cr_solve<T>(m[0], T(1), T(2 + h2 * box_.sigma), f, work.data());
    } else if (box_.dim == 2) {
      helmholtz_2d<T>(m[0], m[1], h[0], h[1], box_.sigma, f, radix);
    } else {
      helmholtz_3d<T>(m[0], m[1], m[2], h[0], h[1], h[2], box_.sigma, f, radix);
    }
  }

  PoissonBox box_;
  PoissonMethod method_;
  bool refine_ = false;
  std::optional<FftPoisson<T>> fft_;
  mutable AlignedVector<T> rhs_, r_;  // refinement scratch (so one solver serves one thread at a time)
};

}  // namespace tridsim::cr
