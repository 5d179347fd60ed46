#include "solvers/sparse_direct/cuda/multifrontal_cuda.hpp"

#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/cuda_support.cuh"
#include "core/errors.hpp"
#include "solvers/sparse_direct/multifrontal.hpp"

namespace tridsim::sparse {

namespace {

void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error(std::string("cuBLAS error ") + std::to_string(int(s)) + " in " + what);
}
void check_cusolver(cusolverStatus_t s, const char* what) {
  if (s != CUSOLVER_STATUS_SUCCESS)
    throw Error(std::string("cuSOLVER error ") + std::to_string(int(s)) + " in " + what);
}

// One front as the kernels see it.
struct FrontDev {
  index_t panel = 0;   // [L11; L21] in the factor storage, m x s, column-major
  index_t cb = 0;      // F22 in its level's arena, u x u, column-major
  index_t first = 0;   // its own unknowns' first position
  index_t update = 0;  // its update positions in the concatenated list
  int m = 0, s = 0, u = 0;
};

// A child's contribution block and where it lands in its parent.
struct ChildLink {
  index_t cb = 0, map = 0;  // the child's block (in the arena of its level) and its map into the parent
  index_t panel = 0, pcb = 0;
  int uc = 0, m = 0, s = 0, u = 0;  // the child's update size; the parent's shape
};

constexpr int kSmallFrontBytes = 96 * 1024;  // fronts whose m x m fits are eliminated in shared memory
constexpr int kBatchedGroup = 4;             // equal-shape groups at least this large: batched routines,
constexpr int kBatchedMaxOwn = 1024;         // when their own unknowns are this few (cuSOLVER's batched
                                             // potrf is for small matrices; larger ones one by one)

// ---- dense routines by precision ----
cublasStatus_t trsm(cublasHandle_t h, cublasSideMode_t side, cublasOperation_t op, int m, int n, const double* a,
                    const double* l, int ldl, double* b, int ldb) {
  return cublasDtrsm(h, side, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_NON_UNIT, m, n, a, l, ldl, b, ldb);
}
cublasStatus_t trsm(cublasHandle_t h, cublasSideMode_t side, cublasOperation_t op, int m, int n, const float* a,
                    const float* l, int ldl, float* b, int ldb) {
  return cublasStrsm(h, side, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_NON_UNIT, m, n, a, l, ldl, b, ldb);
}
cublasStatus_t syrk(cublasHandle_t h, int n, int k, const double* al, const double* a, int lda, const double* be,
                    double* c, int ldc) {
  return cublasDsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, k, al, a, lda, be, c, ldc);
}
cublasStatus_t syrk(cublasHandle_t h, int n, int k, const float* al, const float* a, int lda, const float* be,
                    float* c, int ldc) {
  return cublasSsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, k, al, a, lda, be, c, ldc);
}
cublasStatus_t trsm_batched(cublasHandle_t h, int m, int n, const double* a, double* const* l, int ldl,
                            double* const* b, int ldb, int count) {
  return cublasDtrsmBatched(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, m, n, a,
                            l, ldl, b, ldb, count);
}
cublasStatus_t trsm_batched(cublasHandle_t h, int m, int n, const float* a, float* const* l, int ldl,
                            float* const* b, int ldb, int count) {
  return cublasStrsmBatched(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, m, n, a,
                            l, ldl, b, ldb, count);
}
cublasStatus_t gemm_batched(cublasHandle_t h, int n, int k, const double* al, double* const* a, int lda,
                            const double* be, double* const* c, int ldc, int count) {
  return cublasDgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, k, al, a, lda, a, lda, be, c, ldc, count);
}
cublasStatus_t gemm_batched(cublasHandle_t h, int n, int k, const float* al, float* const* a, int lda,
                            const float* be, float* const* c, int ldc, int count) {
  return cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, k, al, a, lda, a, lda, be, c, ldc, count);
}
cusolverStatus_t potrf_batched(cusolverDnHandle_t h, int n, double** a, int lda, int* info, int count) {
  return cusolverDnDpotrfBatched(h, CUBLAS_FILL_MODE_LOWER, n, a, lda, info, count);
}
cusolverStatus_t potrf_batched(cusolverDnHandle_t h, int n, float** a, int lda, int* info, int count) {
  return cusolverDnSpotrfBatched(h, CUBLAS_FILL_MODE_LOWER, n, a, lda, info, count);
}
cusolverStatus_t potrf_buffer(cusolverDnHandle_t h, int n, double* a, int lda, int* work) {
  return cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, lda, work);
}
cusolverStatus_t potrf_buffer(cusolverDnHandle_t h, int n, float* a, int lda, int* work) {
  return cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, lda, work);
}
cusolverStatus_t potrf(cusolverDnHandle_t h, int n, double* a, int lda, double* w, int lw, int* info) {
  return cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, lda, w, lw, info);
}
cusolverStatus_t potrf(cusolverDnHandle_t h, int n, float* a, int lda, float* w, int lw, int* info) {
  return cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, lda, w, lw, info);
}

// ---- kernels ----
template <class T>
__global__ void assemble_originals(const T* values, const index_t* src, const index_t* dst, index_t n, T* panels) {
  for (index_t e = blockIdx.x * index_t(blockDim.x) + threadIdx.x; e < n; e += index_t(gridDim.x) * blockDim.x)
    panels[dst[e]] = values[src[e]];
}

// F(map[i], map[j]) += CB(i, j), i >= j: a child's block into its parent's panel or block.
template <class T>
__global__ void extend_add(const ChildLink* links, int count, const int* maps, const T* child_arena, T* panels,
                           T* parent_arena) {
  for (int l = blockIdx.y; l < count; l += gridDim.y) {
    const ChildLink k = links[l];
    const int* map = maps + k.map;
    for (int j = blockIdx.x; j < k.uc; j += gridDim.x) {
      const int c = map[j];
      const T* src = child_arena + k.cb + index_t(j) * k.uc;
      for (int i = j + threadIdx.x; i < k.uc; i += blockDim.x) {
        const int r = map[i];
        if (c < k.s) panels[k.panel + r + index_t(c) * k.m] += src[i];
        else parent_arena[k.pcb + (r - k.s) + index_t(c - k.s) * k.u] += src[i];
      }
    }
  }
}

