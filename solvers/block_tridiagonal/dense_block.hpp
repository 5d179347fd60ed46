#pragma once
// Small dense M x M blocks (row-major, runtime m; namespace tridsim::blocktri) for the reference
// and split-line block Thomas (host and device) and the host-side factorizations: Gaussian
// elimination of P X = R with k right-hand columns, with or without partial pivoting (row
// exchanges inside the block).
#include <string>
#include <type_traits>

#include "core/errors.hpp"
#include "core/host_device.hpp"
#include "solvers/block_tridiagonal/block_rows.hpp"

namespace tridsim::blocktri {

// Block sizes the solvers also compile with M fixed (blocks in registers): calls
// fn(std::integral_constant<int, m>{}) and returns true for m = 1 .. kMaxFixedBlock, else false.
inline constexpr int kMaxFixedBlock = 8;
template <int M = 1, class Fn>
bool with_fixed_block_size(int m, Fn&& fn) {
  if constexpr (M > kMaxFixedBlock) {
    return false;
  } else {
    if (m != M) return with_fixed_block_size<M + 1>(m, fn);
    fn(std::integral_constant<int, M>{});
    return true;
  }
}

// Element i of an array whose consecutive elements lie `stride` apart (a GPU thread's share of
// scratch interleaved by line, so that neighbouring threads touch neighbouring words).
template <class T>
struct Strided {
  T* p;
  index_t stride;
  TRIDSIM_HOST_DEVICE T& operator[](index_t i) const { return p[i * stride]; }
  TRIDSIM_HOST_DEVICE Strided operator+(index_t i) const { return {p + i * stride, stride}; }
  TRIDSIM_HOST_DEVICE Strided operator-(index_t i) const { return {p - i * stride, stride}; }
};

template <class T>
TRIDSIM_HOST_DEVICE inline T magnitude(T x) {
  return x < T(0) ? -x : x;
}
template <class T>
TRIDSIM_HOST_DEVICE inline void swap_values(T& x, T& y) {
  const T t = x;
  x = y;
  y = t;
}

// Overwrites R (m x k, row-major, leading dimension k) with P^{-1} R; P (m x m) is destroyed.
// Returns the column of the first zero pivot (the block is singular, or needs pivoting when
// `pivoting` is none), else -1. Host and device; PP and PR are T* or a Strided<T> view.
template <class T, class PP, class PR>
TRIDSIM_HOST_DEVICE int dense_eliminate(int m, PP P, int k, PR R, Pivoting pivoting) {
  // (Rows are reached by loop indices only, never by the pivot's row number: for a compile-time
  // m a GPU thread's blocks then stay in registers.)
  for (int col = 0; col < m; ++col) {
    int p = col;
    T best = magnitude(T(P[col * m + col]));
    if (pivoting == Pivoting::partial)
      for (int i = col + 1; i < m; ++i) {
        const T v = magnitude(T(P[i * m + col]));
        if (v > best) best = v, p = i;
      }
    if (best == T(0)) return col;
    for (int i = col + 1; i < m; ++i)
      if (i == p) {
        for (int j = 0; j < m; ++j) swap_values(P[i * m + j], P[col * m + j]);
        for (int j = 0; j < k; ++j) swap_values(R[i * k + j], R[col * k + j]);
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
  return -1;
}

// The error of a zero pivot (in column `col` of a pivot block, where known: col >= 0) met by `where`.
inline SingularMatrix singular_pivot_block(const std::string& where, int col, Pivoting pivoting) {
  return SingularMatrix(where + ": singular pivot block (zero pivot" +
                        (col >= 0 ? " in column " + std::to_string(col) : std::string()) + ")" +
                        (pivoting == Pivoting::none ? "; partial pivoting may solve it" : ""));
}

// dense_eliminate on the host; throws SingularMatrix naming `where` at a zero pivot.
template <class T>
void dense_solve(int m, T* P, int k, T* R, Pivoting pivoting, const char* where) {
  const int col = dense_eliminate<T>(m, P, k, R, pivoting);
  if (col >= 0) throw singular_pivot_block(where, col, pivoting);
}

// Y = Y - A Z for m x m A and m x k Y, Z (row-major, leading dimension k; T* or Strided<T>).
template <class PA, class PZ, class PY>
TRIDSIM_HOST_DEVICE void dense_minus_product(int m, int k, PA A, PZ Z, PY Y) {
  using T = std::remove_reference_t<decltype(Y[0])>;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < k; ++j) {
      T s = Y[i * k + j];
      for (int c = 0; c < m; ++c) s -= T(A[i * m + c]) * T(Z[c * k + j]);
      Y[i * k + j] = s;
    }
}

}  // namespace tridsim::blocktri
