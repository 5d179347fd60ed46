#pragma once
// The coupled diffusion operator of the reaction-diffusion module (namespace tridsim::rd) and the
// rows of its implicit lines, written once for the CPU loops and the CUDA kernels. u is an
// x-fastest array of M-vectors, interleaved per node (u[o*M + s]); D is an M x M matrix, constant
// or given per node (D[(o*M + i)*M + j]), its value at a face the arithmetic mean of the two
// nodes'.
//   (A u)_i = sum_axes sum_j [D+_ij (u+_j - u_j) - D-_ij (u_j - u-_j)] / h^2
// on the vertex-centred grid, a missing neighbour mirrored (half cells at Neumann faces, whose
// flux data enter as a separate source). Row r of a line of I - w A - c J (w = theta dt / h^2,
// J the reaction Jacobian at the node, c = theta dt on the x lines) is the scalar diffusion row
// of core/diffusion.hpp per entry (coupled_diffusion.hpp), Dirichlet ends identity rows.
#include "core/coupled_diffusion.hpp"
#include "core/diffusion.hpp"
#include "core/host_device.hpp"
#include "core/types.hpp"

namespace tridsim::rd {

// The grid as the stencils see it (dense x-fastest node array).
template <class T>
struct Lattice {
  index_t n[3] = {1, 1, 1}, stride[3] = {1, 1, 1};
  T inv_h2[3] = {0, 0, 0};
  int dim = 1;
  bool dirichlet[3][2] = {};

  TRIDSIM_HOST_DEVICE void indices(index_t o, index_t* ijk) const {
    ijk[0] = o % n[0];
    ijk[1] = (o / n[0]) % n[1];
    ijk[2] = o / (n[0] * n[1]);
  }
  // Is node o on a Dirichlet face (its value fixed)?
  TRIDSIM_HOST_DEVICE bool fixed(index_t o) const {
    index_t ijk[3];
    indices(o, ijk);
    for (int a = 0; a < dim; ++a)
      if ((dirichlet[a][0] && ijk[a] == 0) || (dirichlet[a][1] && ijk[a] == n[a] - 1)) return true;
    return false;
  }
};

template <class T>
struct DiffusionMatrix {
  T d[kMaxSpecies * kMaxSpecies] = {};  // constant D, row-major, leading dimension m
  const T* node = nullptr;              // or D per node (interleaved), when it varies in space
  int m = 1;

  TRIDSIM_HOST_DEVICE T at(index_t o, int i, int j) const { return node ? node[(o * m + i) * m + j] : d[i * m + j]; }
  TRIDSIM_HOST_DEVICE T face(index_t o0, index_t o1, int i, int j) const {
    return node ? T(0.5) * (at(o0, i, j) + at(o1, i, j)) : d[i * m + j];
  }
};

// Component i of A u at node o.
template <class T>
TRIDSIM_HOST_DEVICE inline T coupled_operator(const Lattice<T>& g, const DiffusionMatrix<T>& D, const T* u, index_t o,
                                              int i) {
  index_t ijk[3];
  g.indices(o, ijk);
  const int m = D.m;
  T sum = 0;
  for (int a = 0; a < g.dim; ++a) {
    index_t sm, sp;
    mirrored_neighbours(ijk[a], g.n[a], g.stride[a], sm, sp);
    if (g.n[a] == 1) continue;
    T part = 0;
    for (int j = 0; j < m; ++j)
      part += diffusion_difference(D.face(o + sm, o, i, j), D.face(o, o + sp, i, j), u[(o + sm) * m + j], u[o * m + j],
                                   u[(o + sp) * m + j]);
    sum += g.inv_h2[a] * part;
  }
  return sum;
}

// The right-hand side of the first ADI sweep at node o, species s: dt (A u + b + R), 0 at the
// nodes of Dirichlet faces (b: the Neumann faces' source, R: the reaction of the linearly
// implicit scheme; either may be null).
template <class T>
struct RightHandSide {
  Lattice<T> g;
  DiffusionMatrix<T> D;
  const T* u;
  const T* b;
  const T* R;
  T dt;
  TRIDSIM_HOST_DEVICE T operator()(index_t o, int s) const {
    if (g.fixed(o)) return T(0);
    T v = coupled_operator(g, D, u, o, s);
    if (b) v += b[o * D.m + s];
    if (R) v += R[o * D.m + s];
    return dt * v;
  }
};

// Block rows of I - w A_axis - c J along one axis (a generator of the block-tridiagonal contract).
template <class T>
struct CoupledRows {
  DiffusionMatrix<T> D;
  index_t stride = 1, n = 1;  // along the lines
  T w = 0;
  bool dirichlet_lo = false, dirichlet_hi = false;
  const T* jacobian = nullptr;  // J per node (interleaved), or none
  T c = 0;

  TRIDSIM_HOST_DEVICE void entry(index_t o, index_t r, int i, int j, T& A, T& B, T& C) const {
    const T kl = r > 0 ? D.face(o - stride, o, i, j) : T(0);
    const T kr = r + 1 < n ? D.face(o, o + stride, i, j) : T(0);
    diffusion_row(r, n, w, dirichlet_lo, dirichlet_hi, kl, kr, A, B, C);
    if (i != j) B -= T(1);
    const bool identity = n == 1 || (r == 0 && dirichlet_lo) || (r == n - 1 && dirichlet_hi);
    if (jacobian && !identity) B -= c * jacobian[(o * D.m + i) * D.m + j];
  }
};

// The rows of the lines along `axis` for a step of size dt: w = dt/2 / h^2; with a Jacobian, the
// x lines carry all of dt/2 J (in the first factor: for the reactions alone the step is then the
// trapezoidal rule, A-stable; shared among the factors it would not be for stiff oscillations).
template <class T>
CoupledRows<T> coupled_rows(const Lattice<T>& g, const DiffusionMatrix<T>& D, int axis, double dt, const T* jacobian) {
  CoupledRows<T> r;
  r.D = D;
  r.stride = g.stride[axis];
  r.n = g.n[axis];
  r.w = T(0.5 * dt) * g.inv_h2[axis];
  r.dirichlet_lo = g.dirichlet[axis][0];
  r.dirichlet_hi = g.dirichlet[axis][1];
  r.jacobian = axis == 0 ? jacobian : nullptr;
  r.c = axis == 0 && jacobian ? T(0.5 * dt) : T(0);
  return r;
}

// The rows of lines split over ranks: those of the whole line (its length and the deck's end
// conditions, rows numbered as in the whole grid) for a generator that a rank's box gave.
template <class T>
CoupledRows<T> whole_line_rows(CoupledRows<T> r, index_t whole_n, bool dirichlet_lo, bool dirichlet_hi) {
  r.n = whole_n;
  r.dirichlet_lo = dirichlet_lo;
  r.dirichlet_hi = dirichlet_hi;
  return r;
}

}  // namespace tridsim::rd