// Partial Cholesky of a front held whole in shared memory: a block per front.
template <class T>
__global__ void eliminate_small(const FrontDev* fronts, const int* list, T* panels, T* arena, int* info) {
  extern __shared__ unsigned char smem_raw[];
  T* a = reinterpret_cast<T*>(smem_raw);
  __shared__ bool bad;
  const FrontDev f = fronts[list[blockIdx.x]];
  const int m = f.m, s = f.s, u = f.u, tid = threadIdx.x, nt = blockDim.x;
  T* p = panels + f.panel;
  T* c = arena + f.cb;
  for (int idx = tid; idx < m * m; idx += nt) {
    const int i = idx % m, j = idx / m;
    if (i >= j) a[idx] = j < s ? p[i + index_t(j) * m] : c[(i - s) + index_t(j - s) * u];
  }
  __syncthreads();
  for (int k = 0; k < s; ++k) {
    if (tid == 0) {
      const T d = a[k + k * m];
      bad = !(d > T(0));
      a[k + k * m] = bad ? d : sqrt(d);
    }
    __syncthreads();
    if (bad) {
      if (tid == 0) atomicCAS(info, 0, list[blockIdx.x] + 1);
      return;
    }
    const T dk = a[k + k * m];
    for (int i = k + 1 + tid; i < m; i += nt) a[i + k * m] /= dk;
    __syncthreads();
    const int rem = m - k - 1;
    for (int idx = tid; idx < rem * rem; idx += nt) {
      const int ii = idx % rem, jj = idx / rem;
      if (ii >= jj) a[(k + 1 + ii) + (k + 1 + jj) * m] -= a[(k + 1 + ii) + k * m] * a[(k + 1 + jj) + k * m];
    }
    __syncthreads();
  }
  for (int idx = tid; idx < m * m; idx += nt) {
    const int i = idx % m, j = idx / m;
    if (i < j) continue;
    if (j < s) p[i + index_t(j) * m] = a[idx];
    else c[(i - s) + index_t(j - s) * u] = a[idx];
  }
}

// The solves, level by level. A front's triangle L11 is solved by one block: its own unknowns y
// in shared memory, L11 in 32 x 32 tiles, each tile solved by one warp (reciprocal diagonal, so
// the serial chain has no division) while the next tile and this tile's products with the rows
// below are already being loaded, so a tile step costs about one memory latency. The products
// with L21, which carry most of the bytes, are spread over many blocks per front (rows and
// columns both split, partial sums added atomically) so that a level of few large fronts still
// reads at the memory's bandwidth. Levels of thousands of small fronts take a warp per front;
// the few largest fronts go to cuBLAS, several at once on side streams.
constexpr int kBlockSolve = 512;             // fronts with at most this many own unknowns: a block each,
constexpr int kBlockSolveMax = 2048;         // and up to this many when the level has at least
constexpr int kBlockSolveLevel = 16;         // this many fronts (else cuBLAS, whose triangular solve
                                             // spreads one front over many blocks)
constexpr int kSideStreams = 8;              // the others: cuBLAS, this many at once
constexpr int kUpdateRows = 128;       // an update block: this many rows of L21 (a thread or a lane each)...
constexpr int kUpdateCols = 32;        // ...times at least this many of its columns
constexpr int kUpdateBlocksPerFront = 8;  // wide fronts: columns (forward) or rows (backward) in at most
                                          // this many blocks, fewer atomics on one entry
constexpr int kWarpSolve = 64;         // levels of at least kWarpSolveLevel fronts with at most this
constexpr int kWarpSolveLevel = 2048;  // many own unknowns: a warp per front, its L21 products included

struct Chunk {  // a piece of one front's L21 product: rows [row, row + rows), columns [col, col + cols)
  int front, row, rows, col, cols;
};

// Registers <- the 32 x 32 tile of L11 at (k0, k0), lower triangle, zero outside the front.
template <class T, int NT>
__device__ void load_tile(const T* l, int m, int s, int k0, T (&t)[32 * 32 / NT]) {
#pragma unroll
  for (int q = 0; q < 32 * 32 / NT; ++q) {
    const int e = int(threadIdx.x) + q * NT, i = e % 32, j = e / 32;
    t[q] = (i >= j && k0 + i < s) ? l[(k0 + i) + index_t(k0 + j) * m] : T(0);
  }
}

// Shared tile <- registers, the diagonal replaced by its reciprocal.
template <class T, int NT>
__device__ void store_tile(const T (&t)[32 * 32 / NT], T* tile) {
#pragma unroll
  for (int q = 0; q < 32 * 32 / NT; ++q) {
    const int e = int(threadIdx.x) + q * NT, i = e % 32, j = e / 32;
    tile[i + j * 33] = (i == j && t[q] != T(0)) ? T(1) / t[q] : t[q];
  }
}

// Sums 32 per-lane columns over the warp: lane k returns column k's total (31 shuffles). Each
// step halves the columns a lane holds, keeping the half its lane bit O selects.
template <int O, class T>
__device__ void halve_columns(T (&a)[32], int lane) {
  const bool upper = (lane & O) != 0;
#pragma unroll
  for (int k = 0; k < O; ++k) {
    const T keep = upper ? a[k + O] : a[k], send = upper ? a[k] : a[k + O];
    a[k] = keep + __shfl_xor_sync(0xffffffffu, send, O);
  }
  if constexpr (O > 1) halve_columns<O / 2>(a, lane);
}
template <class T>
__device__ T warp_column_sums(T (&a)[32]) {
  halve_columns<16>(a, int(threadIdx.x) % 32);
  return a[0];
}

// v = T^-T v for a tile T in shared memory (reciprocal diagonal), lane i holding row i; one warp.
template <class T>
__device__ T solve_tile_transposed(const T* tile, int kb, T v) {
  const int lane = int(threadIdx.x) % 32;
  for (int i = kb - 1; i >= 0; --i) {
    const T xi = __shfl_sync(0xffffffffu, v, i) * tile[i + i * 33];
    if (lane == i) v = xi;
    else if (lane < i) v -= tile[i + lane * 33] * xi;
  }
  return v;
}

