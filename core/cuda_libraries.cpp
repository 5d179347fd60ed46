// The CUDA math libraries (cuBLAS, cuSOLVER, cuSPARSE, cuFFT, NVRTC), loaded on first use.
//
// Loading them is a large part of a process's start-up (cuBLASLt's initialisation above all), which
// every process would pay, also one that never touches a GPU (--help, check, a CPU run, the Python
// module). So tridsim links none of them (core/lazy_library.hpp): one forwarder below for each
// function it calls (add one when a new call does not link).
#include "core/cuda_libraries.hpp"

#include <cublas_v2.h>
#include <cufft.h>
#include <cusolverDn.h>
#include <cusparse.h>
#include <nvrtc.h>

#include <string>

#include "core/lazy_library.hpp"

namespace tridsim {
namespace {

// By soname (LD_LIBRARY_PATH, the cache), else from the toolkit this build was made with
// (TRIDSIM_*_SONAME and TRIDSIM_CUDA_LIBRARY_DIR come from core/CMakeLists.txt).
#define TRIDSIM_CUDA_LIBRARY(id, name, soname, needed_by) \
  const lazy::Library id{name, {soname, TRIDSIM_CUDA_LIBRARY_DIR "/" soname}, needed_by};
TRIDSIM_CUDA_LIBRARY(cublas, "cuBLAS", TRIDSIM_CUBLAS_SONAME, "the GPU sparse direct solver")
TRIDSIM_CUDA_LIBRARY(cusolver, "cuSOLVER", TRIDSIM_CUSOLVER_SONAME, "the GPU sparse direct solver")
TRIDSIM_CUDA_LIBRARY(cusparse, "cuSPARSE", TRIDSIM_CUSPARSE_SONAME, "the cusparse line solver")
TRIDSIM_CUDA_LIBRARY(cufft, "cuFFT", TRIDSIM_CUFFT_SONAME, "the GPU fast Poisson solver")
TRIDSIM_CUDA_LIBRARY(nvrtc, "NVRTC", TRIDSIM_NVRTC_SONAME, "deck expressions on the GPU")
#undef TRIDSIM_CUDA_LIBRARY

}  // namespace

std::string cuda_libraries_summary() {
  std::string s;
  for (const lazy::Library* lib : {&cublas, &cusolver, &cusparse, &cufft, &nvrtc})
    s += std::string(s.empty() ? "" : ", ") + lib->name + " " + lib->paths[0] + (lazy::available(*lib) ? "" : " (not found)");
  return s;
}

}  // namespace tridsim

using tridsim::cublas, tridsim::cusolver, tridsim::cusparse, tridsim::cufft, tridsim::nvrtc;

// cuBLAS and cuSOLVER: the GPU multifrontal factorization (solvers/sparse_direct/cuda/).
TRIDSIM_FORWARD(cublas, cublasStatus_t, cublasCreate_v2, (cublasHandle_t* handle), (handle))
TRIDSIM_FORWARD(cublas, cublasStatus_t, cublasDestroy_v2, (cublasHandle_t handle), (handle))
TRIDSIM_FORWARD(cublas, cublasStatus_t, cublasSetStream_v2, (cublasHandle_t handle, cudaStream_t streamId), (handle, streamId))
TRIDSIM_FORWARD(cublas, cublasStatus_t, cublasSgemmBatched,
                (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                 const float* alpha, const float* const Aarray[], int lda, const float* const Barray[], int ldb,
                 const float* beta, float* const Carray[], int ldc, int batchCount),
                (handle, transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount))
TRIDSIM_FORWARD(cublas, cublasStatus_t, cublasDgemmBatched,
                (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                 const double* alpha, const double* const Aarray[], int lda, const double* const Barray[], int ldb,
                 const double* beta, double* const Carray[], int ldc, int batchCount),
                (handle, transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount))
TRIDSIM_FORWARD(cublas, cublasStatus_t, cublasSsyrk_v2,
                (cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, int n, int k, const float* alpha,
                 const float* A, int lda, const float* beta, float* C, int ldc),
                (handle, uplo, trans, n, k, alpha, A, lda, beta, C, ldc))
TRIDSIM_FORWARD(cublas, cublasStatus_t, cublasDsyrk_v2,
                (cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, int n, int k, const double* alpha,
                 const double* A, int lda, const double* beta, double* C, int ldc),
                (handle, uplo, trans, n, k, alpha, A, lda, beta, C, ldc))
TRIDSIM_FORWARD(cublas, cublasStatus_t, cublasStrsm_v2,
                (cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,
                 cublasDiagType_t diag, int m, int n, const float* alpha, const float* A, int lda, float* B, int ldb),
                (handle, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb))
TRIDSIM_FORWARD(cublas, cublasStatus_t, cublasDtrsm_v2,
                (cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,
                 cublasDiagType_t diag, int m, int n, const double* alpha, const double* A, int lda, double* B, int ldb),
                (handle, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb))
