#pragma once
// Long lines of a factored matrix held whole on chip (namespace tridsim::tridiag::gpu): the scan
// form of thomas_pcr.cuh across a thread-block cluster, for lines longer than one block holds.
// Behind the contract of line_solve.cuh, which includes this file at its end.
//
// A cluster of K blocks takes kLines lines; block k of it holds rows [k C, (k + 1) C) of each,
// C = W * kRows: W segments of kRows rows per line, one per thread, in registers. As in
// scan_strided_lines, each segment's forward map Y -> A Y + B (A: the product of the recurrence
// coefficients, B: the local result with a zero carry) is composed across the block's segments in
// shared memory; the blocks' own maps are composed across the cluster through distributed shared
// memory; every segment then reruns with its true carry. The backward recurrence the same way from the other end. Each element
// is loaded once and stored once: no scratch in global memory and no second pass over the data,
// whatever the line length up to K * C.
//
// y/z lines: lane = line, so the lanes of a warp load one contiguous run of a row. x lines: the
// block stages its tile in shared memory (consecutive threads on consecutive elements of a line)
// and each thread reads its segment from there.
#include <map>
#include <mutex>
#include <tuple>

#include "solvers/tridiagonal/cuda/line_solve.cuh"

namespace tridsim::tridiag::gpu {

// ---- thread-block clusters: device helpers and the launch -------------------------------------
// (The runtime's cluster intrinsics rather than cooperative_groups, which would bring a global
// namespace `cuda` beside tridsim::cuda into every includer. The helpers compile for any
// architecture; a kernel calls them only when launched on clusters, which needs sm_90.)
namespace cluster {

__device__ __forceinline__ int size() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  return int(__clusterSizeInBlocks());
#else
  return 1;
#endif
}
__device__ __forceinline__ int rank() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  return int(__clusterRelativeBlockRank());
#else
  return 0;
#endif
}
// Arrive: this block's writes to its shared memory become visible to the cluster; wait: every
// block of the cluster has arrived.
__device__ __forceinline__ void arrive() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  __cluster_barrier_arrive();
#else
  __trap();
#endif
}
__device__ __forceinline__ void wait() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  __cluster_barrier_wait();
#endif
}
__device__ __forceinline__ void sync() {
  arrive();
  wait();
}
// The value at `p` (in this block's shared memory) in block `rank`'s shared memory.
template <class U>
__device__ __forceinline__ U peer(const U* p, int rank) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  return *static_cast<const U*>(__cluster_map_shared_rank(p, unsigned(rank)));
#else
  return *p;
#endif
}

constexpr int kPortableBlocks = 8;  // cluster sizes every sm_90 device runs
constexpr int kMaxBlocks = 16;      // the largest the hardware allows (non-portable)

// Whether this device runs a cluster of `K` blocks of `kernel` with `smem` bytes each (asked once
// per kernel, device and shape: the answer depends on how its multiprocessors are grouped).
template <class Kernel>
bool fits(Kernel kernel, int dev, int K, std::size_t smem, cudaLaunchConfig_t cfg) {
  static std::mutex mu;
  static std::map<std::tuple<const void*, int, int, std::size_t>, bool> known;
  const auto key = std::make_tuple(reinterpret_cast<const void*>(kernel), dev, K, smem);
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = known.find(key); it != known.end()) return it->second;
  bool ok = false;
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, kernel) == cudaSuccess && attr.ptxVersion >= 90 && attr.binaryVersion >= 90) {
    if (K > kPortableBlocks) TRIDIAG_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    int clusters = 0;
    ok = cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) == cudaSuccess && clusters > 0;
  }
  (void)cudaGetLastError();  // (a refusal above is an answer, not an error to report later)
  known.emplace(key, ok);
  return ok;
}

// Launch `kernel` on `blocks` blocks in clusters of K consecutive ones; false (nothing queued) where
// the device cannot (before sm_90, or no room for a cluster of that size).
template <class Kernel, class... Args>
bool launch(Kernel kernel, unsigned blocks, unsigned threads, std::size_t smem, int K, cudaStream_t stream,
            Args... args) {
  const int dev = detail::current_device();
  int major = 0;
  TRIDIAG_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  const detail::Limits lim = detail::device_limits(dev);
  if (major < 9 || K > kMaxBlocks || smem > lim.optin) return false;
  if (smem > (48u << 10)) detail::prepare_kernel(kernel, dev, lim);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = unsigned(K);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  if (!fits(kernel, dev, K, smem, cfg)) return false;
  TRIDIAG_CUDA(cudaLaunchKernelEx(&cfg, kernel, args...));
  return true;
}

}  // namespace cluster