// y = L11^-1 y.
template <class T, int NT>
__global__ void __launch_bounds__(NT) diagonal_forward(const FrontDev* fronts, const int* list, const T* panels,
                                                       T* x, index_t ldx, int nrhs) {
  extern __shared__ unsigned char smem_raw[];
  T* y = reinterpret_cast<T*>(smem_raw);
  __shared__ T tile[32 * 33];
  const FrontDev f = fronts[list[blockIdx.x]];
  const int m = f.m, s = f.s, tid = threadIdx.x, lane = tid % 32;
  const T* l = panels + f.panel;
  for (int r = 0; r < nrhs; ++r) {
    T* xr = x + r * ldx + f.first;
    for (int i = tid; i < s; i += NT) y[i] = xr[i];
    T next[32 * 32 / NT];
    load_tile<T, NT>(l, m, s, 0, next);
    for (int k0 = 0; k0 < s; k0 += 32) {
      const int kb = min(32, s - k0);
      store_tile<T, NT>(next, tile);
      __syncthreads();
      if (k0 + 32 < s) load_tile<T, NT>(l, m, s, k0 + 32, next);
      const int first = k0 + 32 + tid;  // this thread's first row under the tile: its loads are
      T lv[32];                         // issued now and land while warp 0 solves
      if (first < s)
#pragma unroll
        for (int k = 0; k < 32; ++k) lv[k] = l[first + index_t(k0 + k) * m];
      if (tid < 32) {
        T v = lane < kb ? y[k0 + lane] : T(0);
        for (int k = 0; k < kb; ++k) {
          const T yk = __shfl_sync(0xffffffffu, v, k) * tile[k + k * 33];
          if (lane == k) v = yk;
          else if (lane > k) v -= tile[lane + k * 33] * yk;
        }
        if (lane < kb) y[k0 + lane] = v;
      }
      __syncthreads();
      for (int i = first; i < s; i += NT) {  // rows below exist only under a full tile
        if (i != first)
#pragma unroll
          for (int k = 0; k < 32; ++k) lv[k] = l[i + index_t(k0 + k) * m];
        T acc = 0;
#pragma unroll
        for (int k = 0; k < 32; ++k) acc += lv[k] * y[k0 + k];
        y[i] -= acc;
      }
    }
    __syncthreads();
    for (int i = tid; i < s; i += NT) xr[i] = y[i];
    __syncthreads();
  }
}

// y = L11^-T y, tiles from the last.
template <class T, int NT>
__global__ void __launch_bounds__(NT) diagonal_backward(const FrontDev* fronts, const int* list, const T* panels,
                                                        T* x, index_t ldx, int nrhs) {
  extern __shared__ unsigned char smem_raw[];
  T* y = reinterpret_cast<T*>(smem_raw);
  __shared__ T tile[32 * 33];
  __shared__ T partial[NT / 32][32];
  const FrontDev f = fronts[list[blockIdx.x]];
  const int m = f.m, s = f.s, tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const T* l = panels + f.panel;
  for (int r = 0; r < nrhs; ++r) {
    T* xr = x + r * ldx + f.first;
    for (int i = tid; i < s; i += NT) y[i] = xr[i];
    const int last = ((s - 1) / 32) * 32;
    T next[32 * 32 / NT];
    load_tile<T, NT>(l, m, s, last, next);
    T lv[32];  // L(first, tile) for this thread's first row under the tile, loaded one tile ahead
    __syncthreads();
    for (int k0 = last; k0 >= 0; k0 -= 32) {
      const int kb = min(32, s - k0), first = k0 + 32 + tid;
      T acc[32];  // this thread's share of the rows below the tile (solved already), per column
#pragma unroll
      for (int k = 0; k < 32; ++k) acc[k] = 0;
      for (int i = first; i < s; i += NT) {
        if (i != first)
#pragma unroll
          for (int k = 0; k < 32; ++k) lv[k] = l[i + index_t(k0 + k) * m];
        const T yi = y[i];
#pragma unroll
        for (int k = 0; k < 32; ++k) acc[k] += lv[k] * yi;
      }
      partial[warp][lane] = warp_column_sums(acc);
      store_tile<T, NT>(next, tile);
      __syncthreads();
      if (k0 > 0) {
        load_tile<T, NT>(l, m, s, k0 - 32, next);
        if (k0 + tid < s)
#pragma unroll
          for (int k = 0; k < 32; ++k) lv[k] = l[k0 + tid + index_t(k0 - 32 + k) * m];
      }
      if (tid < 32) {
        T v = 0;
        if (lane < kb) {
          v = y[k0 + lane];
          for (int w = 0; w < NT / 32; ++w) v -= partial[w][lane];
        }
        v = solve_tile_transposed(tile, kb, v);
        if (lane < kb) y[k0 + lane] = v;
      }
      __syncthreads();
    }
    for (int i = tid; i < s; i += NT) xr[i] = y[i];
    __syncthreads();
  }
}

// The lower levels' fronts (at most kWarpSolve own unknowns, thousands at once): a warp each, y
// in two registers per lane, L11 read a column at a time (independent of y, so the loads run
// ahead of the serial chain), and the front's L21 product in the same kernel.
template <class T>
__global__ void __launch_bounds__(128) forward_warp(const FrontDev* fronts, const int* list, int count,
                                                    const T* panels, const index_t* updates, T* x, index_t ldx,
                                                    int nrhs) {
  const int w = int(blockIdx.x) * 4 + int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  if (w >= count) return;
  const FrontDev f = fronts[list[w]];
  const int s = f.s, m = f.m;
  const T* l = panels + f.panel;
  const index_t* up = updates + f.update;
  for (int r = 0; r < nrhs; ++r) {
    T* xr = x + r * ldx + f.first;
    T v0 = lane < s ? xr[lane] : T(0), v1 = lane + 32 < s ? xr[lane + 32] : T(0);
#pragma unroll 4
    for (int k = 0; k < s; ++k) {
      const T* col = l + index_t(k) * m;
      const T c0 = lane < s ? col[lane] : T(0), c1 = lane + 32 < s ? col[lane + 32] : T(0);
      const T dinv = T(1) / col[k];
      const T yk = __shfl_sync(0xffffffffu, k < 32 ? v0 : v1, k % 32) * dinv;
      if (k < 32) {
        v0 = lane == k ? yk : (lane > k ? v0 - c0 * yk : v0);
        v1 -= c1 * yk;
      } else {
        v1 = lane == k - 32 ? yk : (lane > k - 32 ? v1 - c1 * yk : v1);
      }
    }
    if (lane < s) xr[lane] = v0;
    if (lane + 32 < s) xr[lane + 32] = v1;
    for (int i = lane; i - lane < f.u; i += 32) {  // x(update) -= L21 y, a lane per row
      const T* row = l + s + i;
      T acc = 0;
#pragma unroll 8
      for (int k = 0; k < s; ++k) {
        const T yk = __shfl_sync(0xffffffffu, k < 32 ? v0 : v1, k % 32);
        if (i < f.u) acc += row[index_t(k) * m] * yk;
      }
      if (i < f.u) atomicAdd(x + r * ldx + up[i], -acc);
    }
  }
}

