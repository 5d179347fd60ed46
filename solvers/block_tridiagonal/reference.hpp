#pragma once
// The reference block Thomas algorithm (Laszlo, Giles & Appleyard 2014, Algorithm 12), kept
// simple and obviously right; every optimized CPU and CUDA variant is tested against it
// (namespace tridsim::blocktri).
//   forward:  P_r = B_r - A_r C*_{r-1},  C*_r = P_r^{-1} C_r,  d*_r = P_r^{-1} (d_r - A_r d*_{r-1})
//   backward: x_{n-1} = d*_{n-1},  x_r = d*_r - C*_r x_{r+1}
// block_thomas solves one system for K right-hand-side columns at once (the distributed solver's
// segments need 2M + 1); reference_solve_lines runs it line by line through the contract of
// block_rows.hpp (any block source, CPU load/store).
#include <vector>

#include "solvers/block_tridiagonal/block_rows.hpp"
#include "solvers/block_tridiagonal/dense_block.hpp"

namespace tridsim::blocktri {

// Node offset of row r of line q of L (lines ordered with the lower remaining axis fastest).
inline index_t line_offset(const LineSet& L, index_t q, index_t r) {
  const int a = L.axis, o1 = a == 0 ? 1 : 0, o2 = a == 2 ? 1 : 2;
  return (q % L.n[o1]) * L.stride[o1] + (q / L.n[o1]) * L.stride[o2] + r * L.stride[a];
}

// Work space of block_thomas for blocks of size m, K columns and n rows.
template <class T>
struct BlockThomasWork {
  std::vector<T> cs, A, B, C, R;
  BlockThomasWork(int m, int K, index_t n)
      : cs(std::size_t(n) * m * m), A(std::size_t(m) * m), B(A.size()), C(A.size()), R(std::size_t(m) * (m + K)) {}
};

// Overwrites X (n block rows of m x K: X[(r*m + i)*K + j]) with the solution of the n-row block
// system; block(r, A, B, C) fills row r's blocks (m x m, row-major; A_0 and C_{n-1} are not used).
// cs holds n m x m blocks (C*_r); A, B, C (m*m) and R (m*(m + K)) are work space. Returns the
// column of a zero pivot (X is then not the solution), else -1. Host and device: X and cs are T*
// or Strided<T> (a GPU thread's scratch interleaved by line).
template <class T, class BlockRow, class PX, class PC>
TRIDSIM_HOST_DEVICE int block_thomas_in(int m, index_t n, int K, const BlockRow& block, PX X, PC cs, T* A, T* B, T* C,
                                        T* R, Pivoting pivoting) {
  const index_t mm = index_t(m) * m;
  const int k = m + K;  // R = [C_r | X_r - A_r X*_{r-1}]
  for (index_t r = 0; r < n; ++r) {
    block(r, A, B, C);
    const PX x = X + r * m * K;
    if (r > 0) {
      dense_minus_product(m, m, A, cs + (r - 1) * mm, B);
      dense_minus_product(m, K, A, x - m * K, x);
    }
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < m; ++j) R[i * k + j] = r + 1 < n ? C[i * m + j] : T(0);
      for (int j = 0; j < K; ++j) R[i * k + m + j] = x[i * K + j];
    }
    const int col = dense_eliminate<T>(m, B, k, R, pivoting);
    if (col >= 0) return col;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < m; ++j) cs[r * mm + i * m + j] = R[i * k + j];
      for (int j = 0; j < K; ++j) x[i * K + j] = R[i * k + m + j];
    }
  }
  for (index_t r = n - 2; r >= 0; --r) dense_minus_product(m, K, cs + r * mm, X + (r + 1) * m * K, X + r * m * K);
  return -1;
}

// block_thomas_in on the host with its work space; throws SingularMatrix naming `where`.
template <class T, class BlockRow>
void block_thomas(int m, index_t n, int K, const BlockRow& block, T* X, BlockThomasWork<T>& w, Pivoting pivoting,
                  const char* where) {
  const int col = block_thomas_in<T>(m, n, K, block, X, w.cs.data(), w.A.data(), w.B.data(), w.C.data(), w.R.data(), pivoting);
  if (col >= 0) throw singular_pivot_block(where, col, pivoting);
}

template <class T, class Blocks, class Load, class Store>
void reference_solve_lines(int m, const LineSet& L, const Blocks& blocks, const Load& load, const Store& store,
                           Pivoting pivoting = Pivoting::partial) {
  const index_t n = L.length(), lines = L.count();
  if (n == 0 || lines == 0) return;
  BlockThomasWork<T> work(m, 1, n);
  std::vector<T> X(std::size_t(n) * m);
  for (index_t q = 0; q < lines; ++q) {
    for (index_t r = 0; r < n; ++r) load(line_offset(L, q, r), 1, X.data() + r * m);
    auto row = [&](index_t r, T* A, T* B, T* C) {
      const index_t o = line_offset(L, q, r);
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) blocks.entry(o, r, i, j, A[i * m + j], B[i * m + j], C[i * m + j]);
    };
    block_thomas(m, n, 1, row, X.data(), work, pivoting, "block Thomas (reference)");
    for (index_t r = 0; r < n; ++r) store(line_offset(L, q, r), 1, X.data() + r * m);
  }
}

}  // namespace tridsim::blocktri
