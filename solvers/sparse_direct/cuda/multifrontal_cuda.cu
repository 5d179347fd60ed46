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
constexpr int kSmallSolve = 512;             // fronts with at most this many own unknowns: a block each
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

// The solves, level by level. A front's triangle L11 is solved by one block (its own unknowns
// y in shared memory, L11 in 32-column tiles: a tile in shared memory solved by one warp, the
// rest of the block applying it to the rows below); the products with L21, which carry most of
// the bytes, are spread over many blocks per front so that a level of few large fronts still
// reads at the memory's bandwidth.
constexpr int kSolveThreads = 128;
constexpr int kForwardRows = 128;    // rows of L21 per block in the forward update
constexpr int kBackwardColumns = 4;  // columns of L21 per block in the backward update (a warp each)

struct Chunk {  // a piece of one front's L21 product
  int front, begin;
};

template <class T>
__global__ void diagonal_forward(const FrontDev* fronts, const int* list, const T* panels, T* x, index_t ldx,
                                 int nrhs) {
  extern __shared__ unsigned char smem_raw[];
  T* y = reinterpret_cast<T*>(smem_raw);
  __shared__ T tile[32 * 33];
  const FrontDev f = fronts[list[blockIdx.x]];
  const int m = f.m, s = f.s, tid = threadIdx.x, lane = tid % 32;
  const T* l = panels + f.panel;
  for (int r = 0; r < nrhs; ++r) {
    T* xr = x + r * ldx + f.first;
    for (int i = tid; i < s; i += kSolveThreads) y[i] = xr[i];
    for (int k0 = 0; k0 < s; k0 += 32) {
      const int kb = min(32, s - k0);
      for (int e = tid; e < 32 * 32; e += kSolveThreads) {
        const int i = e % 32, j = e / 32;
        if (i < kb && j < kb && i >= j) tile[i + j * 33] = l[(k0 + i) + index_t(k0 + j) * m];
      }
      __syncthreads();
      if (tid < 32) {
        T v = 0;
        if (lane < kb) v = y[k0 + lane];
        for (int k = 0; k < kb; ++k) {
          const T yk = __shfl_sync(0xffffffffu, v, k) / tile[k + k * 33];
          if (lane == k) v = yk;
          else if (lane > k && lane < kb) v -= tile[lane + k * 33] * yk;
        }
        if (lane < kb) y[k0 + lane] = v;
      }
      __syncthreads();
      for (int i = k0 + kb + tid; i < s; i += kSolveThreads) {
        T acc = 0;
        for (int k = 0; k < kb; ++k) acc += l[i + index_t(k0 + k) * m] * y[k0 + k];
        y[i] -= acc;
      }
      __syncthreads();
    }
    for (int i = tid; i < s; i += kSolveThreads) xr[i] = y[i];
    __syncthreads();
  }
}

// x(update) -= L21 y for kForwardRows rows of one front (atomics: fronts of a level share ancestors).
template <class T>
__global__ void update_forward(const FrontDev* fronts, const Chunk* chunks, const T* panels, const index_t* updates,
                               T* x, index_t ldx, int nrhs) {
  const Chunk c = chunks[blockIdx.x];
  const FrontDev f = fronts[c.front];
  const int i = c.begin + threadIdx.x;
  if (i >= f.u) return;
  const T* row = panels + f.panel + f.s + i;
  for (int r = 0; r < nrhs; ++r) {
    const T* y = x + r * ldx + f.first;
    T acc = 0;
    for (int k = 0; k < f.s; ++k) acc += row[index_t(k) * f.m] * y[k];
    atomicAdd(x + r * ldx + updates[f.update + i], -acc);
  }
}

// y -= L21^T x(update) for kBackwardColumns columns of one front, a warp per column.
template <class T>
__global__ void update_backward(const FrontDev* fronts, const Chunk* chunks, const T* panels, const index_t* updates,
                                T* x, index_t ldx, int nrhs) {
  const Chunk c = chunks[blockIdx.x];
  const FrontDev f = fronts[c.front];
  const int k = c.begin + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (k >= f.s) return;
  const T* col = panels + f.panel + f.s + index_t(k) * f.m;
  const index_t* up = updates + f.update;
  for (int r = 0; r < nrhs; ++r) {
    T* xr = x + r * ldx;
    T acc = 0;
    for (int i = lane; i < f.u; i += 32) acc += col[i] * xr[up[i]];
    for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (lane == 0) xr[f.first + k] -= acc;
  }
}

