// OpenBLAS (BLAS and LAPACK for the dense fronts of the CPU sparse direct solver), opened on the
// first call of one of its functions (core/lazy_library.hpp): loading it at start-up would cost
// every process, also one that never factors a matrix. Its OpenMP build, the one found by the
// build (TRIDSIM_OPENBLAS_PATH, solvers/CMakeLists.txt), before any other of the same soname.
#include "core/lazy_library.hpp"
#include "solvers/sparse_direct/dense_kernels.hpp"

namespace {
const tridsim::lazy::Library openblas{"OpenBLAS", {TRIDSIM_OPENBLAS_PATH, TRIDSIM_OPENBLAS_SONAME},
                                      "the sparse direct solver (poisson with variable conductivity, elasticity, "
                                      "unsplit Crank-Nicolson)"};
}  // namespace

TRIDSIM_FORWARD(openblas, void, spotrf_, (const char* uplo, const int* n, float* a, const int* lda, int* info),
                (uplo, n, a, lda, info))
TRIDSIM_FORWARD(openblas, void, dpotrf_, (const char* uplo, const int* n, double* a, const int* lda, int* info),
                (uplo, n, a, lda, info))
TRIDSIM_FORWARD(openblas, void, strsm_,
                (const char* side, const char* uplo, const char* trans, const char* diag, const int* m, const int* n,
                 const float* alpha, const float* a, const int* lda, float* b, const int* ldb),
                (side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb))
TRIDSIM_FORWARD(openblas, void, dtrsm_,
                (const char* side, const char* uplo, const char* trans, const char* diag, const int* m, const int* n,
                 const double* alpha, const double* a, const int* lda, double* b, const int* ldb),
                (side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb))
TRIDSIM_FORWARD(openblas, void, ssyrk_,
                (const char* uplo, const char* trans, const int* n, const int* k, const float* alpha, const float* a,
                 const int* lda, const float* beta, float* c, const int* ldc),
                (uplo, trans, n, k, alpha, a, lda, beta, c, ldc))
TRIDSIM_FORWARD(openblas, void, dsyrk_,
                (const char* uplo, const char* trans, const int* n, const int* k, const double* alpha, const double* a,
                 const int* lda, const double* beta, double* c, const int* ldc),
                (uplo, trans, n, k, alpha, a, lda, beta, c, ldc))
TRIDSIM_FORWARD(openblas, void, sgemm_,
                (const char* transa, const char* transb, const int* m, const int* n, const int* k, const float* alpha,
                 const float* a, const int* lda, const float* b, const int* ldb, const float* beta, float* c,
                 const int* ldc),
                (transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
TRIDSIM_FORWARD(openblas, void, dgemm_,
                (const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
                 const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
                 const int* ldc),
                (transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