TRIDSIM_FORWARD(cublas, cublasStatus_t, cublasStrsmBatched,
                (cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,
                 cublasDiagType_t diag, int m, int n, const float* alpha, const float* const A[], int lda,
                 float* const B[], int ldb, int batchCount),
                (handle, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount))
TRIDSIM_FORWARD(cublas, cublasStatus_t, cublasDtrsmBatched,
                (cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,
                 cublasDiagType_t diag, int m, int n, const double* alpha, const double* const A[], int lda,
                 double* const B[], int ldb, int batchCount),
                (handle, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount))
TRIDSIM_FORWARD(cusolver, cusolverStatus_t, cusolverDnCreate, (cusolverDnHandle_t * handle), (handle))
TRIDSIM_FORWARD(cusolver, cusolverStatus_t, cusolverDnDestroy, (cusolverDnHandle_t handle), (handle))
TRIDSIM_FORWARD(cusolver, cusolverStatus_t, cusolverDnSetStream, (cusolverDnHandle_t handle, cudaStream_t streamId),
                (handle, streamId))
TRIDSIM_FORWARD(cusolver, cusolverStatus_t, cusolverDnSpotrf_bufferSize,
                (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, float* A, int lda, int* Lwork),
                (handle, uplo, n, A, lda, Lwork))
TRIDSIM_FORWARD(cusolver, cusolverStatus_t, cusolverDnDpotrf_bufferSize,
                (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double* A, int lda, int* Lwork),
                (handle, uplo, n, A, lda, Lwork))
TRIDSIM_FORWARD(cusolver, cusolverStatus_t, cusolverDnSpotrf,
                (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, float* A, int lda, float* Workspace, int Lwork,
                 int* devInfo),
                (handle, uplo, n, A, lda, Workspace, Lwork, devInfo))
TRIDSIM_FORWARD(cusolver, cusolverStatus_t, cusolverDnDpotrf,
                (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double* A, int lda, double* Workspace,
                 int Lwork, int* devInfo),
                (handle, uplo, n, A, lda, Workspace, Lwork, devInfo))
TRIDSIM_FORWARD(cusolver, cusolverStatus_t, cusolverDnSpotrfBatched,
                (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, float* Aarray[], int lda, int* infoArray,
                 int batchSize),
                (handle, uplo, n, Aarray, lda, infoArray, batchSize))
TRIDSIM_FORWARD(cusolver, cusolverStatus_t, cusolverDnDpotrfBatched,
                (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double* Aarray[], int lda, int* infoArray,
                 int batchSize),
                (handle, uplo, n, Aarray, lda, infoArray, batchSize))

// cuSPARSE: the cusparse line solver, a baseline (solvers/tridiagonal/cuda/batched_cuda.cu).
TRIDSIM_FORWARD(cusparse, cusparseStatus_t, cusparseCreate, (cusparseHandle_t * handle), (handle))
TRIDSIM_FORWARD(cusparse, cusparseStatus_t, cusparseDestroy, (cusparseHandle_t handle), (handle))
TRIDSIM_FORWARD(cusparse, cusparseStatus_t, cusparseSetStream, (cusparseHandle_t handle, cudaStream_t streamId),
                (handle, streamId))
TRIDSIM_FORWARD(cusparse, const char*, cusparseGetErrorString, (cusparseStatus_t status), (status))
TRIDSIM_FORWARD(cusparse, cusparseStatus_t, cusparseSgtsv2StridedBatch_bufferSizeExt,
                (cusparseHandle_t handle, int m, const float* dl, const float* d, const float* du, const float* x,
                 int batchCount, int batchStride, size_t* bufferSizeInBytes),
                (handle, m, dl, d, du, x, batchCount, batchStride, bufferSizeInBytes))
TRIDSIM_FORWARD(cusparse, cusparseStatus_t, cusparseDgtsv2StridedBatch_bufferSizeExt,
                (cusparseHandle_t handle, int m, const double* dl, const double* d, const double* du, const double* x,
                 int batchCount, int batchStride, size_t* bufferSizeInBytes),
                (handle, m, dl, d, du, x, batchCount, batchStride, bufferSizeInBytes))
TRIDSIM_FORWARD(cusparse, cusparseStatus_t, cusparseSgtsv2StridedBatch,
                (cusparseHandle_t handle, int m, const float* dl, const float* d, const float* du, float* x,
                 int batchCount, int batchStride, void* pBuffer),
                (handle, m, dl, d, du, x, batchCount, batchStride, pBuffer))
TRIDSIM_FORWARD(cusparse, cusparseStatus_t, cusparseDgtsv2StridedBatch,
                (cusparseHandle_t handle, int m, const double* dl, const double* d, const double* du, double* x,
                 int batchCount, int batchStride, void* pBuffer),
                (handle, m, dl, d, du, x, batchCount, batchStride, pBuffer))