namespace cluster_lines {

using cluster::kMaxBlocks;
using cluster::kPortableBlocks;

constexpr int kLines = 32;          // lines per cluster (y/z: a row of them is 256 B in double)
constexpr int kRows = 16;           // rows per segment, in registers

struct Plan {
  int W = 0;  // segments per line and block: 16 (two blocks per multiprocessor) or 32 (one)
  int K = 0;  // blocks per cluster
  index_t tiles = 0;
  std::size_t smem = 0;
};

// Shared memory: the segments' maps, the block's forward and backward maps and the carries in, and
// for x lines the staged tile (kLines rows of C + 1 values: an odd stride across lines).
template <class T>
std::size_t smem_bytes(int W, bool along_x) {
  const std::size_t maps = (std::size_t(W) + 2) * kLines * sizeof(detail::SegmentMap<T>) + kLines * sizeof(T);
  return maps + (along_x ? std::size_t(kLines) * (W * kRows + 1) * sizeof(T) : 0);
}

// Blocks of 16 segments while a portable cluster holds the line, then blocks of 32 on clusters of
// up to the largest size; none (K = 0) for lines longer than that. (Longer segments instead of more
// of them spill registers.)
template <class T>
Plan plan_for(index_t n, index_t count, bool along_x) {
  Plan p;
  for (const auto& [W, limit] : {std::pair{16, kPortableBlocks}, std::pair{32, kMaxBlocks}}) {
    const index_t K = (n + index_t(W) * kRows - 1) / (index_t(W) * kRows);
    if (K <= limit) {
      p.W = W;
      p.K = int(K);
      break;
    }
  }
  if (p.K == 0) return p;
  p.tiles = (count + kLines - 1) / kLines;
  p.smem = smem_bytes<T>(p.W, along_x);
  return p;
}

template <class T, int W, bool AlongX, class Load, class Store>
__global__ void __launch_bounds__(kLines * W, 1024 / (kLines * W))
    scan_cluster_lines(Geometry g, FactoredRows<T> rows, Load load, Store store) {
  using Map = detail::SegmentMap<T>;
  constexpr int X = kLines, R = kRows, C = W * R;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  Map* const maps = reinterpret_cast<Map*>(smem_raw);  // [segment][line]
  Map* const fwd = maps + W * X;                        // the block's maps, per line
  Map* const bwd = fwd + X;
  T* const carry_in = reinterpret_cast<T*>(bwd + X);
  T* const tile = carry_in + X;  // x lines: [line][row], stride C + 1
  constexpr int ld = C + 1;

  const int K = cluster::size(), rank = cluster::rank();
  const index_t q0 = index_t(blockIdx.x / unsigned(K)) * X;
  const int n = int(g.n), r_block = rank * C, rows_here = detail::imin(C, n - r_block > 0 ? n - r_block : 0);
  const int nl = int(g.count - q0 < X ? g.count - q0 : X);
  const int tid = int(threadIdx.x), lane = tid % X, w = tid / X;
  const index_t q = q0 + lane;
  const bool active = lane < nl;
  const index_t base = active ? detail::line_base(g, q) : 0;
  const int r0 = r_block + w * R, L = active ? detail::imin(R, rows_here - w * R > 0 ? rows_here - w * R : 0) : 0;

  T v[R];
  // x lines: pass k stages row pass_row of line k X/R + pass_line (a few loads in flight: more
  // hold too many registers when the load does work of its own).
  static_assert(X % R == 0, "x lines: a pass over the tile covers whole lines");
  const int pass_line = tid / C, pass_row = tid % C;
  if constexpr (AlongX) {
#pragma unroll 4
    for (int k = 0; k < R; ++k) {
      const int l = k * (X / R) + pass_line;
      if (l < nl && pass_row < rows_here)
        tile[l * ld + pass_row] = load(detail::line_base(g, q0 + l) + r_block + pass_row, q0 + l, r_block + pass_row);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < R; ++k)
      if (k < L) v[k] = tile[lane * ld + w * R + k];
  } else {
#pragma unroll
    for (int k = 0; k < R; ++k)
      if (k < L) v[k] = load(base + index_t(r0 + k) * g.s, q, r0 + k);
  }

  // Forward (scan_forward_map: the segment's map with a zero carry).
  maps[w * X + lane] = scan_forward_map<T, R>(rows, r0, L, v);
  __syncthreads();
  if (w == 0) {  // the block's map: its segments composed in order
    Map b{T(1), T(0)};
    for (int u = 0; u < W; ++u) b = {maps[u * X + lane].a * b.a, fma(maps[u * X + lane].a, b.b, maps[u * X + lane].b)};
    fwd[lane] = b;
  }
  cluster::sync();
  if (w == 0) {  // the carry into this block: the earlier blocks' maps composed
    T c = T(0);
    for (int j = 0; j < rank; ++j) {
      const Map m = cluster::peer(fwd + lane, j);
      c = fma(m.a, c, m.b);
    }
    carry_in[lane] = c;
  }
  __syncthreads();
  T carry = carry_in[lane];
  for (int u = 0; u < w; ++u) carry = fma(maps[u * X + lane].a, carry, maps[u * X + lane].b);
  scan_forward<T, R>(rows, r0, L, carry, v);
  __syncthreads();  // (the forward maps and carries are read; the backward ones reuse the space)

  // Backward, the same way from the line's end.
  maps[w * X + lane] = scan_backward_map<T, R>(rows, r0, L, v);
  __syncthreads();
  if (w == 0) {
    Map b{T(1), T(0)};
    for (int u = W - 1; u >= 0; --u)
      b = {maps[u * X + lane].a * b.a, fma(maps[u * X + lane].a, b.b, maps[u * X + lane].b)};
    bwd[lane] = b;
  }
  cluster::sync();
  if (w == 0) {
    T c = T(0);
    for (int j = K - 1; j > rank; --j) {
      const Map m = cluster::peer(bwd + lane, j);
      c = fma(m.a, c, m.b);
    }
    carry_in[lane] = c;
  }
  // This block reads no other block's shared memory from here on; it must not exit before the
  // others have read its own.
  cluster::arrive();
  __syncthreads();
  carry = carry_in[lane];
  for (int u = W - 1; u > w; --u) carry = fma(maps[u * X + lane].a, carry, maps[u * X + lane].b);
  T x = carry;
#pragma unroll
  for (int k = R - 1; k >= 0; --k)
    if (k < L) {
      x = fma(-__ldg(rows.cp + r0 + k), x, v[k]);
      v[k] = x;
    }
  if constexpr (AlongX) {
#pragma unroll
    for (int k = 0; k < R; ++k)
      if (k < L) tile[lane * ld + w * R + k] = v[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < R; ++k) {
      const int l = k * (X / R) + pass_line;
      if (l < nl && pass_row < rows_here)
        store(detail::line_base(g, q0 + l) + r_block + pass_row, q0 + l, r_block + pass_row, tile[l * ld + pass_row]);
    }
  } else {
#pragma unroll
    for (int k = 0; k < R; ++k)
      if (k < L) store(base + index_t(r0 + k) * g.s, q, r0 + k, v[k]);
  }
  cluster::wait();
}

}  // namespace cluster_lines

// Solve L's lines of a factored matrix on clusters, when the lines fit a cluster and the device
// runs one; false (nothing queued) otherwise.
template <class T, class Load, class Store>
bool launch_cluster_lines(const LineSet& L, const Geometry& g, const FactoredRows<T>& rows, const Load& load,
                          const Store& store, cudaStream_t stream) {
  using namespace cluster_lines;
  const Plan plan = plan_for<T>(g.n, g.count, L.axis == 0);
  if (plan.K == 0) return false;
  auto run = [&](auto kernel) {
    return cluster::launch(kernel, detail::grid_size(plan.tiles * plan.K), unsigned(kLines * plan.W), plan.smem,
                           plan.K, stream, g, rows, load, store);
  };
  if (L.axis == 0)
    return plan.W == 16 ? run(scan_cluster_lines<T, 16, true, Load, Store>)
                        : run(scan_cluster_lines<T, 32, true, Load, Store>);
  return plan.W == 16 ? run(scan_cluster_lines<T, 16, false, Load, Store>)
                      : run(scan_cluster_lines<T, 32, false, Load, Store>);
}

}  // namespace tridsim::tridiag::gpu
