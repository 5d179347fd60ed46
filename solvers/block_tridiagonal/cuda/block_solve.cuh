#pragma once
// The GPU block-tridiagonal line solvers behind the contract of block_rows.hpp (namespace
// tridsim::blocktri::gpu): lines (LineSet), a block source, a `load` functor that forms each
// right-hand side component and a `store` functor that writes or fuses each solution component.
// Include from .cu files only.
//
//   load(o, q, r, s) -> T      component s of the right-hand side of row r of line q (node o)
//   store(o, q, r, s, x)       component s of the solution of that row
// Block sources: BlockArrays<T> (stored blocks; 16-byte vector loads when M is even and the
// arrays are aligned), a generator (host-device entry(o, r, i, j, a, b, c)), and UniformBlocks<T>
// (a factored UniformBlockMatrix on the device, UniformBlocksDevice::view()).
//
// Kernels (BlockGpuAlgorithm; Laszlo, Giles & Appleyard 2014, block sections):
//  - thread_per_system: block Thomas, one thread per line holding whole M x M blocks in
//    registers (M <= 4). C*_r and d*_r go to a scratch array interleaved by line (coalesced).
//  - work_sharing: block Thomas, M threads per line (floor(32/M) lines per warp). Thread j holds
//    column j of P_r, C_r and C*_r, every thread the vector d (replicated); the pivot column is
//    broadcast by __shfl_sync and Gauss-Jordan runs on [P | C | d]; with partial pivoting every
//    thread takes the argmax of the broadcast column (the same row in all M threads, no extra
//    shuffles). C*_r is written column by column and read back row by row, both coalesced.
//  - block_pcr (hybrid): lines cut into segments of kSegment rows, one group of M threads per
//    segment; a forward and a backward elimination leave every row coupled only to the segment's
//    first and last unknowns; those form a block-tridiagonal system of 2 rows per segment, solved
//    by the same solver (recursively), and a last pass expands the segments. For few long lines.
// Uniform matrices run thread_per_system (M <= 4) or work_sharing; d*_r is their only scratch.
// Pivoting::partial exchanges rows inside the pivot block (never across block rows).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "solvers/block_tridiagonal/block_gpu_algorithm.hpp"
#include "solvers/block_tridiagonal/block_rows.hpp"
#include "solvers/block_tridiagonal/cuda/block_batched_cuda.hpp"
#include "solvers/tridiagonal/cuda/kernel_support.cuh"

