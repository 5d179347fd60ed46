#pragma once
// Where the tridiagonal coefficients of a batch of lines come from (namespace tridsim::tridiag).
// Row r of a line reads
//   a_r x_{r-1} + b_r x_r + c_r x_{r+1} = d_r   (a_0 and c_{n-1} are ignored).
// Three sources:
//  - UniformMatrix: one matrix shared by every line (constant-coefficient stencils), factored
//    once, so a solve streams only the right-hand side and the solution;
//  - ArrayCoeffs: a, b, c stored as arrays with the same layout as the right-hand side;
//  - DiffusionCoeffs: rows of I - w d/dx(kappa d/dx) generated on the fly from a kappa array.
// Each non-uniform source fills coefficients for a run of memory-contiguous elements:
//   load_line(offset, n, a, b, c)         rows 0..n-1 of the x-line starting at offset;
//   load_row(offset, count, row, a, b, c) row `row` of `count` lines adjacent in x.
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/aligned.hpp"
#include "core/boundary_kind.hpp"
#include "core/diffusion.hpp"
#include "core/errors.hpp"
#include "core/types.hpp"

namespace tridsim::tridiag {

template <class T>
class UniformMatrix {
 public:
  UniformMatrix() = default;
  // Factor the n x n matrix (a, b, c) once: inverse pivots m and modified upper diagonal cp.
  UniformMatrix(std::vector<T> a, const std::vector<T>& b, const std::vector<T>& c)
      : a_(a.begin(), a.end()), m_(a.size()), cp_(a.size()) {
    const index_t n = index_t(a.size());
    if (b.size() != a.size() || c.size() != a.size())
      throw Error("tridiagonal matrix: a, b and c must have the same length");
    T prev_cp = 0;
    for (index_t i = 0; i < n; ++i) {
      const T ai = i > 0 ? a_[i] : T(0);
      const T pivot = b[i] - ai * prev_cp;
      if (pivot == T(0)) throw SingularMatrix("tridiagonal matrix is singular (zero pivot in row " + std::to_string(i) + ")");
      m_[i] = T(1) / pivot;
      cp_[i] = i + 1 < n ? c[i] * m_[i] : T(0);
      prev_cp = cp_[i];
    }
    if (n > 0) a_[0] = 0;
  }
  index_t size() const { return index_t(a_.size()); }
  const T* a() const { return a_.data(); }
  const T* m() const { return m_.data(); }
  const T* cp() const { return cp_.data(); }

 private:
  AlignedVector<T> a_, m_, cp_;
};

template <class T>
struct ArrayCoeffs {
  const T* a;
  const T* b;
  const T* c;
  void load_line(index_t off, index_t n, T* A, T* B, T* C) const {
    std::memcpy(A, a + off, sizeof(T) * n);
    std::memcpy(B, b + off, sizeof(T) * n);
    std::memcpy(C, c + off, sizeof(T) * n);
  }
  void load_row(index_t off, index_t count, index_t, T* A, T* B, T* C) const { load_line(off, count, A, B, C); }
};

using tridsim::FaceMean;

// Rows of I - w d/dx(kappa d/dx) from kappa (core/diffusion.hpp: the face means and rows the
// GPU's DiffusionRows use too). With lo and hi periodic, the rows of a periodic line, a_0 and
// c_{n-1} the couplings across the face between the last node and the first (cyclic.hpp).
template <class T, FaceMean Mean = FaceMean::arithmetic>
struct DiffusionCoeffs {
  const T* kappa;  // node values, same layout as the right-hand side
  T w;             // theta * dt / h^2
  index_t stride;  // element stride along the line axis
  index_t n;       // line length
  BoundaryKind lo, hi;

  static T face(T k0, T k1) { return face_mean<Mean>(k0, k1); }
  bool periodic() const { return lo == BoundaryKind::periodic; }
  void row(index_t r, T kl, T kr, T& A, T& B, T& C) const {
    if (periodic()) interior_diffusion_row(w, kl, kr, A, B, C);
    else diffusion_row(r, n, w, lo == BoundaryKind::dirichlet, hi == BoundaryKind::dirichlet, kl, kr, A, B, C);
  }
  void load_line(index_t off, index_t len, T* A, T* B, T* C) const {
    const T* k = kappa + off;  // stride along an x-line is 1
    const T wrap = periodic() ? face(k[len - 1], k[0]) : T(0);
#pragma omp simd
    for (index_t r = 0; r < len; ++r)
      row(r, r > 0 ? face(k[r - 1], k[r]) : wrap, r + 1 < len ? face(k[r], k[r + 1]) : wrap, A[r], B[r], C[r]);
  }
  void load_row(index_t off, index_t count, index_t r, T* A, T* B, T* C) const {
    const T* k = kappa + off;
    const index_t end = periodic() ? (n - 1) * stride : 0;  // the neighbour across the ends
    const index_t sl = r > 0 ? -stride : end, sr = r + 1 < n ? stride : -end;
#pragma omp simd
    for (index_t l = 0; l < count; ++l) row(r, face(k[l + sl], k[l]), face(k[l], k[l + sr]), A[l], B[l], C[l]);
  }
};

// The constant-coefficient rows of DiffusionCoeffs by row index alone, unfactored: the rows of a
// line split over ranks (solvers/tridiagonal/distributed.hpp, cuda/distributed_cuda.cuh), where
// each rank needs its own. load_row for the CPU solvers; stage and row, a generator, for the GPU's.
template <class T>
struct ConstantDiffusionRows {
  T w_kappa;  // w * kappa
  index_t n;  // line length
  BoundaryKind lo, hi;
  TRIDSIM_HOST_DEVICE T stage(index_t, index_t) const { return T(1); }
  TRIDSIM_HOST_DEVICE void row(index_t r, T, T, T& a, T& b, T& c) const {
    diffusion_row(r, n, w_kappa, lo == BoundaryKind::dirichlet, hi == BoundaryKind::dirichlet, T(1), T(1), a, b, c);
  }
  void load_row(index_t, index_t count, index_t r, T* A, T* B, T* C) const {
    T a, b, c;
    row(r, T(1), T(1), a, b, c);
    std::fill(A, A + count, a);
    std::fill(B, B + count, b);
    std::fill(C, C + count, c);
  }
};

// Row sources whose rows are the same for every line: a split solve factors its segment once
// (FactoredSegment) and each line costs only its right-hand side.
template <class Rows>
inline constexpr bool rows_shared_by_lines_v = false;
template <class T>
inline constexpr bool rows_shared_by_lines_v<ConstantDiffusionRows<T>> = true;

// The constant-coefficient case of DiffusionCoeffs as one factored matrix.
template <class T>
UniformMatrix<T> uniform_diffusion_matrix(index_t n, T w_kappa, BoundaryKind lo, BoundaryKind hi) {
  std::vector<T> a(n), b(n), c(n);
  std::vector<T> ones(n, T(1));
  DiffusionCoeffs<T> s{ones.data(), w_kappa, 1, n, lo, hi};
  s.load_line(0, n, a.data(), b.data(), c.data());
  return UniformMatrix<T>(std::move(a), b, c);
}

}  // namespace tridsim::tridiag