// Lane q gets column c0 + q of L21^T x(update) (ncols <= 32 columns).
template <class T>
__device__ T l21t_times(const T* l21, int m, int u, int c0, int ncols, const T* xr, const index_t* up) {
  T a[32];
#pragma unroll
  for (int q = 0; q < 32; ++q) a[q] = 0;
  for (int i = int(threadIdx.x) % 32; i < u; i += 32) {
    const T xi = xr[up[i]];
#pragma unroll
    for (int q = 0; q < 32; ++q)
      if (q < ncols) a[q] += l21[i + index_t(c0 + q) * m] * xi;
  }
  return warp_column_sums(a);
}

// A warp's tile <- L(r0.., r0..) (at most 32 x 32, lower triangle, reciprocal diagonal).
template <class T>
__device__ void load_warp_tile(const T* l, int m, int s, int r0, T* tile) {
  const int lane = int(threadIdx.x) % 32;
#pragma unroll 8
  for (int j = 0; j < 32; ++j) {
    const bool in = r0 + lane < s && r0 + j < s && lane >= j;
    const T v = in ? l[(r0 + lane) + index_t(r0 + j) * m] : T(0);
    tile[lane + j * 33] = (lane == j && in) ? T(1) / v : v;
  }
  __syncwarp();
}

// Backward: the L21 product first, then the triangle as (at most) two 32-unknown tiles in shared
// memory, the second tile's coupling to the first by one column-sum.
template <class T>
__global__ void __launch_bounds__(128) backward_warp(const FrontDev* fronts, const int* list, int count,
                                                     const T* panels, const index_t* updates, T* x, index_t ldx,
                                                     int nrhs) {
  __shared__ T tiles[4][32 * 33];
  const int w = int(blockIdx.x) * 4 + int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  if (w >= count) return;
  T* tile = tiles[threadIdx.x / 32];
  const FrontDev f = fronts[list[w]];
  const int s = f.s, m = f.m;
  const T* l = panels + f.panel;
  const index_t* up = updates + f.update;
  for (int r = 0; r < nrhs; ++r) {
    T* xr = x + r * ldx + f.first;
    T v0 = lane < s ? xr[lane] : T(0), v1 = lane + 32 < s ? xr[lane + 32] : T(0);
    if (f.u > 0) {  // y -= L21^T x(update)
      v0 -= l21t_times(l + s, m, f.u, 0, min(s, 32), x + r * ldx, up);
      if (s > 32) v1 -= l21t_times(l + s, m, f.u, 32, s - 32, x + r * ldx, up);
    }
    if (s > 32) {  // the second tile of unknowns, then its coupling to the first
      load_warp_tile(l, m, s, 32, tile);
      v1 = solve_tile_transposed(tile, s - 32, v1);
      __syncwarp();
      T a[32];
#pragma unroll
      for (int q = 0; q < 32; ++q) a[q] = lane + 32 < s ? l[lane + 32 + index_t(q) * m] * v1 : T(0);
      v0 -= warp_column_sums(a);
    }
    load_warp_tile(l, m, s, 0, tile);
    v0 = solve_tile_transposed(tile, min(s, 32), v0);
    __syncwarp();
    if (lane < s) xr[lane] = v0;
    if (lane + 32 < s) xr[lane + 32] = v1;
  }
}

// x(update) -= L21 y for one chunk: a thread per row, 32 columns' loads at a time (atomics:
// fronts of a level share ancestors, and a front's column chunks share rows).
template <class T>
__global__ void __launch_bounds__(kUpdateRows) update_forward(const FrontDev* fronts, const Chunk* chunks,
                                                              const T* panels, const index_t* updates, T* x,
                                                              index_t ldx, int nrhs) {
  const Chunk c = chunks[blockIdx.x];
  const FrontDev f = fronts[c.front];
  const int i = c.row + int(threadIdx.x);
  if (i >= c.row + c.rows) return;
  const int k1 = c.col + c.cols;
  const T* row = panels + f.panel + f.s + i;
  for (int r = 0; r < nrhs; ++r) {
    const T* y = x + r * ldx + f.first;
    T acc = 0;
    int k = c.col;
    for (; k + 32 <= k1; k += 32) {
      T v[32];  // every load issued before the first product
#pragma unroll
      for (int q = 0; q < 32; ++q) v[q] = row[index_t(k + q) * f.m];
#pragma unroll
      for (int q = 0; q < 32; ++q) acc += v[q] * y[k + q];
    }
    for (; k < k1; ++k) acc += row[index_t(k) * f.m] * y[k];
    atomicAdd(x + r * ldx + updates[f.update + i], -acc);
  }
}

// y -= L21^T x(update) for one chunk: a warp per 8 columns, each lane 4 rows at a time.
template <class T>
__global__ void __launch_bounds__(kUpdateRows) update_backward(const FrontDev* fronts, const Chunk* chunks,
                                                               const T* panels, const index_t* updates, T* x,
                                                               index_t ldx, int nrhs) {
  const Chunk c = chunks[blockIdx.x];
  const FrontDev f = fronts[c.front];
  const int lane = int(threadIdx.x) % 32, k0 = c.col + int(threadIdx.x) / 32 * 8;
  if (k0 >= c.col + c.cols) return;
  const int kb = min(8, c.col + c.cols - k0), i1 = c.row + c.rows;
  const T* col = panels + f.panel + f.s + index_t(k0) * f.m;
  const index_t* up = updates + f.update;
  for (int r = 0; r < nrhs; ++r) {
    T* xr = x + r * ldx;
    T acc[8] = {};
    for (int i = c.row + lane; i < i1; i += 128) {
      T xi[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) xi[j] = i + 32 * j < i1 ? xr[up[i + 32 * j]] : T(0);
#pragma unroll
      for (int q = 0; q < 8; ++q)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (q < kb && i + 32 * j < i1) acc[q] += col[i + 32 * j + index_t(q) * f.m] * xi[j];
    }
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      for (int o = 16; o > 0; o /= 2) acc[q] += __shfl_xor_sync(0xffffffffu, acc[q], o);
      if (lane == 0 && q < kb) atomicAdd(xr + f.first + k0 + q, -acc[q]);
    }
  }
}

