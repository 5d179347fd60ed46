#pragma once
// Small dense M x M blocks (row-major, runtime m; namespace tridsim::blocktri) for the reference
// block Thomas and the host-side factorizations: Gaussian elimination of P X = R with k right-hand
// columns, with or without partial pivoting (row exchanges inside the block).
#include <cmath>
#include <string>
#include <utility>

#include "core/errors.hpp"
#include "solvers/block_tridiagonal/block_rows.hpp"

namespace tridsim::blocktri {

// Overwrites R (m x k, row-major, leading dimension k) with P^{-1} R; P (m x m) is destroyed.
// Throws Error naming `where` if a pivot is zero (the block is singular, or needs pivoting when
// `pivoting` is none).
template <class T>
void dense_solve(int m, T* P, int k, T* R, Pivoting pivoting, const char* where) {
  for (int col = 0; col < m; ++col) {
    int p = col;
    if (pivoting == Pivoting::partial)
      for (int i = col + 1; i < m; ++i)
        if (std::abs(P[i * m + col]) > std::abs(P[p * m + col])) p = i;
    if (P[p * m + col] == T(0))
      throw SingularMatrix(std::string(where) + ": singular pivot block (zero pivot in column " + std::to_string(col) + ")" +
                  (pivoting == Pivoting::none ? "; partial pivoting may solve it" : ""));
    if (p != col) {
      for (int j = 0; j < m; ++j) std::swap(P[p * m + j], P[col * m + j]);
      for (int j = 0; j < k; ++j) std::swap(R[p * k + j], R[col * k + j]);
    }
    const T inv = T(1) / P[col * m + col];
    for (int i = col + 1; i < m; ++i) {
      const T f = P[i * m + col] * inv;
      if (f == T(0)) continue;
      for (int j = col; j < m; ++j) P[i * m + j] -= f * P[col * m + j];
      for (int j = 0; j < k; ++j) R[i * k + j] -= f * R[col * k + j];
    }
  }
  for (int col = m - 1; col >= 0; --col) {
    const T inv = T(1) / P[col * m + col];
    for (int j = 0; j < k; ++j) {
      T s = R[col * k + j];
      for (int c = col + 1; c < m; ++c) s -= P[col * m + c] * R[c * k + j];
      R[col * k + j] = s * inv;
    }
  }
}

// Y = X - A Z for m x m A and m x k X, Z (row-major, leading dimension k).
template <class T>
void dense_minus_product(int m, int k, const T* A, const T* Z, T* Y) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < k; ++j) {
      T s = Y[i * k + j];
      for (int c = 0; c < m; ++c) s -= A[i * m + c] * Z[c * k + j];
      Y[i * k + j] = s;
    }
}

}  // namespace tridsim::blocktri
