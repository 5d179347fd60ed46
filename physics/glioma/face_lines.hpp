#pragma once
// Line matrices I - w A_axis of the glioma diffusion operator, generated from precomputed face
// diffusivities: F[o] is D at the face between node o and its neighbour o + stride along the
// axis (the harmonic mean of theirs; 0 at a line's last node). The rows are those of
// tridiag::DiffusionCoeffs<T, FaceMean::harmonic> with no-flux (Neumann, half-cell) ends, but
// the harmonic means are not recomputed in every sweep (two divisions per element fewer).
// A coefficient source for tridiag::solve_lines (load_line / load_row, see coefficients.hpp).
#include "core/types.hpp"

namespace tridsim::glioma {

template <class T>
struct FaceLines {
  const T* F;      // face diffusivities along the axis, same layout as the right-hand side
  T w;             // dt/2 / h^2
  index_t stride;  // element stride along the line axis
  index_t n;       // line length (>= 2)

  // Rows 0..len-1 of the x-line starting at off.
  void load_line(index_t off, index_t len, T* A, T* B, T* C) const {
    const T* f = F + off;
    A[0] = 0;
    B[0] = 1 + 2 * w * f[0];
    C[0] = -2 * w * f[0];
#pragma omp simd
    for (index_t r = 1; r < len - 1; ++r) {
      const T kl = f[r - 1], kr = f[r];
      A[r] = -w * kl;
      C[r] = -w * kr;
      B[r] = 1 + w * (kl + kr);
    }
    const T kl = f[len - 2];
    A[len - 1] = -2 * w * kl;
    B[len - 1] = 1 + 2 * w * kl;
    C[len - 1] = 0;
  }
  // Row r of `count` lines adjacent in x, the first at off.
  void load_row(index_t off, index_t count, index_t r, T* A, T* B, T* C) const {
    const T* f = F + off;
    const T* fl = f - stride;
    if (r == 0) {
#pragma omp simd
      for (index_t l = 0; l < count; ++l) {
        A[l] = 0;
        B[l] = 1 + 2 * w * f[l];
        C[l] = -2 * w * f[l];
      }
    } else if (r == n - 1) {
#pragma omp simd
      for (index_t l = 0; l < count; ++l) {
        A[l] = -2 * w * fl[l];
        B[l] = 1 + 2 * w * fl[l];
        C[l] = 0;
      }
    } else {
#pragma omp simd
      for (index_t l = 0; l < count; ++l) {
        A[l] = -w * fl[l];
        C[l] = -w * f[l];
        B[l] = 1 + w * (fl[l] + f[l]);
      }
    }
  }
};

}  // namespace tridsim::glioma