// to = from permuted: to[map[i]] = from[i] (forward) or to[i] = from[map[i]] (back).
template <class T>
__global__ void permute(const index_t* map, index_t n, int nrhs, const T* from, T* to, bool forward) {
  for (index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x; i < n * nrhs; i += index_t(gridDim.x) * blockDim.x) {
    const index_t k = i % n, r = i / n;
    if (forward) to[map[k] + r * n] = from[i];
    else to[i] = from[map[k] + r * n];
  }
}

// Cuts a front's u x s block L21 into chunks of `fixed` rows (columns when `transposed`) times
// at least `width` columns (rows), at most kUpdateBlocksPerFront chunks across.
void chunk_l21(int front, int u, int s, int fixed, int width, bool transposed, std::vector<Chunk>& out) {
  const int along = transposed ? u : s, across = transposed ? s : u;
  const int per = width * std::max(1, (along + width * kUpdateBlocksPerFront - 1) / (width * kUpdateBlocksPerFront));
  for (int a = 0; a < across; a += fixed)
    for (int b = 0; b < along; b += per) {
      const int na = std::min(fixed, across - a), nb = std::min(per, along - b);
      out.push_back(transposed ? Chunk{front, b, nb, a, na} : Chunk{front, a, na, b, nb});
    }
}

int blocks_for(index_t n, int threads) { return int(std::min<index_t>((n + threads - 1) / threads, 65535 * 4)); }

}  // namespace

template <class T>
struct MultifrontalCuda<T>::State {
  std::shared_ptr<const Analysis> an;
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  cudaStream_t side[kSideStreams] = {};      // the solves of a level's large fronts run side by side,
  cublasHandle_t side_blas[kSideStreams] = {};  // a handle each (cuBLAS keeps per-handle workspace)
  cudaEvent_t fork = nullptr, join[kSideStreams] = {};
  cudaStream_t capture = nullptr;  // the sweeps are recorded from here into a graph
  cudaGraphExec_t graph = nullptr;
  index_t graph_nrhs = 0;
  const T* graph_xp = nullptr;
  cusolverDnHandle_t solver = nullptr;

  struct Group {  // equal-shape fronts of a level eliminated by batched routines
    int s = 0, u = 0, count = 0;
    cuda::DeviceArray<T*> l11, l21, cb;
    cuda::DeviceArray<int> info;
  };
  struct Level {
    index_t panel_begin = 0, panel_end = 0, cb_begin = 0, cb_end = 0;
    int parity = 0;
    cuda::DeviceArray<index_t> src, dst;   // original entries
    cuda::DeviceArray<ChildLink> links[2];  // first and second children
    int max_child_u[2] = {0, 0};
    cuda::DeviceArray<int> small;           // fronts eliminated in shared memory
    int small_count = 0, small_max_m = 0;
    std::vector<Group> groups;
    std::vector<int> singles;               // large fronts, one by one
    cuda::DeviceArray<int> solve_small;     // fronts whose triangle a block (or a warp) solves
    int solve_small_count = 0, solve_small_max_s = 0;
    bool warp_solve = false;                // a warp per front, L21 products included
    std::vector<int> solve_large;           // the others: cuBLAS
    cuda::DeviceArray<Chunk> forward_chunks, backward_chunks;  // every front's L21 in pieces
  };
  std::vector<FrontDev> fronts;  // host copy
  cuda::DeviceArray<FrontDev> d_fronts;
  cuda::DeviceArray<index_t> d_updates, d_position;
  cuda::DeviceArray<int> d_maps, d_info;
  std::vector<Level> levels;     // deepest first
  cuda::DeviceArray<T> panels, arena[2], values, work, xp;
  int work_entries = 0;
};