// y = L11^-T y, tiles from the last.
template <class T>
__global__ void diagonal_backward(const FrontDev* fronts, const int* list, const T* panels, T* x, index_t ldx,
                                  int nrhs) {
  extern __shared__ unsigned char smem_raw[];
  T* y = reinterpret_cast<T*>(smem_raw);
  __shared__ T tile[32 * 33];
  const FrontDev f = fronts[list[blockIdx.x]];
  const int m = f.m, s = f.s, tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  constexpr int warps = kSolveThreads / 32;
  const T* l = panels + f.panel;
  for (int r = 0; r < nrhs; ++r) {
    T* xr = x + r * ldx + f.first;
    for (int i = tid; i < s; i += kSolveThreads) y[i] = xr[i];
    __syncthreads();
    for (int k0 = ((s - 1) / 32) * 32; k0 >= 0; k0 -= 32) {
      const int kb = min(32, s - k0);
      for (int k = k0 + warp; k < k0 + kb; k += warps) {  // the rows below the tile, solved already
        T acc = 0;
        for (int i = k0 + kb + lane; i < s; i += 32) acc += l[i + index_t(k) * m] * y[i];
        for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o);
        if (lane == 0) y[k] -= acc;
      }
      for (int e = tid; e < 32 * 32; e += kSolveThreads) {
        const int i = e % 32, j = e / 32;
        if (i < kb && j < kb && i >= j) tile[i + j * 33] = l[(k0 + i) + index_t(k0 + j) * m];
      }
      __syncthreads();
      if (tid < 32) {
        T v = 0;
        if (lane < kb) v = y[k0 + lane];
        for (int i = kb - 1; i >= 0; --i) {
          const T yi = __shfl_sync(0xffffffffu, v, i) / tile[i + i * 33];
          if (lane == i) v = yi;
          else if (lane < i) v -= tile[i + lane * 33] * yi;
        }
        if (lane < kb) y[k0 + lane] = v;
      }
      __syncthreads();
    }
    for (int i = tid; i < s; i += kSolveThreads) xr[i] = y[i];
    __syncthreads();
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

int blocks_for(index_t n, int threads) { return int(std::min<index_t>((n + threads - 1) / threads, 65535 * 4)); }

}  // namespace

template <class T>
struct MultifrontalCuda<T>::State {
  std::shared_ptr<const Analysis> an;
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
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
    cuda::DeviceArray<int> solve_small;     // fronts whose triangle a block solves
    int solve_small_count = 0, solve_small_max_s = 0;
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
      for (int b = 0; b < g.u; b += kForwardRows) forward_chunks.push_back({f, b});
      if (g.u > 0)
        for (int b = 0; b < g.s; b += kBackwardColumns) backward_chunks.push_back({f, b});
      if (g.s <= kSmallSolve) {
        solve_small.push_back(f);
        L.solve_small_max_s = std::max(L.solve_small_max_s, g.s);
      } else {
        L.solve_large.push_back(f);
      }
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

  TRIDSIM_CUDA(cudaStreamCreateWithFlags(&st.stream, cudaStreamNonBlocking));
  check_cublas(cublasCreate(&st.blas), "cublasCreate");
  check_cublas(cublasSetStream(st.blas, st.stream), "cublasSetStream");
  check_cusolver(cusolverDnCreate(&st.solver), "cusolverDnCreate");
  check_cusolver(cusolverDnSetStream(st.solver, st.stream), "cusolverDnSetStream");
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

template <class T>
void MultifrontalCuda<T>::solve_device(T* x, index_t nrhs) {
  State& st = *s_;
  const cudaStream_t sm = st.stream;
  const index_t n = st.an->unknowns();
  if (st.xp.n < n * nrhs) st.xp.allocate(n * nrhs);
  T* xp = st.xp.p;
  const T one = 1;
  permute<T><<<blocks_for(n * nrhs, 256), 256, 0, sm>>>(st.d_position.p, n, int(nrhs), x, xp, true);
  TRIDSIM_CUDA_LAUNCH();
  const std::size_t y_bytes = sizeof(T) * std::size_t(kSmallSolve + 32);
  for (auto& L : st.levels) {  // forward, deepest first
    if (L.solve_small_count > 0) {
      diagonal_forward<T><<<L.solve_small_count, kSolveThreads, y_bytes, sm>>>(st.d_fronts.p, L.solve_small.p,
                                                                               st.panels.p, xp, n, int(nrhs));
      TRIDSIM_CUDA_LAUNCH();
    }
    for (const int f : L.solve_large) {
      const FrontDev& q = st.fronts[f];
      check_cublas(trsm(st.blas, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, q.s, int(nrhs), &one, st.panels.p + q.panel, q.m,
                        xp + q.first, int(n)),
                   "trsm");
    }
    if (L.forward_chunks.n > 0) {
      update_forward<T><<<unsigned(L.forward_chunks.n), kForwardRows, 0, sm>>>(
          st.d_fronts.p, L.forward_chunks.p, st.panels.p, st.d_updates.p, xp, n, int(nrhs));
      TRIDSIM_CUDA_LAUNCH();
    }
  }
  for (auto L = st.levels.rbegin(); L != st.levels.rend(); ++L) {  // backward, the root first
    if (L->backward_chunks.n > 0) {
      update_backward<T><<<unsigned(L->backward_chunks.n), 32 * kBackwardColumns, 0, sm>>>(
          st.d_fronts.p, L->backward_chunks.p, st.panels.p, st.d_updates.p, xp, n, int(nrhs));
      TRIDSIM_CUDA_LAUNCH();
    }
    for (const int f : L->solve_large) {
      const FrontDev& q = st.fronts[f];
      check_cublas(trsm(st.blas, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, q.s, int(nrhs), &one, st.panels.p + q.panel, q.m,
                        xp + q.first, int(n)),
                   "trsm");
    }
    if (L->solve_small_count > 0) {
      diagonal_backward<T><<<L->solve_small_count, kSolveThreads, y_bytes, sm>>>(st.d_fronts.p, L->solve_small.p,
                                                                                 st.panels.p, xp, n, int(nrhs));
      TRIDSIM_CUDA_LAUNCH();
    }
  }
  permute<T><<<blocks_for(n * nrhs, 256), 256, 0, sm>>>(st.d_position.p, n, int(nrhs), xp, x, false);
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
