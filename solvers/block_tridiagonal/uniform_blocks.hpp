#pragma once
// One block-tridiagonal matrix shared by every line (namespace tridsim::blocktri)
// (constant-coefficient coupled diffusion), factored once on the host, so that a solve streams only
// the right-hand side and the solution:
//   forward   d*_r = Pinv_r d_r - G_r d*_{r-1}      (Pinv_r = P_r^{-1}, G_r = P_r^{-1} A_r)
//   backward  x_r  = d*_r - Cs_r x_{r+1}            (Cs_r = P_r^{-1} C_r)
// with P_r = B_r - A_r Cs_{r-1} as in the reference block Thomas. Per row three M x M blocks,
// row-major, rows one after the other: pinv()[r*M*M + i*M + j], likewise g() and cs().
#include <vector>

#include "solvers/block_tridiagonal/block_rows.hpp"
#include "solvers/block_tridiagonal/dense_block.hpp"

namespace tridsim::blocktri {

template <class T>
class UniformBlockMatrix {
 public:
  UniformBlockMatrix() = default;
  // rows(r, i, j, a, b, c): entry (i, j) of A_r, B_r, C_r for r = 0..n-1 (A_0 and C_{n-1} ignored).
  // The factorization runs in double whatever T is.
  template <class Rows>
  UniformBlockMatrix(int m, index_t n, const Rows& rows, Pivoting pivoting = Pivoting::partial) : m_(m), n_(n) {
    const std::size_t mm = std::size_t(m) * m;
    pinv_.resize(n * mm);
    g_.resize(n * mm);
    cs_.resize(n * mm);
    std::vector<double> A(mm), B(mm), C(mm), P(mm), R(mm * 3), csprev(mm);
    const int k = 3 * m;  // R = [I | A_r | C_r] -> [Pinv | G | Cs]
    for (index_t r = 0; r < n; ++r) {
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) {
          T a, b, c;
          rows(r, i, j, a, b, c);
          A[i * m + j] = r > 0 ? double(a) : 0.0;
          B[i * m + j] = double(b);
          C[i * m + j] = r + 1 < n ? double(c) : 0.0;
        }
      P = B;
      if (r > 0) dense_minus_product(m, m, A.data(), csprev.data(), P.data());
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) {
          R[i * k + j] = i == j ? 1.0 : 0.0;
          R[i * k + m + j] = A[i * m + j];
          R[i * k + 2 * m + j] = C[i * m + j];
        }
      dense_solve(m, P.data(), k, R.data(), pivoting, "block Thomas (uniform matrix)");
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) {
          pinv_[r * mm + i * m + j] = T(R[i * k + j]);
          g_[r * mm + i * m + j] = T(R[i * k + m + j]);
          cs_[r * mm + i * m + j] = T(R[i * k + 2 * m + j]);
          csprev[i * m + j] = R[i * k + 2 * m + j];
        }
    }
  }
  int m() const { return m_; }
  index_t size() const { return n_; }  // block rows
  const T* pinv() const { return pinv_.data(); }
  const T* g() const { return g_.data(); }
  const T* cs() const { return cs_.data(); }

 private:
  int m_ = 0;
  index_t n_ = 0;
  std::vector<T> pinv_, g_, cs_;
};

}  // namespace tridsim::blocktri