template <class T>
MultifrontalCuda<T>::MultifrontalCuda(std::shared_ptr<const Analysis> analysis, double memory_limit)
    : s_(std::make_unique<State>()) {
  State& st = *s_;
  st.an = std::move(analysis);
  const Analysis& an = *st.an;
  const auto& fr = an.fronts();
  const int nf = int(fr.size());
  const GridPattern& p = an.pattern();
  const int d = p.dofs;

  // 1. Levels by depth (a front's parent is one level up), deepest first.
  std::vector<int> depth(nf, 0);
  int max_depth = 0;
  for (int f = nf - 1; f >= 0; --f) {
    depth[f] = fr[f].parent < 0 ? 0 : depth[fr[f].parent] + 1;
    max_depth = std::max(max_depth, depth[f]);
  }
  std::vector<std::vector<int>> by_level(max_depth + 1);
  for (int f = 0; f < nf; ++f) by_level[max_depth - depth[f]].push_back(f);

  // 2. Device layout: panels in level order; contribution blocks in their level's arena.
  st.fronts.resize(nf);
  std::vector<index_t> updates;
  index_t panel = 0;
  index_t arena_size[2] = {0, 0};
  st.levels.resize(by_level.size());
  for (std::size_t lv = 0; lv < by_level.size(); ++lv) {
    auto& L = st.levels[lv];
    L.parity = int(lv % 2);
    L.panel_begin = panel;
    index_t cb = 0;
    for (const int f : by_level[lv]) {
      FrontDev& g = st.fronts[f];
      g.m = int(fr[f].rows());
      g.s = int(fr[f].size);
      g.u = int(fr[f].update.size());
      g.first = fr[f].first;
      g.panel = panel;
      g.cb = cb;
      g.update = index_t(updates.size());
      updates.insert(updates.end(), fr[f].update.begin(), fr[f].update.end());
      panel += index_t(g.m) * g.s;
      cb += index_t(g.u) * g.u;
    }
    L.panel_end = panel;
    L.cb_end = cb;
    arena_size[L.parity] = std::max(arena_size[L.parity], cb);
  }
  std::size_t free_bytes = 0, total_bytes = 0;
  TRIDSIM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const double need = double(panel + arena_size[0] + arena_size[1] + index_t(p.unknowns()) * 3) * sizeof(T) +
                      double(updates.size()) * sizeof(index_t);
  check_memory(need, memory_limit > 0 ? memory_limit : double(free_bytes), "the GPU factorization");
  st.panels.allocate(panel);
  for (int q = 0; q < 2; ++q) st.arena[q].allocate(std::max<index_t>(arena_size[q], 1));

  // 3. Per level: original entries, child links, how each front is eliminated and solved.
  const auto offsets = stencil_offsets(p);
  const int no = int(offsets.size());
  std::vector<int> opposite(no);
  for (int o = 0; o < no; ++o)
    for (int q = 0; q < no; ++q)
      if (offsets[q][0] == -offsets[o][0] && offsets[q][1] == -offsets[o][1] && offsets[q][2] == -offsets[o][2])
        opposite[o] = q;
  std::vector<int> maps;
  std::vector<index_t> map_base(nf, 0);
  for (int f = 0; f < nf; ++f) {
    map_base[f] = index_t(maps.size());
    maps.insert(maps.end(), fr[f].child_map.begin(), fr[f].child_map.end());
  }
  const auto& pos = an.position_of();
  const auto& unk = an.unknown_at();
  for (std::size_t lv = 0; lv < by_level.size(); ++lv) {
    auto& L = st.levels[lv];
    std::vector<index_t> src, dst;
    std::vector<ChildLink> links[2];
    std::vector<int> small, solve_small;
    std::vector<Chunk> forward_chunks, backward_chunks;
    std::map<std::pair<int, int>, std::vector<int>> shapes;
    for (const int f : by_level[lv]) {
      const Front& F = fr[f];
      const FrontDev& g = st.fronts[f];
      for (index_t c = 0; c < F.size; ++c) {
        const index_t v = unk[F.first + c], node = v / d;
        const int dv = int(v % d);
        const index_t i = node % p.n[0], j = (node / p.n[0]) % p.n[1], k = node / (p.n[0] * p.n[1]);
        for (int o = 0; o < no; ++o) {
          const index_t a = i + offsets[o][0], b = j + offsets[o][1], e = k + offsets[o][2];
          if (a < 0 || a >= p.n[0] || b < 0 || b >= p.n[1] || e < 0 || e >= p.n[2]) continue;
          const index_t wn = a + p.n[0] * (b + p.n[1] * e);  // x-fastest
          for (int dw = 0; dw < d; ++dw) {
            const index_t q = pos[wn * d + dw];
            if (q < F.first + c) continue;
            const index_t row =
                q < F.first + F.size
                    ? q - F.first
                    : F.size + index_t(std::lower_bound(F.update.begin(), F.update.end(), q) - F.update.begin());
            dst.push_back(g.panel + row + c * g.m);
            src.push_back((wn * no + opposite[o]) * d * d + dw * d + dv);  // block(wn, back)[dw][dv]
          }
        }
      }
      if (F.children.size() > 2) throw Error("sparse direct solver (GPU): a front with more than two children");
      index_t map_at = map_base[f];
      for (std::size_t ci = 0; ci < F.children.size(); ++ci) {
        const FrontDev& cg = st.fronts[F.children[ci]];
        ChildLink k;
        k.cb = cg.cb;
        k.uc = cg.u;
        k.map = map_at;
        k.panel = g.panel;
        k.pcb = g.cb;
        k.m = g.m;
        k.s = g.s;
        k.u = g.u;
        map_at += cg.u;
        links[ci].push_back(k);
        L.max_child_u[ci] = std::max(L.max_child_u[ci], cg.u);
      }
      if (index_t(g.m) * g.m * index_t(sizeof(T)) <= kSmallFrontBytes) {
        small.push_back(f);
        L.small_max_m = std::max(L.small_max_m, g.m);
      } else {
        shapes[{g.s, g.u}].push_back(f);
      }
      if (g.s <= kBlockSolve || (g.s <= kBlockSolveMax && by_level[lv].size() >= kBlockSolveLevel)) {
        solve_small.push_back(f);
        L.solve_small_max_s = std::max(L.solve_small_max_s, g.s);
      } else {
        L.solve_large.push_back(f);
      }
    }
    L.warp_solve = L.solve_large.empty() && L.solve_small_max_s <= kWarpSolve &&
                   by_level[lv].size() >= kWarpSolveLevel;
    if (!L.warp_solve)
      for (const int f : by_level[lv]) {
        const FrontDev& g = st.fronts[f];
        chunk_l21(f, g.u, g.s, kUpdateRows, kUpdateCols, false, forward_chunks);
        chunk_l21(f, g.u, g.s, kUpdateCols, kUpdateRows, true, backward_chunks);
      }
    L.src.upload(src.data(), index_t(src.size()));
    L.dst.upload(dst.data(), index_t(dst.size()));
    for (int c = 0; c < 2; ++c) L.links[c].upload(links[c].data(), index_t(links[c].size()));
    L.small.upload(small.data(), index_t(small.size()));
    L.small_count = int(small.size());
    L.solve_small.upload(solve_small.data(), index_t(solve_small.size()));
    L.solve_small_count = int(solve_small.size());
    L.forward_chunks.upload(forward_chunks.data(), index_t(forward_chunks.size()));
    L.backward_chunks.upload(backward_chunks.data(), index_t(backward_chunks.size()));
    for (auto& [shape, list] : shapes) {
      if (int(list.size()) < kBatchedGroup || shape.first > kBatchedMaxOwn) {
        L.singles.insert(L.singles.end(), list.begin(), list.end());
        continue;
      }
      typename State::Group g;
      g.s = shape.first;
      g.u = shape.second;
      g.count = int(list.size());
      std::vector<T*> l11, l21, cbs;
      for (const int f : list) {
        const FrontDev& q = st.fronts[f];
        l11.push_back(st.panels.p + q.panel);
        l21.push_back(st.panels.p + q.panel + q.s);
        cbs.push_back(st.arena[L.parity].p + q.cb);
      }
      g.l11.upload(l11.data(), g.count);
      g.l21.upload(l21.data(), g.count);
      g.cb.upload(cbs.data(), g.count);
      g.info.allocate(g.count);
      L.groups.push_back(std::move(g));
    }
  }
  st.d_fronts.upload(st.fronts.data(), nf);
  st.d_updates.upload(updates.data(), index_t(updates.size()));
  st.d_maps.upload(maps.data(), index_t(maps.size()));
  st.d_position.upload(pos.data(), index_t(pos.size()));
  st.d_info.allocate(1);

  // A blocking stream: ordered after the default stream, where the uploads and the callers' copies
  // run (a copy from pageable memory may return before its data has landed).
  TRIDSIM_CUDA(cudaStreamCreate(&st.stream));
  check_cublas(cublasCreate(&st.blas), "cublasCreate");
  check_cublas(cublasSetStream(st.blas, st.stream), "cublasSetStream");
  check_cusolver(cusolverDnCreate(&st.solver), "cusolverDnCreate");
  check_cusolver(cusolverDnSetStream(st.solver, st.stream), "cusolverDnSetStream");
  TRIDSIM_CUDA(cudaEventCreateWithFlags(&st.fork, cudaEventDisableTiming));
  TRIDSIM_CUDA(cudaStreamCreateWithFlags(&st.capture, cudaStreamNonBlocking));
  for (int k = 0; k < kSideStreams; ++k) {
    TRIDSIM_CUDA(cudaStreamCreateWithFlags(&st.side[k], cudaStreamNonBlocking));
    TRIDSIM_CUDA(cudaEventCreateWithFlags(&st.join[k], cudaEventDisableTiming));
    check_cublas(cublasCreate(&st.side_blas[k]), "cublasCreate");
    check_cublas(cublasSetStream(st.side_blas[k], st.side[k]), "cublasSetStream");
  }
  for (const auto& L : st.levels)
    for (const int f : L.singles) {
      int lw = 0;
      check_cusolver(potrf_buffer(st.solver, st.fronts[f].s, st.panels.p, st.fronts[f].m, &lw), "potrf_bufferSize");
      st.work_entries = std::max(st.work_entries, lw);
    }
  st.work.allocate(std::max(st.work_entries, 1));
  TRIDSIM_CUDA(cudaFuncSetAttribute(eliminate_small<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    kSmallFrontBytes));
}