TRIDSIM_FORWARD(cusparse, cusparseStatus_t, cusparseSgtsvInterleavedBatch_bufferSizeExt,
                (cusparseHandle_t handle, int algo, int m, const float* dl, const float* d, const float* du,
                 const float* x, int batchCount, size_t* pBufferSizeInBytes),
                (handle, algo, m, dl, d, du, x, batchCount, pBufferSizeInBytes))
TRIDSIM_FORWARD(cusparse, cusparseStatus_t, cusparseDgtsvInterleavedBatch_bufferSizeExt,
                (cusparseHandle_t handle, int algo, int m, const double* dl, const double* d, const double* du,
                 const double* x, int batchCount, size_t* pBufferSizeInBytes),
                (handle, algo, m, dl, d, du, x, batchCount, pBufferSizeInBytes))
TRIDSIM_FORWARD(cusparse, cusparseStatus_t, cusparseSgtsvInterleavedBatch,
                (cusparseHandle_t handle, int algo, int m, float* dl, float* d, float* du, float* x, int batchCount,
                 void* pBuffer),
                (handle, algo, m, dl, d, du, x, batchCount, pBuffer))
TRIDSIM_FORWARD(cusparse, cusparseStatus_t, cusparseDgtsvInterleavedBatch,
                (cusparseHandle_t handle, int algo, int m, double* dl, double* d, double* du, double* x, int batchCount,
                 void* pBuffer),
                (handle, algo, m, dl, d, du, x, batchCount, pBuffer))

// cuFFT: the sine-transform Poisson solver (solvers/cyclic_reduction/cuda/poisson_cuda.cu).
TRIDSIM_FORWARD(cufft, cufftResult, cufftPlanMany,
                (cufftHandle * plan, int rank, int* n, int* inembed, int istride, int idist, int* onembed, int ostride,
                 int odist, cufftType type, int batch),
                (plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch))
TRIDSIM_FORWARD(cufft, cufftResult, cufftExecR2C, (cufftHandle plan, cufftReal* idata, cufftComplex* odata),
                (plan, idata, odata))
TRIDSIM_FORWARD(cufft, cufftResult, cufftExecD2Z, (cufftHandle plan, cufftDoubleReal* idata, cufftDoubleComplex* odata),
                (plan, idata, odata))
TRIDSIM_FORWARD(cufft, cufftResult, cufftSetStream, (cufftHandle plan, cudaStream_t stream), (plan, stream))
TRIDSIM_FORWARD(cufft, cufftResult, cufftDestroy, (cufftHandle plan), (plan))

// NVRTC: deck expressions compiled for the GPU at run time (core/device_expression.cpp).
TRIDSIM_FORWARD(nvrtc, const char*, nvrtcGetErrorString, (nvrtcResult result), (result))
TRIDSIM_FORWARD(nvrtc, nvrtcResult, nvrtcCreateProgram,
                (nvrtcProgram * prog, const char* src, const char* name, int numHeaders, const char* const* headers,
                 const char* const* includeNames),
                (prog, src, name, numHeaders, headers, includeNames))
TRIDSIM_FORWARD(nvrtc, nvrtcResult, nvrtcDestroyProgram, (nvrtcProgram * prog), (prog))
TRIDSIM_FORWARD(nvrtc, nvrtcResult, nvrtcCompileProgram, (nvrtcProgram prog, int numOptions, const char* const* options),
                (prog, numOptions, options))
TRIDSIM_FORWARD(nvrtc, nvrtcResult, nvrtcGetProgramLogSize, (nvrtcProgram prog, size_t* logSizeRet), (prog, logSizeRet))
TRIDSIM_FORWARD(nvrtc, nvrtcResult, nvrtcGetProgramLog, (nvrtcProgram prog, char* log), (prog, log))
TRIDSIM_FORWARD(nvrtc, nvrtcResult, nvrtcGetPTXSize, (nvrtcProgram prog, size_t* ptxSizeRet), (prog, ptxSizeRet))
TRIDSIM_FORWARD(nvrtc, nvrtcResult, nvrtcGetPTX, (nvrtcProgram prog, char* ptx), (prog, ptx))
TRIDSIM_FORWARD(nvrtc, nvrtcResult, nvrtcGetCUBINSize, (nvrtcProgram prog, size_t* cubinSizeRet), (prog, cubinSizeRet))
TRIDSIM_FORWARD(nvrtc, nvrtcResult, nvrtcGetCUBIN, (nvrtcProgram prog, char* cubin), (prog, cubin))
TRIDSIM_FORWARD(nvrtc, nvrtcResult, nvrtcGetNumSupportedArchs, (int* numArchs), (numArchs))
TRIDSIM_FORWARD(nvrtc, nvrtcResult, nvrtcGetSupportedArchs, (int* supportedArchs), (supportedArchs))
