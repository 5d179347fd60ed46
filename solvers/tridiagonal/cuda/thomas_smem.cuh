#pragma once
// The shared-memory Thomas kernels' common parts and the uniform-matrix kernel (namespace
// tridsim::tridiag::detail), as templates a fused kernel can instantiate with its own store
// (physics/heat/heat_gpu_impl.cuh's y-sweep does). Layout and pipeline: see batched_cuda.cu.
#include <algorithm>

#include "solvers/tridiagonal/cuda/kernel_support.cuh"

namespace tridsim::tridiag::detail {

constexpr int kChunk = 32;                         // rows per pipeline stage
constexpr int kStagesUniform = 4;                  // chunks in flight ahead of the sweep (uniform)
constexpr int kStagesArrays = 2;                   // (general coefficients: 4 arrays per row)
constexpr int kRing = kStagesArrays * kChunk;      // rows in the a and b rings (a power of two)
constexpr int kRingLd = kRing + 1;                 // odd row length of a ring
constexpr int kMinBlocks = 16;                     // launch bounds: <= 128 registers per thread

// Lines per warp: as many lines resident per multiprocessor as shared memory allows (a smaller
// warp only when it gains more than 10% resident lines). shared_memory = false when not even one
// line fits in a block's shared memory.
inline GpuLaunchPlan make_plan(int ld, bool uniform, std::size_t elem, const Limits& lim) {
  const std::size_t per_line = uniform ? std::size_t(ld) * elem : std::size_t(2 * ld + 2 * kRingLd) * elem;
  GpuLaunchPlan best;
  long best_lines = 0;
  for (int lpw = kWarp; lpw >= 1; lpw /= 2) {
    const std::size_t smem = per_line * std::size_t(lpw);
    if (smem > lim.optin) continue;
    std::size_t blocks = lim.per_sm / (smem + lim.reserved);
    blocks = std::min<std::size_t>(blocks, std::size_t(lim.max_blocks));
    blocks = std::min<std::size_t>(blocks, std::size_t(lim.max_threads / kWarp));
    const long lines = long(blocks) * lpw;
    if (blocks > 0 && lines * 10 > best_lines * 11) {
      best.shared_memory = true;
      best.lines_per_warp = lpw;
      best.smem_bytes = smem;
      best.blocks_per_sm = int(blocks);
      best_lines = lines;
    }
  }
  return best;
}
// Asynchronous copy of one element from global to shared memory (4 or 8 bytes, through L1).
template <class T>
__device__ __forceinline__ void cp_async(T* dst_smem, const T* src_gmem) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "cp.async copies 4 or 8 bytes here");
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(dst_smem));
  if constexpr (sizeof(T) == 8)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(dst), "l"(src_gmem) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src_gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Wait until at most N of this thread's commit groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
// ---- kernels: shared-memory Thomas -----------------------------------------------------------------

// Run f(r) for the rows of one chunk, upwards or downwards. A full chunk is unrolled with a
// compile-time trip count, so the shared-memory and coefficient loads of its rows (which do not
// depend on the recurrence) are issued ahead of the dependent chain instead of one row at a time:
// with a few warps per multiprocessor nothing else would hide their latency.
template <class F>
__device__ __forceinline__ void rows_up(int r0, int r1, F&& f) {
  if (r1 - r0 == kChunk) {
#pragma unroll
    for (int i = 0; i < kChunk; ++i) f(r0 + i);
  } else {
    for (int r = r0; r < r1; ++r) f(r);
  }
}
template <class F>
__device__ __forceinline__ void rows_down(int r0, int r1, F&& f) {
  if (r1 - r0 == kChunk) {
#pragma unroll
    for (int i = kChunk - 1; i >= 0; --i) f(r0 + i);
  } else {
    for (int r = r1 - 1; r >= r0; --r) f(r);
  }
}