template <class T>
MultifrontalCuda<T>::~MultifrontalCuda() {
  if (s_->solver) cusolverDnDestroy(s_->solver);
  if (s_->blas) cublasDestroy(s_->blas);
  for (int k = 0; k < kSideStreams; ++k) {
    if (s_->side_blas[k]) cublasDestroy(s_->side_blas[k]);
    if (s_->side[k]) cudaStreamDestroy(s_->side[k]);
    if (s_->join[k]) cudaEventDestroy(s_->join[k]);
  }
  if (s_->fork) cudaEventDestroy(s_->fork);
  if (s_->graph) cudaGraphExecDestroy(s_->graph);
  if (s_->capture) cudaStreamDestroy(s_->capture);
  if (s_->stream) cudaStreamDestroy(s_->stream);
}

template <class T>
double MultifrontalCuda<T>::device_bytes() const {
  return double(s_->panels.n + s_->arena[0].n + s_->arena[1].n) * sizeof(T);
}

template <class T>
void MultifrontalCuda<T>::factor(const StencilMatrix<T>& a) {
  State& st = *s_;
  const cudaStream_t sm = st.stream;
  st.values.upload(a.values.data(), index_t(a.values.size()));
  TRIDSIM_CUDA(cudaMemsetAsync(st.d_info.p, 0, sizeof(int), sm));
  const T one = 1, minus_one = -1;
  for (std::size_t lv = 0; lv < st.levels.size(); ++lv) {
    auto& L = st.levels[lv];
    T* own = st.arena[L.parity].p;
    T* below = st.arena[1 - L.parity].p;
    // 1. Assembly into zeroed panels and blocks.
    TRIDSIM_CUDA(cudaMemsetAsync(st.panels.p + L.panel_begin, 0, sizeof(T) * (L.panel_end - L.panel_begin), sm));
    if (L.cb_end > 0) TRIDSIM_CUDA(cudaMemsetAsync(own, 0, sizeof(T) * L.cb_end, sm));
    if (L.src.n > 0) {
      assemble_originals<T><<<blocks_for(L.src.n, 256), 256, 0, sm>>>(st.values.p, L.src.p, L.dst.p, L.src.n,
                                                                          st.panels.p);
      TRIDSIM_CUDA_LAUNCH();
    }
    for (int c = 0; c < 2; ++c) {
      if (L.links[c].n == 0 || L.max_child_u[c] == 0) continue;
      const dim3 grid(unsigned(std::min(L.max_child_u[c], 256)), unsigned(std::min<index_t>(L.links[c].n, 65535)));
      extend_add<T><<<grid, 128, 0, sm>>>(L.links[c].p, int(L.links[c].n), st.d_maps.p, below, st.panels.p, own);
      TRIDSIM_CUDA_LAUNCH();
    }
    // 2. Elimination.
    if (L.small_count > 0) {
      const int bytes = L.small_max_m * L.small_max_m * int(sizeof(T));
      eliminate_small<T><<<L.small_count, 256, bytes, sm>>>(st.d_fronts.p, L.small.p, st.panels.p, own, st.d_info.p);
      TRIDSIM_CUDA_LAUNCH();
    }
    for (auto& g : L.groups) {
      const int m = g.s + g.u;
      check_cusolver(potrf_batched(st.solver, g.s, g.l11.p, m, g.info.p, g.count), "potrfBatched");
      if (g.u == 0) continue;
      check_cublas(trsm_batched(st.blas, g.u, g.s, &one, g.l11.p, m, g.l21.p, m, g.count), "trsmBatched");
      check_cublas(gemm_batched(st.blas, g.u, g.s, &minus_one, g.l21.p, m, &one, g.cb.p, g.u, g.count),
                   "gemmBatched");
    }
    for (const int f : L.singles) {
      const FrontDev& q = st.fronts[f];
      T* l = st.panels.p + q.panel;
      check_cusolver(potrf(st.solver, q.s, l, q.m, st.work.p, st.work_entries, st.d_info.p), "potrf");
      if (q.u == 0) continue;
      check_cublas(trsm(st.blas, CUBLAS_SIDE_RIGHT, CUBLAS_OP_T, q.u, q.s, &one, l, q.m, l + q.s, q.m), "trsm");
      check_cublas(syrk(st.blas, q.u, q.s, &minus_one, l + q.s, q.m, &one, own + q.cb, q.u), "syrk");
    }
  }
  // Not positive definite anywhere? (the kernels flag, the batched routines report per matrix)
  int bad = 0;
  TRIDSIM_CUDA(cudaMemcpyAsync(&bad, st.d_info.p, sizeof(int), cudaMemcpyDeviceToHost, sm));
  TRIDSIM_CUDA(cudaStreamSynchronize(sm));
  for (const auto& L : st.levels)
    for (const auto& g : L.groups) {
      std::vector<int> info(std::size_t(g.count), 0);
      TRIDSIM_CUDA(cudaMemcpy(info.data(), g.info.p, sizeof(int) * g.count, cudaMemcpyDeviceToHost));
      for (const int i : info) bad = bad ? bad : i;
    }
  if (bad != 0) throw SingularMatrix("sparse direct solver (GPU): the matrix is not positive definite");
}