namespace tridsim::blocktri::gpu {

using tridiag::detail::Geometry;

template <class B>
inline constexpr bool is_arrays_v = false;
template <class T>
inline constexpr bool is_arrays_v<BlockArrays<T>> = true;
template <class B>
inline constexpr bool is_uniform_v = false;
template <class T>
inline constexpr bool is_uniform_v<UniformBlocks<T>> = true;

namespace detail {

using tridiag::detail::check_cuda;
using tridiag::detail::line_base;
#define BLOCKTRI_CUDA(call) ::tridsim::tridiag::detail::check_cuda((call), #call, __FILE__, __LINE__)

constexpr int kThreads = 128;   // threads per block of every kernel
constexpr int kSegment = 32;    // rows per segment of the hybrid
constexpr int kMinBlocks = 3;   // caps the registers of the block-Thomas kernels (occupancy)

template <class T>
__device__ __forceinline__ T shfl(T v, int src) {
  return __shfl_sync(0xffffffffu, v, src);
}
template <class T>
__device__ __forceinline__ void swap_if(bool s, T& x, T& y) {
  const T t = x;
  x = s ? y : x;
  y = s ? t : y;
}
// v[j] for a runtime j without local memory.
template <class T, int M>
__device__ __forceinline__ T pick(const T (&v)[M], int j) {
  T out = v[0];
#pragma unroll
  for (int i = 1; i < M; ++i) out = i == j ? v[i] : out;
  return out;
}

// ---- prefetching --------------------------------------------------------------------------------
//
// The recurrences are a chain of dependent rows and few warps run per multiprocessor, so every
// row's global loads would wait a full DRAM latency. The kernels ask L2 for the data of the row
// kAhead rows ahead (prefetch.global.L2: no registers held).
constexpr int kAhead = 8;

__device__ __forceinline__ void prefetch_l2(const void* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

// The element a load or store of the contract's array accesses touches (nullptr for other functors).
template <class T, class Access>
__device__ __forceinline__ const T* access_address(const Access& acc, index_t o, int s) {
  if constexpr (std::is_same_v<Access, InterleavedAccess<T>>) return acc.p + o * acc.m + s;
  else if constexpr (std::is_same_v<Access, PlanarAccess<T>>) return acc.p + s * acc.plane + o;
  else return nullptr;
}

// Thread j of a group: the 128-byte lines of block row (node o) of stored blocks, and component j
// of the right-hand side.
template <class T, int M, class Blocks, class Load>
__device__ __forceinline__ void prefetch_row(const Blocks& bl, const Load& load, index_t o, int j) {
  if constexpr (is_arrays_v<Blocks>) {
    constexpr int kBytes = int(sizeof(T)) * M * M;
    if (j * 128 < kBytes) {
      const index_t at = o * (M * M) + j * (128 / int(sizeof(T)));
      prefetch_l2(bl.a + at);
      prefetch_l2(bl.b + at);
      prefetch_l2(bl.c + at);
    }
  }
  if (const T* p = access_address<T>(load, o, j)) prefetch_l2(p);
}

// ---- block sources -----------------------------------------------------------------------------

__device__ __forceinline__ double comp(const double2& v, int t) { return t == 0 ? v.x : v.y; }
__device__ __forceinline__ float comp(const float4& v, int t) {
  return t == 0 ? v.x : t == 1 ? v.y : t == 2 ? v.z : v.w;
}

// The whole block of node o, row-major array p; 16-byte loads when M is even and `vec` (the
// arrays are 16-byte aligned: with M even every block then is).
template <class T, int M>
__device__ __forceinline__ void load_block(const T* __restrict__ p, index_t o, bool vec, T (&X)[M][M]) {
  const T* src = p + o * (M * M);
  if constexpr (M % 2 == 0) {
    if (vec) {
      using V = std::conditional_t<sizeof(T) == 8, double2, float4>;
      constexpr int W = int(sizeof(V) / sizeof(T));
#pragma unroll
      for (int k = 0; k < M * M / W; ++k) {
        const V v = __ldg(reinterpret_cast<const V*>(src) + k);
#pragma unroll
        for (int t = 0; t < W; ++t) X[(k * W + t) / M][(k * W + t) % M] = comp(v, t);
      }
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < M; ++i)
#pragma unroll
    for (int j = 0; j < M; ++j) X[i][j] = __ldg(src + i * M + j);
}

// Block `which` (0: A, 1: B, 2: C) of row r (node o), whole.
template <int Which, class T, int M, class Blocks>
__device__ __forceinline__ void full_block(const Blocks& bl, index_t o, index_t r, bool vec, T (&X)[M][M]) {
  if constexpr (is_arrays_v<Blocks>) {
    load_block<T, M>(Which == 0 ? bl.a : Which == 1 ? bl.b : bl.c, o, vec, X);
  } else {
#pragma unroll
    for (int i = 0; i < M; ++i)
#pragma unroll
      for (int k = 0; k < M; ++k) {
        T a, b, c;
        bl.entry(o, r, i, k, a, b, c);
        X[i][k] = Which == 0 ? a : Which == 1 ? b : c;
      }
  }
}

// Row i of block `which` of row r (node o): M consecutive values (8- or 16-byte loads when
// M is even and `vec`), so that a thread never holds a whole block.
template <int Which, class T, int M, class Blocks>
__device__ __forceinline__ void block_row(const Blocks& bl, index_t o, index_t r, int i, bool vec, T (&x)[M]) {
  if constexpr (is_arrays_v<Blocks>) {
    const T* src = (Which == 0 ? bl.a : Which == 1 ? bl.b : bl.c) + o * (M * M) + i * M;
    if constexpr (M % 2 == 0) {
      if (vec) {
        using V = std::conditional_t<sizeof(T) == 8, double2, float2>;
#pragma unroll
        for (int k = 0; k < M / 2; ++k) {
          const V v = __ldg(reinterpret_cast<const V*>(src) + k);
          x[2 * k] = v.x;
          x[2 * k + 1] = v.y;
        }
        return;
      }
    }
#pragma unroll
    for (int k = 0; k < M; ++k) x[k] = __ldg(src + k);
  } else {
#pragma unroll
    for (int k = 0; k < M; ++k) {
      T a, b, c;
      bl.entry(o, r, i, k, a, b, c);
      x[k] = Which == 0 ? a : Which == 1 ? b : c;
    }
  }
}

// Column j of blocks B and C of row r (node o).
template <class T, int M, class Blocks>
__device__ __forceinline__ void block_columns(const Blocks& bl, index_t o, index_t r, int j, T (&b)[M], T (&c)[M]) {
  if constexpr (is_arrays_v<Blocks>) {
    const index_t at = o * (M * M) + j;
#pragma unroll
    for (int i = 0; i < M; ++i) {
      b[i] = __ldg(bl.b + at + i * M);
      c[i] = __ldg(bl.c + at + i * M);
    }
  } else {
#pragma unroll
    for (int i = 0; i < M; ++i) {
      T a;
      bl.entry(o, r, i, j, a, b[i], c[i]);
    }
  }
}
template <class T, int M, class Blocks>
__device__ __forceinline__ void block_column_a(const Blocks& bl, index_t o, index_t r, int j, T (&a)[M]) {
  if constexpr (is_arrays_v<Blocks>) {
#pragma unroll
    for (int i = 0; i < M; ++i) a[i] = __ldg(bl.a + o * (M * M) + i * M + j);
  } else {
#pragma unroll
    for (int i = 0; i < M; ++i) {
      T b, c;
      bl.entry(o, r, i, j, a[i], b, c);
    }
  }
}

// ---- dense solves ------------------------------------------------------------------------------

// P X = R by Gauss-Jordan for the M threads of a group (lanes lead .. lead+M-1): each thread holds
// one column of P (p) and K columns of R (rc), and every thread the column d. On return rc and d
// hold P^{-1} R. Every lane of the warp must call it (full-mask shuffles).
template <class T, int M, int K>
__device__ __forceinline__ void group_solve(T (&p)[M], T (&rc)[K][M], T (&d)[M], int lead, bool pivot) {
#pragma unroll
  for (int col = 0; col < M; ++col) {
    T piv[M];
#pragma unroll
    for (int i = 0; i < M; ++i) piv[i] = shfl(p[i], lead + col);
    if (pivot) {
      int best = col;
      T big = fabs(piv[col]);
#pragma unroll
      for (int i = col + 1; i < M; ++i)
        if (fabs(piv[i]) > big) {
          big = fabs(piv[i]);
          best = i;
        }
#pragma unroll
      for (int i = col + 1; i < M; ++i) {
        const bool s = i == best;
        swap_if(s, p[i], p[col]);
        swap_if(s, piv[i], piv[col]);
        swap_if(s, d[i], d[col]);
#pragma unroll
        for (int k = 0; k < K; ++k) swap_if(s, rc[k][i], rc[k][col]);
      }
    }
    const T inv = tridiag::detail::reciprocal(piv[col]);
    p[col] *= inv;
    d[col] *= inv;
#pragma unroll
    for (int k = 0; k < K; ++k) rc[k][col] *= inv;
#pragma unroll
    for (int i = 0; i < M; ++i)
      if (i != col) {
        p[i] -= piv[i] * p[col];
        d[i] -= piv[i] * d[col];
#pragma unroll
        for (int k = 0; k < K; ++k) rc[k][i] -= piv[i] * rc[k][col];
      }
  }
}

// P X = [C | d] in one thread (Gauss-Jordan); C and d are overwritten with the solution.
template <class T, int M>
__device__ __forceinline__ void local_solve(T (&P)[M][M], T (&C)[M][M], T (&d)[M], bool pivot) {
#pragma unroll
  for (int col = 0; col < M; ++col) {
    if (pivot) {
      int best = col;
      T big = fabs(P[col][col]);
#pragma unroll
      for (int i = col + 1; i < M; ++i)
        if (fabs(P[i][col]) > big) {
          big = fabs(P[i][col]);
          best = i;
        }
#pragma unroll
      for (int i = col + 1; i < M; ++i) {
        const bool s = i == best;
#pragma unroll
        for (int k = 0; k < M; ++k) {
          swap_if(s, P[i][k], P[col][k]);
          swap_if(s, C[i][k], C[col][k]);
        }
        swap_if(s, d[i], d[col]);
      }
    }
    const T inv = tridiag::detail::reciprocal(P[col][col]);
#pragma unroll
    for (int k = 0; k < M; ++k) {
      P[col][k] *= inv;
      C[col][k] *= inv;
    }
    d[col] *= inv;
#pragma unroll
    for (int i = 0; i < M; ++i)
      if (i != col) {
        const T f = P[i][col];
#pragma unroll
        for (int k = 0; k < M; ++k) {
          P[i][k] -= f * P[col][k];
          C[i][k] -= f * C[col][k];
        }
        d[i] -= f * d[col];
      }
  }
}

// Lanes of a warp as groups of M threads: group `grp` (G = floor(32/M) per warp; lanes past the
// last group are idle and follow group 0), thread j of it, its first lane `lead`.
template <int M>
struct GroupLane {
  static constexpr int G = 32 / M;
  int grp, j, lead;
  bool idle;
  __device__ GroupLane() {
    const int lane = int(threadIdx.x) & 31;
    grp = lane / M;
    idle = grp >= G;
    j = idle ? lane % M : lane - grp * M;
    lead = idle ? 0 : grp * M;
  }
  // The first item of this lane's warp, and this lane's item (items are lines or segments).
  __device__ index_t warp_first() const { return index_t(blockIdx.x * (kThreads / 32) + threadIdx.x / 32) * G; }
};

// ---- block Thomas, M threads per line ------------------------------------------------------------
//
// Lines q_begin .. q_begin+q_count-1 of g; scratch per line and row: C*_r at
// cs[((r*M + j)*q_count + l)*M + i] = C*_r(i, j) (thread j writes its column as M consecutive
// values; in the back substitution thread i reads row i, lanes consecutive), d*_r at
// ds[(r*q_count + l)*M + i].
template <class T, int M, class Blocks, class Load, class Store>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    ws_thomas(Geometry g, index_t q_begin, index_t q_count, Blocks bl, bool vec, bool pivot, Load load, Store store,
              T* __restrict__ cs, T* __restrict__ ds) {
  const GroupLane<M> gl;
  const index_t first = gl.warp_first();
  if (first >= q_count) return;  // whole warps
  const index_t l = first + gl.grp;
  const bool active = !gl.idle && l < q_count;
  const index_t q = q_begin + l, s = g.s;
  const index_t base = active ? line_base(g, q) : 0;
  const int n = int(g.n), j = gl.j;
  T cprev[M], d[M];
#pragma unroll
  for (int i = 0; i < M; ++i) cprev[i] = d[i] = T(0);
  // (Prefetching measured faster for M <= 2 only: the larger kernels are limited by issue, and
  // the extra instructions cost more than the latency they hide.)
  constexpr bool kPrefetch = M <= 2;
  if (kPrefetch && active)
    for (int r = 0; r < kAhead && r < n; ++r) prefetch_row<T, M>(bl, load, base + index_t(r) * s, j);
  for (int r = 0; r < n; ++r) {
    const index_t o = base + index_t(r) * s;
    T b[M], c[M], dv = T(0);
    if (active) {
      if (kPrefetch && r + kAhead < n) prefetch_row<T, M>(bl, load, o + index_t(kAhead) * s, j);
      block_columns<T, M>(bl, o, r, j, b, c);
      dv = load(o, q, index_t(r), j);
    } else {
#pragma unroll
      for (int i = 0; i < M; ++i) b[i] = c[i] = T(i == j);
    }
    T p[M], rc[1][M], rhs[M];
#pragma unroll
    for (int i = 0; i < M; ++i) rhs[i] = shfl(dv, gl.lead + i);
    const bool use_a = active && r > 0;
#pragma unroll
    for (int i = 0; i < M; ++i) {
      T sp = b[i], sd = rhs[i];
      if (use_a) {
        T a[M];
        block_row<0>(bl, o, r, i, vec, a);
#pragma unroll
        for (int k = 0; k < M; ++k) {
          sp -= a[k] * cprev[k];
          sd -= a[k] * d[k];
        }
      }
      p[i] = sp;
      rhs[i] = sd;
      rc[0][i] = r + 1 < n ? c[i] : T(0);
    }
    group_solve<T, M, 1>(p, rc, rhs, gl.lead, pivot);
#pragma unroll
    for (int i = 0; i < M; ++i) {
      cprev[i] = rc[0][i];
      d[i] = rhs[i];
    }
    if (active) {
      T* col = cs + ((index_t(r) * M + j) * q_count + l) * M;
#pragma unroll
      for (int i = 0; i < M; ++i) col[i] = cprev[i];
      ds[(index_t(r) * q_count + l) * M + j] = pick(d, j);
    }
  }
  __syncwarp();  // the columns written above are read by the other threads of the group
  // Back substitution: thread j forms x_r(j), the group shares x_r by shuffles.
  if (active) store(base + index_t(n - 1) * s, q, index_t(n - 1), j, pick(d, j));
  for (int r = n - 2; r >= 0; --r) {
    T acc = T(0);
    if (active) {
      if (kPrefetch && r >= kAhead) {
        const int rp = r - kAhead;
        prefetch_l2(ds + (index_t(rp) * q_count + l) * M + j);
#pragma unroll
        for (int k = 0; k < M; ++k) prefetch_l2(cs + ((index_t(rp) * M + k) * q_count + l) * M + j);
      }
      acc = ds[(index_t(r) * q_count + l) * M + j];
#pragma unroll
      for (int k = 0; k < M; ++k) acc -= cs[((index_t(r) * M + k) * q_count + l) * M + j] * d[k];
      store(base + index_t(r) * s, q, index_t(r), j, acc);
    }
#pragma unroll
    for (int k = 0; k < M; ++k) d[k] = shfl(acc, gl.lead + k);
  }
}

// ---- block Thomas, one thread per line ------------------------------------------------------------
//
// Scratch interleaved by line: C*_r(i, k) at cs[((r*M + i)*M + k)*q_count + l], d*_r(i) at
// ds[(r*M + i)*q_count + l].
template <class T, int M, class Blocks, class Load, class Store>
__global__ void __launch_bounds__(kThreads)
    tps_thomas(Geometry g, index_t q_begin, index_t q_count, Blocks bl, bool vec, bool pivot, Load load, Store store,
               T* __restrict__ cs, T* __restrict__ ds) {
  const index_t l = index_t(blockIdx.x) * kThreads + threadIdx.x;
  if (l >= q_count) return;
  const index_t q = q_begin + l, s = g.s, base = line_base(g, q);
  const int n = int(g.n);
  T cprev[M][M], d[M];
#pragma unroll
  for (int i = 0; i < M; ++i) {
    d[i] = T(0);
#pragma unroll
    for (int k = 0; k < M; ++k) cprev[i][k] = T(0);
  }
  for (int r = 0; r < n; ++r) {
    const index_t o = base + index_t(r) * s;
    T A[M][M], P[M][M], C[M][M], rhs[M];
    full_block<1>(bl, o, r, vec, P);
    if (r + 1 < n) full_block<2>(bl, o, r, vec, C);
#pragma unroll
    for (int i = 0; i < M; ++i) {
      rhs[i] = load(o, q, index_t(r), i);
      if (r + 1 == n)
#pragma unroll
        for (int k = 0; k < M; ++k) C[i][k] = T(0);
    }
    if (r > 0) {
      full_block<0>(bl, o, r, vec, A);
#pragma unroll
      for (int i = 0; i < M; ++i)
#pragma unroll
        for (int k = 0; k < M; ++k) {
#pragma unroll
          for (int t = 0; t < M; ++t) P[i][t] -= A[i][k] * cprev[k][t];
          rhs[i] -= A[i][k] * d[k];
        }
    }
    local_solve<T, M>(P, C, rhs, pivot);
#pragma unroll
    for (int i = 0; i < M; ++i) {
      d[i] = rhs[i];
      ds[(index_t(r) * M + i) * q_count + l] = rhs[i];
#pragma unroll
      for (int k = 0; k < M; ++k) {
        cprev[i][k] = C[i][k];
        cs[((index_t(r) * M + i) * M + k) * q_count + l] = C[i][k];
      }
    }
  }
#pragma unroll
  for (int i = 0; i < M; ++i) store(base + index_t(n - 1) * s, q, index_t(n - 1), i, d[i]);
  for (int r = n - 2; r >= 0; --r) {
    const index_t o = base + index_t(r) * s;
    T x[M];
#pragma unroll
    for (int i = 0; i < M; ++i) {
      T acc = ds[(index_t(r) * M + i) * q_count + l];
#pragma unroll
      for (int k = 0; k < M; ++k) acc -= cs[((index_t(r) * M + i) * M + k) * q_count + l] * d[k];
      x[i] = acc;
    }
#pragma unroll
    for (int i = 0; i < M; ++i) {
      d[i] = x[i];
      store(o, q, index_t(r), i, x[i]);
    }
  }
}

// ---- uniform matrices (factored once): d*_r = Pinv_r d_r - G_r d*_{r-1}, x_r = d*_r - Cs_r x_{r+1}

// M threads per line; thread j forms component j, the group shares vectors by shuffles; d*_r(j)
// at ds[(r*q_count + l)*M + j]. The right-hand sides (forward) and d* (backward) of kChunk rows
// are read into registers before those rows are swept: the reads do not depend on the
// recurrence, so kChunk of them are in flight instead of one per row (a fused load functor, e.g.
// a stencil, is then latency-bound kChunk times less).
constexpr int kChunk = 8;
template <class T, int M, class Load, class Store>
__global__ void __launch_bounds__(kThreads)
    ws_uniform(Geometry g, index_t q_begin, index_t q_count, UniformBlocks<T> U, Load load, Store store,
               T* __restrict__ ds) {
  const GroupLane<M> gl;
  const index_t first = gl.warp_first();
  if (first >= q_count) return;
  const index_t l = first + gl.grp;
  const bool active = !gl.idle && l < q_count;
  const index_t q = q_begin + l, s = g.s;
  const index_t base = active ? line_base(g, q) : 0;
  const int n = int(g.n), j = gl.j;
  T d[M];
#pragma unroll
  for (int i = 0; i < M; ++i) d[i] = T(0);
  for (int r0 = 0; r0 < n; r0 += kChunk) {
    T dv[kChunk];
#pragma unroll
    for (int c = 0; c < kChunk; ++c)
      dv[c] = active && r0 + c < n ? load(base + index_t(r0 + c) * s, q, index_t(r0 + c), j) : T(0);
#pragma unroll
    for (int c = 0; c < kChunk; ++c) {
      const int r = r0 + c;
      if (r >= n) break;  // (the same row count in every line: warp-uniform)
      const T* pinv = U.pinv + (index_t(r) * M + j) * M;
      const T* gr = U.g + (index_t(r) * M + j) * M;
      T acc = T(0);
#pragma unroll
      for (int k = 0; k < M; ++k) acc += __ldg(pinv + k) * shfl(dv[c], gl.lead + k) - __ldg(gr + k) * d[k];
#pragma unroll
      for (int k = 0; k < M; ++k) d[k] = shfl(acc, gl.lead + k);
      if (active) ds[(index_t(r) * q_count + l) * M + j] = acc;
    }
  }
  __syncwarp();
  if (active) store(base + index_t(n - 1) * s, q, index_t(n - 1), j, pick(d, j));
  for (int r1 = n - 2; r1 >= 0; r1 -= kChunk) {
    T dsv[kChunk];
#pragma unroll
    for (int c = 0; c < kChunk; ++c)
      dsv[c] = active && r1 - c >= 0 ? ds[(index_t(r1 - c) * q_count + l) * M + j] : T(0);
#pragma unroll
    for (int c = 0; c < kChunk; ++c) {
      const int r = r1 - c;
      if (r < 0) break;
      const T* csr = U.cs + (index_t(r) * M + j) * M;
      T acc = dsv[c];
#pragma unroll
      for (int k = 0; k < M; ++k) acc -= __ldg(csr + k) * d[k];
      if (active) store(base + index_t(r) * s, q, index_t(r), j, acc);
#pragma unroll
      for (int k = 0; k < M; ++k) d[k] = shfl(acc, gl.lead + k);
    }
  }
}

// One thread per line; d*_r(i) at ds[(r*M + i)*q_count + l].
template <class T, int M, class Load, class Store>
__global__ void __launch_bounds__(kThreads)
    tps_uniform(Geometry g, index_t q_begin, index_t q_count, UniformBlocks<T> U, Load load, Store store,
                T* __restrict__ ds) {
  const index_t l = index_t(blockIdx.x) * kThreads + threadIdx.x;
  if (l >= q_count) return;
  const index_t q = q_begin + l, s = g.s, base = line_base(g, q);
  const int n = int(g.n);
  T d[M];
#pragma unroll
  for (int i = 0; i < M; ++i) d[i] = T(0);
  for (int r = 0; r < n; ++r) {
    const index_t o = base + index_t(r) * s;
    T v[M], x[M];
    if (r == 0)
      for (int rp = 0; rp < kAhead && rp < n; ++rp)
        if (const T* p = access_address<T>(load, base + index_t(rp) * s, 0)) prefetch_l2(p);
    if (r + kAhead < n)
#pragma unroll
      for (int i = 0; i < M; ++i)
        if (const T* p = access_address<T>(load, o + index_t(kAhead) * s, i)) prefetch_l2(p);
#pragma unroll
    for (int i = 0; i < M; ++i) v[i] = load(o, q, index_t(r), i);
    const T* pinv = U.pinv + index_t(r) * M * M;
    const T* gr = U.g + index_t(r) * M * M;
#pragma unroll
    for (int i = 0; i < M; ++i) {
      T acc = T(0);
#pragma unroll
      for (int k = 0; k < M; ++k) acc += __ldg(pinv + i * M + k) * v[k] - __ldg(gr + i * M + k) * d[k];
      x[i] = acc;
    }
#pragma unroll
    for (int i = 0; i < M; ++i) {
      d[i] = x[i];
      ds[(index_t(r) * M + i) * q_count + l] = x[i];
    }
  }
#pragma unroll
  for (int i = 0; i < M; ++i) store(base + index_t(n - 1) * s, q, index_t(n - 1), i, d[i]);
  for (int r = n - 2; r >= 0; --r) {
    const T* csr = U.cs + index_t(r) * M * M;
    T x[M];
    if (r >= kAhead)
#pragma unroll
      for (int i = 0; i < M; ++i) prefetch_l2(ds + (index_t(r - kAhead) * M + i) * q_count + l);
#pragma unroll
    for (int i = 0; i < M; ++i) {
      T acc = ds[(index_t(r) * M + i) * q_count + l];
#pragma unroll
      for (int k = 0; k < M; ++k) acc -= __ldg(csr + i * M + k) * d[k];
      x[i] = acc;
    }
#pragma unroll
    for (int i = 0; i < M; ++i) {
      d[i] = x[i];
      store(base + index_t(r) * s, q, index_t(r), i, x[i]);
    }
  }
}

// ---- the hybrid: segments, a reduced system, expansion -------------------------------------------
//
// Segment k of a line (k < nseg = n / kSegment) holds rows s0 = k*kSegment .. s1-1 (the last one
// up to n). Forward over rows s0+1..s1-1:  Ah_i x_s0 + x_i + Ch_i x_{i+1} = dh_i;  backward:
// x_i + At_i x_s0 + Ct_i x_{s1-1} = dt_i. Reduced rows 2k (x_s0) and 2k+1 (x_{s1-1}):
//   f: A_s0 x_{prev last} + (B_s0 - C_s0 At_{s0+1}) x_s0 - C_s0 Ct_{s0+1} x_last = d_s0 - C_s0 dt_{s0+1}
//   l: Ah_l x_s0 + x_l + Ch_l x_{next first} = dh_l
// Scratch per line row (row index e = q*n + i): blocks column-major, X(i, k) at
// [(e*M + k)*M + i]; vectors at [e*M + i]. Reduced system: BlockArrays over the node array
// (2*nseg) x count, d in the interleaved layout.
template <class T>
struct HybridScratch {
  T *sa, *sc, *sd;       // At (Ah), Ct (Ch), dt (dh)
  T *ra, *rb, *rc, *rd;  // the reduced system
  int nseg;
};

template <class T, int M, class Blocks, class Load>
__global__ void __launch_bounds__(kThreads)
    hybrid_reduce(Geometry g, Blocks bl, bool vec, bool pivot, Load load, HybridScratch<T> h) {
  const GroupLane<M> gl;
  const index_t first = gl.warp_first(), items = g.count * h.nseg;
  if (first >= items) return;
  const index_t item = first + gl.grp;
  const bool active = !gl.idle && item < items;
  const index_t q = active ? item / h.nseg : 0;
  const int k = active ? int(item % h.nseg) : 0, n = int(g.n), j = gl.j;
  const int s0 = k * kSegment, s1 = k + 1 == h.nseg ? n : s0 + kSegment, len = active ? s1 - s0 : 0;
  const int lmax = __reduce_max_sync(0xffffffffu, len);  // the warp runs its longest segment
  const index_t base = active ? line_base(g, q) : 0, s = g.s, e0 = q * n;
  // Row s0: column j of A and B, all of C, d (shared by shuffles).
  const index_t o0 = base + index_t(s0) * s;
  T a0[M], b0[M], cjunk[M], d0[M];
  {
    T dv = T(0);
    if (active) {
      block_column_a<T, M>(bl, o0, s0, j, a0);
      block_columns<T, M>(bl, o0, s0, j, b0, cjunk);
      dv = load(o0, q, index_t(s0), j);
    }
#pragma unroll
    for (int i = 0; i < M; ++i) {
      d0[i] = shfl(dv, gl.lead + i);
      if (!active || s0 == 0) a0[i] = T(0);
    }
  }
  // Forward: column j of Ah and Ch, dh whole; Ah_{s0} = -I, Ch_{s0} = 0, dh_{s0} = 0.
  T ah[M], ch[M], dh[M];
#pragma unroll
  for (int i = 0; i < M; ++i) {
    ah[i] = -T(i == j);
    ch[i] = dh[i] = T(0);
  }
  for (int t = 1; t < lmax; ++t) {
    const bool live = t < len;
    const int i0 = s0 + t;
    const index_t o = base + index_t(i0) * s;
    T b[M], c[M], dv = T(0);
    if (live) {
      block_columns<T, M>(bl, o, i0, j, b, c);
      dv = load(o, q, index_t(i0), j);
    } else {
#pragma unroll
      for (int i = 0; i < M; ++i) {
        b[i] = T(i == j);
        c[i] = T(0);
      }
    }
    T p[M], rr[2][M], rhs[M];
#pragma unroll
    for (int i = 0; i < M; ++i) rhs[i] = shfl(dv, gl.lead + i);
#pragma unroll
    for (int i = 0; i < M; ++i) {
      T sp = b[i], sa = T(0), sd = rhs[i];
      if (live) {
        T a[M];
        block_row<0>(bl, o, i0, i, vec, a);
#pragma unroll
        for (int kk = 0; kk < M; ++kk) {
          sp -= a[kk] * ch[kk];
          sa -= a[kk] * ah[kk];
          sd -= a[kk] * dh[kk];
        }
      }
      p[i] = sp;
      rr[0][i] = sa;
      rr[1][i] = i0 + 1 < n ? c[i] : T(0);
      rhs[i] = sd;
    }
    group_solve<T, M, 2>(p, rr, rhs, gl.lead, pivot);
    if (live) {
      const index_t e = e0 + i0;
#pragma unroll
      for (int i = 0; i < M; ++i) {
        ah[i] = rr[0][i];
        ch[i] = rr[1][i];
        dh[i] = rhs[i];
        h.sa[(e * M + j) * M + i] = ah[i];
        h.sc[(e * M + j) * M + i] = ch[i];
      }
      h.sd[e * M + j] = pick(dh, j);
    }
  }
  // Reduced row 2k+1 (the segment's last row).
  const index_t red = index_t(2) * h.nseg, ro = q * red + 2 * k;
  if (active)
#pragma unroll
    for (int i = 0; i < M; ++i) {
      h.ra[((ro + 1) * M + i) * M + j] = ah[i];
      h.rb[((ro + 1) * M + i) * M + j] = T(i == j);
      h.rc[((ro + 1) * M + i) * M + j] = ch[i];
      if (i == j) h.rd[(ro + 1) * M + i] = dh[i];
    }
  __syncwarp();
  // Backward: At_{s1-1} = 0, Ct_{s1-1} = -I, dt_{s1-1} = 0.
  T at[M], ct[M], dt[M];
#pragma unroll
  for (int i = 0; i < M; ++i) {
    at[i] = dt[i] = T(0);
    ct[i] = -T(i == j);
  }
  for (int t = lmax - 2; t >= 1; --t) {
    const bool live = t <= len - 2;
    const index_t e = e0 + s0 + t;
    T Ch[M][M], dhv[M], ahj[M];
    if (live) {
#pragma unroll
      for (int i = 0; i < M; ++i) {
        dhv[i] = h.sd[e * M + i];
        ahj[i] = h.sa[(e * M + j) * M + i];
#pragma unroll
        for (int kk = 0; kk < M; ++kk) Ch[i][kk] = h.sc[(e * M + kk) * M + i];
      }
    }
    __syncwarp();  // every thread has read row e before any overwrites its column
    if (live) {
      T na[M], nc[M], nd[M];
#pragma unroll
      for (int i = 0; i < M; ++i) {
        T sa = ahj[i], sc = T(0), sd = dhv[i];
#pragma unroll
        for (int kk = 0; kk < M; ++kk) {
          sa -= Ch[i][kk] * at[kk];
          sc -= Ch[i][kk] * ct[kk];
          sd -= Ch[i][kk] * dt[kk];
        }
        na[i] = sa;
        nc[i] = sc;
        nd[i] = sd;
      }
#pragma unroll
      for (int i = 0; i < M; ++i) {
        at[i] = na[i];
        ct[i] = nc[i];
        dt[i] = nd[i];
        h.sa[(e * M + j) * M + i] = at[i];
        h.sc[(e * M + j) * M + i] = ct[i];
      }
      h.sd[e * M + j] = pick(dt, j);
    }
  }
  // Reduced row 2k (the segment's first row), from row s0 and (At, Ct, dt) of row s0+1.
  if (active)
#pragma unroll
    for (int i = 0; i < M; ++i) {
      T sb = b0[i], sc = T(0), sd = d0[i], c0[M];
      block_row<2>(bl, o0, s0, i, vec, c0);
#pragma unroll
      for (int kk = 0; kk < M; ++kk) {
        sb -= c0[kk] * at[kk];
        sc -= c0[kk] * ct[kk];
        sd -= c0[kk] * dt[kk];
      }
      h.ra[(ro * M + i) * M + j] = a0[i];
      h.rb[(ro * M + i) * M + j] = sb;
      h.rc[(ro * M + i) * M + j] = sc;
      if (i == j) h.rd[ro * M + i] = sd;
    }
}

// x_i = dt_i - At_i x_s0 - Ct_i x_last on every row of every segment (rd holds the reduced
// solution); thread j forms component j.
template <class T, int M, class Store>
__global__ void __launch_bounds__(kThreads) hybrid_expand(Geometry g, Store store, HybridScratch<T> h) {
  const GroupLane<M> gl;
  const index_t first = gl.warp_first(), items = g.count * h.nseg;
  const index_t item = first + gl.grp;
  if (gl.idle || item >= items) return;  // no shuffles below
  const index_t q = item / h.nseg;
  const int k = int(item % h.nseg), n = int(g.n), j = gl.j;
  const int s0 = k * kSegment, s1 = k + 1 == h.nseg ? n : s0 + kSegment;
  const index_t base = line_base(g, q), s = g.s, e0 = q * n, ro = q * 2 * h.nseg + 2 * k;
  T xf[M], xl[M];
#pragma unroll
  for (int i = 0; i < M; ++i) {
    xf[i] = h.rd[ro * M + i];
    xl[i] = h.rd[(ro + 1) * M + i];
  }
  store(base + index_t(s0) * s, q, index_t(s0), j, pick(xf, j));
  for (int i0 = s0 + 1; i0 < s1 - 1; ++i0) {
    const index_t e = e0 + i0;
    T acc = h.sd[e * M + j];
#pragma unroll
    for (int kk = 0; kk < M; ++kk)
      acc -= h.sa[(e * M + kk) * M + j] * xf[kk] + h.sc[(e * M + kk) * M + j] * xl[kk];
    store(base + index_t(i0) * s, q, index_t(i0), j, acc);
  }
  store(base + index_t(s1 - 1) * s, q, index_t(s1 - 1), j, pick(xl, j));
}

// ---- launches --------------------------------------------------------------------------------------

// Lines per launch of the Thomas kernels: all of them unless their scratch would pass
// kScratchCap bytes (then batches of lines run one after the other on the stream).
constexpr std::size_t kScratchCap = std::size_t(4) << 30;
inline index_t lines_per_launch(index_t count, std::size_t scratch_per_line) {
  const index_t cap = index_t(kScratchCap / (scratch_per_line ? scratch_per_line : 1));
  return cap < 1 ? 1 : cap < count ? cap : count;
}

inline unsigned blocks_for(index_t items, int per_block) {
  return tridiag::detail::grid_size((items + per_block - 1) / per_block);
}

inline bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

template <class T>
struct ScratchBuffer {  // stream-ordered device memory (cudaMallocAsync), freed on the stream
  void* p = nullptr;
  cudaStream_t stream;
  ScratchBuffer(std::size_t bytes, cudaStream_t st) : stream(st) {
    BLOCKTRI_CUDA(cudaMallocAsync(&p, bytes ? bytes : 1, stream));
  }
  ~ScratchBuffer() { cudaFreeAsync(p, stream); }  // (a failure here is reported by the next call)
  T* get() const { return static_cast<T*>(p); }
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;
};

template <class T, int M, class Blocks, class Load, class Store>
void run_thomas(bool per_thread, const Geometry& g, const Blocks& bl, bool vec, bool pivot, const Load& load,
                const Store& store, cudaStream_t stream) {
  const std::size_t per_line = sizeof(T) * std::size_t(g.n) * (is_uniform_v<Blocks> ? M : M * M + M);
  const index_t chunk = lines_per_launch(g.count, per_line);
  ScratchBuffer<T> scratch(per_line * std::size_t(chunk), stream);
  T* ds = scratch.get();
  T* cs = ds + std::size_t(g.n) * M * chunk;
  for (index_t q0 = 0; q0 < g.count; q0 += chunk) {
    const index_t cnt = g.count - q0 < chunk ? g.count - q0 : chunk;
    if constexpr (is_uniform_v<Blocks>) {
      if (per_thread) {
        if constexpr (M <= kMaxThreadPerSystemM)
          tps_uniform<T, M><<<blocks_for(cnt, kThreads), kThreads, 0, stream>>>(g, q0, cnt, bl, load, store, ds);
      } else {
        ws_uniform<T, M><<<blocks_for(cnt, kThreads / 32 * (32 / M)), kThreads, 0, stream>>>(g, q0, cnt, bl, load,
                                                                                           store, ds);
      }
    } else {
      if (per_thread) {
        if constexpr (M <= kMaxThreadPerSystemM)
          tps_thomas<T, M><<<blocks_for(cnt, kThreads), kThreads, 0, stream>>>(g, q0, cnt, bl, vec, pivot, load, store,
                                                                               cs, ds);
      } else {
        ws_thomas<T, M><<<blocks_for(cnt, kThreads / 32 * (32 / M)), kThreads, 0, stream>>>(g, q0, cnt, bl, vec, pivot,
                                                                                          load, store, cs, ds);
      }
    }
    BLOCKTRI_CUDA(cudaGetLastError());
  }
}

template <class T, int M, class Blocks, class Load, class Store>
void run_hybrid(const Geometry& g, const Blocks& bl, bool vec, bool pivot, const Load& load, const Store& store,
                cudaStream_t stream) {
  const int n = int(g.n);
  if (n < 4 * kSegment) return run_thomas<T, M>(false, g, bl, vec, pivot, load, store, stream);
  HybridScratch<T> h{};
  h.nseg = n / kSegment;
  const index_t red = index_t(2) * h.nseg, rows = g.count * n, rrows = g.count * red;
  const std::size_t mm = std::size_t(M) * M;
  ScratchBuffer<T> scratch(sizeof(T) * (std::size_t(rows) * (2 * mm + M) + std::size_t(rrows) * (3 * mm + M)), stream);
  h.sa = scratch.get();
  h.sc = h.sa + rows * mm;
  h.sd = h.sc + rows * mm;
  h.ra = h.sd + rows * M;
  h.rb = h.ra + rrows * mm;
  h.rc = h.rb + rrows * mm;
  h.rd = h.rc + rrows * mm;
  const unsigned blocks = blocks_for(g.count * h.nseg, kThreads / 32 * (32 / M));
  hybrid_reduce<T, M><<<blocks, kThreads, 0, stream>>>(g, bl, vec, pivot, load, h);
  BLOCKTRI_CUDA(cudaGetLastError());
  // The reduced system: lines along x of a (2*nseg) x count node array.
  Geometry gr;
  gr.n = red;
  gr.s = 1;
  gr.count = g.count;
  gr.nA = g.count;
  gr.sA = red;
  gr.sB = 0;
  const BlockArrays<T> rbl{h.ra, h.rb, h.rc, M};
  const InterleavedAccess<T> racc{h.rd, M};
  run_hybrid<T, M>(gr, rbl, aligned16(h.ra) && aligned16(h.rb) && aligned16(h.rc), pivot, racc, racc, stream);
  hybrid_expand<T, M><<<blocks, kThreads, 0, stream>>>(g, store, h);
  BLOCKTRI_CUDA(cudaGetLastError());
}

template <class T, int M, class Blocks, class Load, class Store>
void solve_m(const Geometry& g, const Blocks& bl, const Load& load, const Store& store, BlockGpuAlgorithm alg,
             bool pivot, cudaStream_t stream) {
  bool vec = false;
  if constexpr (is_arrays_v<Blocks>) vec = aligned16(bl.a) && aligned16(bl.b) && aligned16(bl.c);
  if constexpr (is_uniform_v<Blocks>) {
    run_thomas<T, M>(alg == BlockGpuAlgorithm::thread_per_system, g, bl, vec, pivot, load, store, stream);
  } else {
    if (alg == BlockGpuAlgorithm::block_pcr) return run_hybrid<T, M>(g, bl, vec, pivot, load, store, stream);
    run_thomas<T, M>(alg == BlockGpuAlgorithm::thread_per_system, g, bl, vec, pivot, load, store, stream);
  }
}

}  // namespace detail

// Solve every line of L (device memory, queued on `stream`) with block size m (1..8). `alg` must
// be supported (block_gpu_unsupported_reason: asked when the deck is read, and here as a
// backstop); automatic picks by M, line count and length. Uniform matrices (UniformBlocks, or a
// UniformBlocksDevice) run work_sharing or thread_per_system; block_pcr runs work_sharing there.
template <class T, class Blocks, class Load, class Store>
void solve_lines(int m, const LineSet& L, const Blocks& blocks, const Load& load, const Store& store,
                 BlockGpuAlgorithm alg, Pivoting pivoting, cudaStream_t stream = 0) {
  if constexpr (std::is_same_v<Blocks, UniformBlocksDevice<T>>) {
    return solve_lines<T>(m, L, blocks.view(), load, store, alg, pivoting, stream);
  } else {
    if (!tridiag::detail::validate(L, "block-tridiagonal solver (cuda)")) return;
    alg = resolve_block_gpu_algorithm(alg, m, L);
    if (const std::string why = block_gpu_unsupported_reason(alg, m, L); !why.empty())
      throw Error("block-tridiagonal solver (cuda): " + why);
    if constexpr (is_arrays_v<Blocks>)
      if (blocks.m != m) throw Error("block-tridiagonal solver (cuda): BlockArrays of M = " + std::to_string(blocks.m) +
                                     " for lines of M = " + std::to_string(m));
    if constexpr (is_uniform_v<Blocks>) {
      if (blocks.m != m || blocks.n != L.length())
        throw Error("block-tridiagonal solver (cuda): the uniform matrix (M = " + std::to_string(blocks.m) + ", " +
                    std::to_string(blocks.n) + " rows) does not match the lines (M = " + std::to_string(m) + ", " +
                    std::to_string(L.length()) + " rows)");
      if (alg == BlockGpuAlgorithm::block_pcr) alg = BlockGpuAlgorithm::work_sharing;
    }
    const Geometry g = tridiag::detail::geometry(L);
    const bool pivot = pivoting == Pivoting::partial;
    switch (m) {
      case 1: return detail::solve_m<T, 1>(g, blocks, load, store, alg, pivot, stream);
      case 2: return detail::solve_m<T, 2>(g, blocks, load, store, alg, pivot, stream);
      case 3: return detail::solve_m<T, 3>(g, blocks, load, store, alg, pivot, stream);
      case 4: return detail::solve_m<T, 4>(g, blocks, load, store, alg, pivot, stream);
      case 5: return detail::solve_m<T, 5>(g, blocks, load, store, alg, pivot, stream);
      case 6: return detail::solve_m<T, 6>(g, blocks, load, store, alg, pivot, stream);
      case 7: return detail::solve_m<T, 7>(g, blocks, load, store, alg, pivot, stream);
      case 8: return detail::solve_m<T, 8>(g, blocks, load, store, alg, pivot, stream);
      default: break;
    }
  }
}

}  // namespace tridsim::blocktri::gpu
