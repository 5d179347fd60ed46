#pragma once
// Coupled (cross-) diffusion (namespace tridsim) of an M-vector u along one axis with a constant
// M x M diffusion matrix D: the rows of the implicit lines I - w D d^2/dx^2, written once for the
// CPU loops and the CUDA kernels (a block generator of the block-tridiagonal contract,
// solvers/block_tridiagonal/block_rows.hpp). Entry (i, j) of each block is the scalar diffusion row
// of core/diffusion.hpp with coefficient w D_ij, less the identity off the diagonal: interior rows
// -wD, I + 2wD, -wD; Neumann ends half cells (I + 2wD, -2wD); Dirichlet ends identity rows.
#include "core/diffusion.hpp"
#include "core/host_device.hpp"
#include "core/types.hpp"

namespace tridsim {

inline constexpr int kMaxSpecies = 8;

template <class T>
struct CoupledDiffusionRows {
  T wd[kMaxSpecies * kMaxSpecies] = {};  // w D, row-major with leading dimension m; w = theta dt / h^2
  int m = 1;
  index_t n = 1;  // line length
  bool dirichlet_lo = false, dirichlet_hi = false;

  TRIDSIM_HOST_DEVICE void entry(index_t, index_t r, int i, int j, T& A, T& B, T& C) const {
    const T k = wd[i * m + j];
    diffusion_row(r, n, T(1), dirichlet_lo, dirichlet_hi, k, k, A, B, C);
    if (i != j) B -= T(1);
  }
  // As UniformBlockMatrix's row source (every line has the same rows).
  void operator()(index_t r, int i, int j, T& A, T& B, T& C) const { entry(0, r, i, j, A, B, C); }
};

}  // namespace tridsim
