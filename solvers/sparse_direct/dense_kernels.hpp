#pragma once
// The dense kernels of the CPU fronts (namespace tridsim::sparse::dense): LAPACK / BLAS routines
// (OpenBLAS) behind one name per operation for float and double. Matrices are column-major.
#include "core/types.hpp"

extern "C" {
void spotrf_(const char*, const int*, float*, const int*, int*);
void dpotrf_(const char*, const int*, double*, const int*, int*);
void strsm_(const char*, const char*, const char*, const char*, const int*, const int*, const float*, const float*,
            const int*, float*, const int*);
void dtrsm_(const char*, const char*, const char*, const char*, const int*, const int*, const double*, const double*,
            const int*, double*, const int*);
void ssyrk_(const char*, const char*, const int*, const int*, const float*, const float*, const int*, const float*,
            float*, const int*);
void dsyrk_(const char*, const char*, const int*, const int*, const double*, const double*, const int*,
            const double*, double*, const int*);
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);
}

namespace tridsim::sparse::dense {

// Lower Cholesky factor of the n x n matrix a in place; returns LAPACK's info (> 0: not positive
// definite at that column, 1-based).
inline int potrf(int n, float* a, int lda) {
  int info = 0;
  spotrf_("L", &n, a, &lda, &info);
  return info;
}
inline int potrf(int n, double* a, int lda) {
  int info = 0;
  dpotrf_("L", &n, a, &lda, &info);
  return info;
}

// b = alpha * b * op(L)^-1 (side R) or alpha * op(L)^-1 * b (side L), L lower, non-unit diagonal.
template <class T>
void trsm(char side, char trans, int m, int n, T alpha, const T* l, int ldl, T* b, int ldb) {
  const char s[2] = {side, 0}, t[2] = {trans, 0};
  if constexpr (sizeof(T) == 4) strsm_(s, "L", t, "N", &m, &n, &alpha, l, &ldl, b, &ldb);
  else dtrsm_(s, "L", t, "N", &m, &n, &alpha, l, &ldl, b, &ldb);
}

// c (n x n, lower) = alpha * a a^T + beta * c, a n x k.
template <class T>
void syrk(int n, int k, T alpha, const T* a, int lda, T beta, T* c, int ldc) {
  if constexpr (sizeof(T) == 4) ssyrk_("L", "N", &n, &k, &alpha, a, &lda, &beta, c, &ldc);
  else dsyrk_("L", "N", &n, &k, &alpha, a, &lda, &beta, c, &ldc);
}

// c = alpha * op(a) op(b) + beta * c.
template <class T>
void gemm(char ta, char tb, int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c,
          int ldc) {
  const char x[2] = {ta, 0}, y[2] = {tb, 0};
  if constexpr (sizeof(T) == 4) sgemm_(x, y, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
  else dgemm_(x, y, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
}

}  // namespace tridsim::sparse::dense
