#pragma once
// Fast Poisson solver for any face mix (namespace tridsim::cr): -Lap_h u = b on the unknowns of a
// vertex-centred box whose axes each end Dirichlet, Neumann (mirrored ghost: the half-cell row) or
// periodic (both ends), 3-/5-/7-point differences. Unknowns are the nodes not on a Dirichlet face
// (the module moves Dirichlet values and Neumann fluxes into b), x-fastest.
// Method: along every axis but the last, the real transform that diagonalizes that axis's
// operator exactly (FFTW r2r: DST-I for Dirichlet-Dirichlet, DST-III/II for Dirichlet-Neumann,
// DCT-III/II for Neumann-Dirichlet, DCT-I for Neumann-Neumann, the real DFT (halfcomplex) for
// periodic); along the last axis one tridiagonal line per wavenumber, (T_h + lambda) with lambda
// the transformed axes' eigenvalue sum, solved by the batched Thomas solver (cyclic lines on a
// periodic axis); then the inverse transforms.
// The last axis may be stretched (node coordinates z_0 < ... < z_{n-1}, not periodic): its rows are
// then the node-centred second difference 2/(h_- + h_+) ((u_i - u_{i-1})/h_- + (u_i - u_{i+1})/h_+),
// h_- = z_i - z_{i-1}, h_+ = z_{i+1} - z_i (second order on smoothly stretched nodes), and at a
// Neumann end the half-cell row 2/h^2 (u_0 - u_1) with h the end cell's width; the trapezoid weights
// below are then the cells' widths (h_- + h_+)/2 (h/2 at a Neumann end).
// With no Dirichlet end (the singular case) b must be compatible: its weighted sum vanishes, the
// weights (trapezoid rule) 1/2 per Neumann end an unknown sits on and 1 elsewhere, the left null
// vector of the operator. The zero-wavenumber line then has its first unknown pinned to 0, and the
// solution returned has weighted mean 0.
// FFTW stays behind this interface: its headers are not needed to use it.
#include <array>
#include <memory>
#include <vector>

#include "core/boundary_kind.hpp"
#include "core/diffusion.hpp"
#include "core/host_device.hpp"
#include "core/types.hpp"

namespace tridsim::cr {

struct TransformPoissonBox {
  int dim = 2;
  std::array<index_t, 3> n{1, 1, 1};   // grid nodes per axis (the period's distinct nodes on a periodic axis)
  std::array<double, 3> h{1, 1, 1};    // spacing per axis
  std::array<std::array<BoundaryKind, 2>, 3> ends{};  // (axis, side): periodic on both sides or neither
  // The last axis's n node coordinates (Dirichlet end nodes included) where it is stretched; empty:
  // uniform, spacing h.
  std::vector<double> line_nodes;

  // Unknowns along `axis`: the nodes not on its Dirichlet ends; the first's grid index.
  index_t m(int axis) const {
    if (axis >= dim) return 1;
    return n[axis] - index_t(ends[axis][0] == BoundaryKind::dirichlet) - index_t(ends[axis][1] == BoundaryKind::dirichlet);
  }
  index_t first(int axis) const { return axis < dim && ends[axis][0] == BoundaryKind::dirichlet ? 1 : 0; }
  index_t size() const { return m(0) * m(1) * m(2); }
  bool neumann(int axis, int side) const { return axis < dim && ends[axis][side] == BoundaryKind::neumann; }
  bool periodic(int axis) const { return axis < dim && ends[axis][0] == BoundaryKind::periodic; }
  // No Dirichlet end at all: u is fixed only up to a constant.
  bool singular() const {
    for (int a = 0; a < dim; ++a)
      if (ends[a][0] == BoundaryKind::dirichlet || ends[a][1] == BoundaryKind::dirichlet) return false;
    return true;
  }
};

// Row r of the line operator -D2_h + shift on m unknowns: a Neumann end the half-cell row (core/
// diffusion.hpp's, its mirrored neighbour doubling the coupling), every other row an interior row
// (a Dirichlet neighbour's value is in b; on a periodic line A of row 0 and C of row m-1 wrap).
template <class T>
TRIDSIM_HOST_DEVICE inline void poisson_line_row(index_t r, index_t m, bool neumann_lo, bool neumann_hi, T inv_h2,
                                                 T shift, T& A, T& B, T& C) {
  if ((r == 0 && neumann_lo) || (r == m - 1 && neumann_hi)) diffusion_row(r, m, T(1), false, false, T(1), T(1), A, B, C);
  else interior_diffusion_row(T(1), T(1), T(1), A, B, C);
  A *= inv_h2;
  C *= inv_h2;
  B = (B - T(1)) * inv_h2 + shift;  // rows of I + (-D2): the identity taken off
}

// The rows of -D2_h (no shift) along the last axis of `box`, one per unknown (A below, B on, C above
// the diagonal; A of the first and C of the last row couple to a Dirichlet neighbour, whose value is
// in b, or wrap on a periodic axis): poisson_line_row's on a uniform axis, the stretched form above
// on a stretched one.
struct LineRows {
  std::vector<double> A, B, C;
};
LineRows line_axis_rows(const TransformPoissonBox& box);

template <class T>
class TransformPoisson {
 public:
  // measure: FFTW_MEASURE plans (at most 10 s of planning), else FFTW_ESTIMATE.
  explicit TransformPoisson(const TransformPoissonBox& box, bool measure = false);
  ~TransformPoisson();
  TransformPoisson(TransformPoisson&&) noexcept;
  TransformPoisson& operator=(TransformPoisson&&) noexcept;

  const TransformPoissonBox& box() const;
  // b (box().size() values, x-fastest) in, u out; in the singular case b must be compatible and u
  // comes back with weighted mean 0. Best on 64-byte aligned arrays (else one copy). Not for
  // concurrent calls on one solver.
  void solve(T* b) const;
  // The weighted mean of v over the unknowns (weights of the header comment), in double; of |v|
  // with `absolute`.
  double weighted_mean(const T* v, bool absolute = false) const;
  // v -= its weighted mean.
  void remove_mean(T* v) const;
  // r = b - (-Lap_h) u over the unknowns (r may alias b).
  void residual(const T* u, const T* b, T* r) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tridsim::cr
