#pragma once
// Line matrices I - w A_axis of the glioma diffusion operator (namespace tridsim::glioma),
// generated from precomputed face diffusivities: F[o] is D at the face between node o and its
// neighbour o + stride along the axis (the harmonic mean of theirs; 0 at a line's last node). The
// rows are diffusion_row's with no-flux (Neumann, half-cell) ends, as the GPU's DiffusionRows
// generates them from D, but the harmonic means are not recomputed in every sweep (two divisions
// per element fewer). A coefficient source for tridiag::solve_lines (load_line / load_row, see
// coefficients.hpp).
#include "core/diffusion.hpp"
#include "core/types.hpp"

namespace tridsim::glioma {

template <class T>
struct FaceLines {
  const T* F;      // face diffusivities along the axis, same layout as the right-hand side
  T w;             // dt/2 / h^2
  index_t stride;  // element stride along the line axis
  index_t n;       // line length (>= 2)

  // Row r from the faces left and right of it (core/diffusion.hpp, no-flux ends).
  void row(index_t r, T kl, T kr, T& A, T& B, T& C) const { diffusion_row(r, n, w, false, false, kl, kr, A, B, C); }
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

}  // namespace tridsim::glioma
