#pragma once
// The reference block Thomas algorithm (Laszlo, Giles & Appleyard 2014, Algorithm 12), kept
// simple and obviously right; every optimized CPU and CUDA variant is tested against it
// (namespace tridsim::blocktri).
//   forward:  P_r = B_r - A_r C*_{r-1},  C*_r = P_r^{-1} C_r,  d*_r = P_r^{-1} (d_r - A_r d*_{r-1})
//   backward: x_{n-1} = d*_{n-1},  x_r = d*_r - C*_r x_{r+1}
// One line at a time through the contract of block_rows.hpp (any block source, CPU load/store).
#include <vector>

#include "solvers/block_tridiagonal/block_rows.hpp"
#include "solvers/block_tridiagonal/dense_block.hpp"

namespace tridsim::blocktri {

// Node offset of row r of line q of L (lines ordered with the lower remaining axis fastest).
inline index_t line_offset(const LineSet& L, index_t q, index_t r) {
  const int a = L.axis, o1 = a == 0 ? 1 : 0, o2 = a == 2 ? 1 : 2;
  return (q % L.n[o1]) * L.stride[o1] + (q / L.n[o1]) * L.stride[o2] + r * L.stride[a];
}

template <class T, class Blocks, class Load, class Store>
void reference_solve_lines(int m, const LineSet& L, const Blocks& blocks, const Load& load, const Store& store,
                           Pivoting pivoting = Pivoting::partial) {
  const index_t n = L.length(), lines = L.count();
  if (n == 0 || lines == 0) return;
  const std::size_t mm = std::size_t(m) * m;
  std::vector<T> cs(n * mm), ds(n * m), A(mm), B(mm), C(mm), P(mm), R(mm + m), x(m);
  for (index_t q = 0; q < lines; ++q) {
    for (index_t r = 0; r < n; ++r) {
      const index_t o = line_offset(L, q, r);
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) blocks.entry(o, r, i, j, A[i * m + j], B[i * m + j], C[i * m + j]);
      load(o, 1, x.data());
      // P = B_r - A_r C*_{r-1};  R = [C_r | d_r - A_r d*_{r-1}].
      const int k = m + 1;
      P = B;
      if (r > 0) dense_minus_product(m, m, A.data(), cs.data() + (r - 1) * mm, P.data());
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < m; ++j) R[i * k + j] = r + 1 < n ? C[i * m + j] : T(0);
        T s = x[i];
        if (r > 0)
          for (int j = 0; j < m; ++j) s -= A[i * m + j] * ds[(r - 1) * m + j];
        R[i * k + m] = s;
      }
      dense_solve(m, P.data(), k, R.data(), pivoting, "block Thomas (reference)");
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < m; ++j) cs[r * mm + i * m + j] = R[i * k + j];
        ds[r * m + i] = R[i * k + m];
      }
    }
    for (index_t r = n - 1; r >= 0; --r) {
      for (int i = 0; i < m; ++i) {
        T s = ds[r * m + i];
        if (r + 1 < n)
          for (int j = 0; j < m; ++j) s -= cs[r * mm + i * m + j] * ds[(r + 1) * m + j];
        ds[r * m + i] = s;  // now x_r
        x[i] = s;
      }
      store(line_offset(L, q, r), 1, x.data());
    }
  }
}

}  // namespace tridsim::blocktri