// Uniform matrix (a with a_0 = 0, inverse pivots m, cp with cp_{n-1} = 0, shared by all lines).
// Reads the right-hand sides from d and hands each solution value to store(offset, line, row, x)
// (line: the index q of the LineSet's line, loop-invariant per lane so per-line work in a store
// is hoisted; in place: AssignStore{d}).
template <class T, bool AlongX, class Store>
__global__ void __launch_bounds__(kWarp, kMinBlocks)
    thomas_uniform_smem(Geometry g, const T* __restrict__ A, const T* __restrict__ M, const T* __restrict__ CP,
                        const T* d, Store store) {
  constexpr int D = kStagesUniform;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* const buf = reinterpret_cast<T*>(smem_raw);
  const int lane = int(threadIdx.x);
  const index_t q0 = index_t(blockIdx.x) * g.lpw;
  const int nl = int(g.count - q0 < index_t(g.lpw) ? g.count - q0 : index_t(g.lpw));
  const bool active = lane < nl;
  const index_t base = active ? line_base(g, q0 + lane) : 0;
  const int n = int(g.n), ld = g.ld, nchunks = (n + kChunk - 1) / kChunk;
  const index_t s = g.s;
  T* const my = buf + (active ? lane : 0) * ld;

  auto issue = [&](int k) {
    if (k < nchunks) {
      const int r0 = k * kChunk;
      if constexpr (AlongX) {  // row r0 + lane of every line of the warp
        const int r = r0 + lane;
        for (int l = 0; l < nl; ++l) {
          const index_t bl = __shfl_sync(0xffffffffu, base, l);
          if (r < n) cp_async(buf + l * ld + r, d + bl + r);
        }
      } else if (active) {  // rows r0.. of the lane's own line (a warp-wide contiguous run each)
        const int r1 = imin(n, r0 + kChunk);
        for (int r = r0; r < r1; ++r) cp_async(my + r, d + base + index_t(r) * s);
      }
    }
    cp_async_commit();  // one group per chunk (empty past the end) keeps the wait count constant
  };

  for (int k = 0; k < D; ++k) issue(k);
  T prev = T(0);
  for (int k = 0; k < nchunks; ++k) {
    cp_async_wait<D - 1>();  // chunk k has landed (for this lane's copies) ...
    if constexpr (AlongX) __syncwarp();  // ... and for the other lanes' copies
    if (active)
      rows_up(k * kChunk, imin(n, (k + 1) * kChunk), [&](int r) {
        // (d_r - a_r prev) m_r with one fused multiply-add on the dependent chain
        const T mr = __ldg(M + r);
        prev = fma(-(__ldg(A + r) * mr), prev, my[r] * mr);
        my[r] = prev;
      });
    issue(k + D);
  }

  T next = T(0);
  for (int k = nchunks - 1; k >= 0; --k) {
    const int r0 = k * kChunk, r1 = imin(n, r0 + kChunk);
    if constexpr (!AlongX) {  // straight out: row r of the warp's lines is one contiguous run
      if (active)
        rows_down(r0, r1, [&](int r) {
          next = my[r] - __ldg(CP + r) * next;
          store(base + index_t(r) * s, q0 + lane, r, next);
        });
    } else {  // into shared memory, then out line by line (32 consecutive elements per store)
      if (active)
        rows_down(r0, r1, [&](int r) {
          next = my[r] - __ldg(CP + r) * next;
          my[r] = next;
        });
      __syncwarp();
      const int r = r0 + lane;
      for (int l = 0; l < nl; ++l) {
        const index_t bl = __shfl_sync(0xffffffffu, base, l);
        if (r < n) store(bl + r, q0 + l, r, buf[l * ld + r]);
      }
    }
  }
}

template <class T>
struct AssignStore {  // in place: x over d
  T* d;
  __device__ __forceinline__ void operator()(index_t o, index_t, int, T x) const { d[o] = x; }
};

// Launch a shared-memory Thomas kernel: the transposing variant for lines along x, the direct
// one for y/z (both have the same signature), `plan.lines_per_warp` lines per warp.
template <class Kernel, class... Args>
void launch_smem(const LineSet& L, Geometry g, const GpuLaunchPlan& plan, int dev, const Limits& lim,
                 Kernel along_x, Kernel along_yz, cudaStream_t stream, Args... args) {
  g.lpw = plan.lines_per_warp;
  const unsigned blocks = grid_size((g.count + g.lpw - 1) / g.lpw);
  const Kernel kernel = L.axis == 0 ? along_x : along_yz;
  prepare_kernel(kernel, dev, lim);
  kernel<<<blocks, kWarp, plan.smem_bytes, stream>>>(g, args...);
}

// Thomas for a factored uniform matrix (a, inverse pivots m, cp) on the lines of L, reading the
// right-hand sides from d, with lines staged in shared memory; false (nothing launched) when not
// even one line fits there.
template <class T, class Store>
bool launch_uniform_smem(const LineSet& L, const T* A, const T* M, const T* CP, const T* d, Store store,
                         cudaStream_t stream) {
  const Geometry g = geometry(L);
  const int dev = current_device();
  const Limits lim = device_limits(dev);
  const GpuLaunchPlan plan = make_plan(g.ld, true, sizeof(T), lim);
  if (!plan.shared_memory) return false;
  launch_smem(L, g, plan, dev, lim, thomas_uniform_smem<T, true, Store>, thomas_uniform_smem<T, false, Store>, stream,
              A, M, CP, d, store);
  TRIDIAG_LAUNCH("thomas_uniform_smem");
  return true;
}

}  // namespace tridsim::tridiag::detail
