#pragma once
// The face diffusivities of the glioma operator and the line matrices I - w A_axis built from them
// (namespace tridsim::glioma). D at a face between two nodes is the harmonic mean of theirs
// (face_mean, core/diffusion.hpp: 0 next to a node with D = 0, exactly symmetric, so a face has
// one value whichever node asks), stored: F_a[o], the face between node o and o + stride_a (0 at
// a line's last node), computed once (FaceOf), so the sweeps do no divisions for them.
// faces(a, o, s) is D at the face between o and its neighbour o + s along axis a (s = +-stride_a);
// rows(a, n, w) the row source of lines of n rows along axis a with no-flux (Neumann, half-cell)
// ends, for the solvers of the faces' backend.
#include "core/diffusion.hpp"
#include "core/host_device.hpp"
#include "core/types.hpp"
#include "solvers/exec/points.hpp"

namespace tridsim::glioma {

// Rows from stored faces, for tridiag::solve_lines (load_line / load_row, see coefficients.hpp) and
// the GPU solvers (stage / row):
// diffusion_row's rows, as DiffusionRows generates them from D, without the harmonic means.
template <class T>
struct FaceLines {
  const T* F;      // face diffusivities along the axis, same layout as the right-hand side
  T w;             // dt/2 / h^2
  index_t stride;  // element stride along the line axis
  index_t n;       // line length (>= 2)

  // Row r from the faces left and right of it (core/diffusion.hpp, no-flux ends).
  TRIDSIM_HOST_DEVICE void row(index_t r, T kl, T kr, T& A, T& B, T& C) const {
    diffusion_row(r, n, w, false, false, kl, kr, A, B, C);
  }
  // As a generator of the GPU solvers (line_solve.cuh): the face right of row r, staged.
  TRIDSIM_HOST_DEVICE T stage(index_t o, index_t r) const { return r + 1 < n ? F[o] : T(0); }
  // Rows 0..len-1 of the x-line starting at off.
  void load_line(index_t off, index_t len, T* A, T* B, T* C) const {
    const T* f = F + off;
#pragma omp simd
    for (index_t r = 0; r < len; ++r) row(r, r > 0 ? f[r - 1] : T(0), f[r], A[r], B[r], C[r]);
  }
  // Row r of `count` lines adjacent in x, the first at off.
  void load_row(index_t off, index_t count, index_t r, T* A, T* B, T* C) const {
    const T* f = F + off;
    const T* fl = r > 0 ? f - stride : f;
#pragma omp simd
    for (index_t l = 0; l < count; ++l) row(r, r > 0 ? fl[l] : T(0), f[l], A[l], B[l], C[l]);
  }
};

template <class T>
struct StoredFaces {
  const T* F[3];
  index_t stride[3];
  // (the face left of o is F_a[o - stride_a], the one right of it F_a[o])
  TRIDSIM_HOST_DEVICE T operator()(int a, index_t o, index_t s) const { return F[a][o + (s < 0 ? s : 0)]; }
  FaceLines<T> rows(int a, index_t n, T w) const { return {F[a], w, stride[a], n}; }
};

// Fills StoredFaces' arrays from D (a point functor of solvers/exec/points.hpp).
template <class T>
struct FaceOf {
  const T* D;
  T* F[3];
  template <class Dim>
  TRIDSIM_HOST_DEVICE void operator()(index_t o, const exec::Neighbours& nb, Dim dim) const {
    for (int a = 0; a < 3 && a < int(dim); ++a)
      F[a][o] = nb.plus[a] > 0 ? face_mean<FaceMean::harmonic>(D[o], D[o + nb.plus[a]]) : T(0);
  }
};

}  // namespace tridsim::glioma