// Both sweeps over the levels on st.xp, nrhs columns, launched into stream sm.
template <class T>
void MultifrontalCuda<T>::sweep(cudaStream_t sm, index_t nrhs) {
  State& st = *s_;
  const index_t n = st.an->unknowns();
  T* xp = st.xp.p;
  const int r = int(nrhs);
  // A level's triangles: the small ones by one kernel, the large ones by cuBLAS on the side streams.
  const auto diagonal = [&](const typename State::Level& L, bool forward) {
    const int sides = std::min<int>(kSideStreams, int(L.solve_large.size()));
    if (sides > 0) TRIDSIM_CUDA(cudaEventRecord(st.fork, sm));
    const T one = 1;
    for (std::size_t i = 0; i < L.solve_large.size(); ++i) {
      const int k = int(i % kSideStreams);
      if (int(i) == k) TRIDSIM_CUDA(cudaStreamWaitEvent(st.side[k], st.fork, 0));
      const FrontDev& q = st.fronts[L.solve_large[i]];
      check_cublas(trsm(st.side_blas[k], CUBLAS_SIDE_LEFT, forward ? CUBLAS_OP_N : CUBLAS_OP_T, q.s, r, &one,
                        st.panels.p + q.panel, q.m, xp + q.first, int(n)),
                   "trsm");
    }
    if (L.warp_solve) {
      const auto kernel = forward ? forward_warp<T> : backward_warp<T>;
      kernel<<<(L.solve_small_count + 3) / 4, 128, 0, sm>>>(st.d_fronts.p, L.solve_small.p, L.solve_small_count,
                                                          st.panels.p, st.d_updates.p, xp, n, r);
      TRIDSIM_CUDA_LAUNCH();
    } else if (L.solve_small_count > 0) {
      const std::size_t y_bytes = sizeof(T) * std::size_t(L.solve_small_max_s);
      const bool wide = L.solve_small_max_s > 128;  // many rows under each tile: more threads
      using Kernel = void (*)(const FrontDev*, const int*, const T*, T*, index_t, int);
      const Kernel kernel = forward ? (wide ? diagonal_forward<T, 512> : diagonal_forward<T, 128>)
                                    : (wide ? diagonal_backward<T, 256> : diagonal_backward<T, 128>);
      const int threads = wide ? (forward ? 512 : 256) : 128;
      kernel<<<L.solve_small_count, threads, y_bytes, sm>>>(st.d_fronts.p, L.solve_small.p, st.panels.p, xp,
                                                                    n, r);
      TRIDSIM_CUDA_LAUNCH();
    }
    for (int k = 0; k < sides; ++k) {
      TRIDSIM_CUDA(cudaEventRecord(st.join[k], st.side[k]));
      TRIDSIM_CUDA(cudaStreamWaitEvent(sm, st.join[k], 0));
    }
  };
  for (const auto& L : st.levels) {  // forward, deepest first
    diagonal(L, true);
    if (L.forward_chunks.n > 0) {
      update_forward<T><<<unsigned(L.forward_chunks.n), kUpdateRows, 0, sm>>>(
          st.d_fronts.p, L.forward_chunks.p, st.panels.p, st.d_updates.p, xp, n, r);
      TRIDSIM_CUDA_LAUNCH();
    }
  }
  for (auto L = st.levels.rbegin(); L != st.levels.rend(); ++L) {  // backward, the root first
    if (L->backward_chunks.n > 0) {
      update_backward<T><<<unsigned(L->backward_chunks.n), kUpdateRows, 0, sm>>>(
          st.d_fronts.p, L->backward_chunks.p, st.panels.p, st.d_updates.p, xp, n, r);
      TRIDSIM_CUDA_LAUNCH();
    }
    diagonal(*L, false);
  }
}

template <class T>
void MultifrontalCuda<T>::solve_device(T* x, index_t nrhs) {
  State& st = *s_;
  const cudaStream_t sm = st.stream;
  const index_t n = st.an->unknowns();
  if (st.xp.n < n * nrhs) st.xp.allocate(n * nrhs);
  const int r = int(nrhs);
  permute<T><<<blocks_for(n * nrhs, 256), 256, 0, sm>>>(st.d_position.p, n, r, x, st.xp.p, true);
  TRIDSIM_CUDA_LAUNCH();
  // The sweeps' hundreds of small launches as one graph, captured once per column count and
  // buffer (refactorizations keep every address).
  if (st.graph && (st.graph_nrhs != nrhs || st.graph_xp != st.xp.p)) {
    cudaGraphExecDestroy(st.graph);
    st.graph = nullptr;
  }
  if (!st.graph) {
    cudaGraph_t g = nullptr;
    TRIDSIM_CUDA(cudaStreamBeginCapture(st.capture, cudaStreamCaptureModeThreadLocal));
    try {
      sweep(st.capture, nrhs);
    } catch (...) {
      cudaStreamEndCapture(st.capture, &g);
      if (g) cudaGraphDestroy(g);
      throw;
    }
    TRIDSIM_CUDA(cudaStreamEndCapture(st.capture, &g));
    const cudaError_t e = cudaGraphInstantiate(&st.graph, g, 0);
    cudaGraphDestroy(g);
    TRIDSIM_CUDA(e);
    st.graph_nrhs = nrhs;
    st.graph_xp = st.xp.p;
  }
  TRIDSIM_CUDA(cudaGraphLaunch(st.graph, sm));
  permute<T><<<blocks_for(n * nrhs, 256), 256, 0, sm>>>(st.d_position.p, n, r, st.xp.p, x, false);
  TRIDSIM_CUDA_LAUNCH();
  TRIDSIM_CUDA(cudaStreamSynchronize(sm));
}

template <class T>
void MultifrontalCuda<T>::solve_host(T* b, index_t nrhs) {
  const index_t n = s_->an->unknowns();
  cuda::DeviceArray<T> x;
  x.upload(b, n * nrhs);
  solve_device(x.p, nrhs);
  TRIDSIM_CUDA(cudaMemcpy(b, x.p, sizeof(T) * std::size_t(n * nrhs), cudaMemcpyDeviceToHost));
}

template class MultifrontalCuda<float>;
template class MultifrontalCuda<double>;

}  // namespace tridsim::sparse
