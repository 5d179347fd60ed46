// CUDA batched tridiagonal line solvers (see batched_cuda.hpp for the API and the algorithms).
//
// Kernel layout (GpuAlgorithm::thomas). One block is one warp; it owns `lpw` (lines per warp,
// at most 32) consecutive lines of the LineSet, lane l solving line l. Line q starts at
//   base(q) = (q % nA) * sA + (q / nA) * sB
// (x lines: q = j + n1*k, base = j*s1 + k*s2; y lines: q = i + n0*k, base = i + k*s2; z lines:
// q = i + n0*j, base = i + j*s1), so for y/z the lanes of a warp hold x-adjacent lines.
// Shared memory holds, per line, its whole right-hand side (turned into d' by the forward sweep)
// in a row of `ld` elements (ld odd: lane l's row r sits at l*ld + r, so the 32 lanes reading
// row r of their own lines, and the 32 lanes writing 32 consecutive rows of one line, hit 32
// different banks). For general coefficients c (turned into c') has such rows too, and a and b
// go through small rings of kRing rows, since they are used once, in the forward sweep.
// Loads are cp.async copies into shared memory, issued in chunks of 32 rows, D chunks ahead of
// the forward sweep (a commit group per chunk; waiting for "all but D-1 groups" before chunk k
// means chunk k has landed). The back substitution writes the solution:
//  - y/z: straight from the register to global memory (row r of the warp's lines is contiguous);
//  - x:   into shared memory chunk by chunk, then the warp writes the chunk out line by line,
//         32 consecutive elements per store instruction (local transposition).
// The source is written to compile as C++17 and C++20 (CMake 3.25, the project's minimum, has no
// C++20 flag for nvcc, and the CUDA standard is a property of the whole tridsim_lib target).
#include "solvers/tridiagonal/cuda/batched_cuda.hpp"

#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"

namespace tridsim::tridiag {

namespace {

// ---- error checking ---------------------------------------------------------------------------

void check_cuda(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess)
    throw Error(std::string("CUDA error at ") + file + ":" + std::to_string(line) + " in " + what + ": " +
                cudaGetErrorString(e));
}
void check_cusparse(cusparseStatus_t st, const char* what, const char* file, int line) {
  if (st != CUSPARSE_STATUS_SUCCESS)
    throw Error(std::string("cuSPARSE error at ") + file + ":" + std::to_string(line) + " in " + what + ": " +
                cusparseGetErrorString(st));
}
#define TRIDIAG_CUDA(call) check_cuda((call), #call, __FILE__, __LINE__)
#define TRIDIAG_LAUNCH(name) check_cuda(cudaGetLastError(), "launch of " name, __FILE__, __LINE__)
#define TRIDIAG_CUSPARSE(call) check_cusparse((call), #call, __FILE__, __LINE__)

// ---- geometry and tuning constants ----------------------------------------------------------------

constexpr int kWarp = 32;
constexpr int kChunk = 32;                         // rows per pipeline stage
constexpr int kStagesUniform = 4;                  // chunks in flight ahead of the sweep (uniform)
constexpr int kStagesArrays = 2;                   // (general coefficients: 4 arrays per row)
constexpr int kRing = kStagesArrays * kChunk;      // rows in the a and b rings (a power of two)
constexpr int kRingLd = kRing + 1;                 // odd row length of a ring
constexpr int kNaiveThreads = 128;
constexpr int kMinBlocks = 16;                     // launch bounds: <= 128 registers per thread

struct Geometry {
  index_t n = 0;      // line length
  index_t s = 1;      // element stride along the lines
  index_t count = 0;  // number of lines
  index_t nA = 1, sA = 0, sB = 0;  // line q starts at (q % nA) * sA + (q / nA) * sB
  int ld = 1;         // shared-memory row length of one line (odd)
  int lpw = kWarp;    // lines per warp
};

Geometry geometry(const LineSet& L) {
  Geometry g;
  g.n = L.length();
  g.s = L.stride[L.axis];
  g.count = L.count();
  if (L.axis == 0) {
    g.nA = L.n[1]; g.sA = L.stride[1]; g.sB = L.stride[2];
  } else if (L.axis == 1) {
    g.nA = L.n[0]; g.sA = 1; g.sB = L.stride[2];
  } else {
    g.nA = L.n[0]; g.sA = 1; g.sB = L.stride[1];
  }
  g.ld = int(g.n % 2 == 0 ? g.n + 1 : g.n);
  return g;
}

// Checks shared by every entry point; false when there is nothing to do. (Same order as the CPU
// solve_lines: an empty set of lines is accepted whatever its strides.)
bool validate(const LineSet& L, const char* who) {
  if (L.axis < 0 || L.axis > 2) throw Error(std::string(who) + ": axis must be 0, 1 or 2");
  for (int a = 0; a < 3; ++a)
    if (L.n[a] < 0) throw Error(std::string(who) + ": negative extent");
  if (L.length() == 0 || L.count() == 0) return false;
  if (L.stride[0] != 1) throw Error(std::string(who) + ": the x stride must be 1 (x-fastest arrays)");
  if (L.length() > INT_MAX) throw Error(std::string(who) + ": lines longer than 2^31 - 1 elements");
  return true;
}

// ---- device limits and kernel attributes -----------------------------------------------------------

struct Limits {
  std::size_t optin = 48 << 10;     // dynamic shared memory one block may ask for
  std::size_t per_sm = 48 << 10;    // shared memory of one multiprocessor
  std::size_t reserved = 0;         // shared memory the system reserves per block
  int max_blocks = 16, max_threads = 1024;
};

int current_device() {
  int dev = 0;
  TRIDIAG_CUDA(cudaGetDevice(&dev));
  return dev;
}

Limits device_limits(int dev) {
  static std::mutex mu;
  static std::map<int, Limits> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(dev);
  if (it != cache.end()) return it->second;
  Limits lim;
  int v = 0;
  TRIDIAG_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  lim.optin = std::size_t(v);
  TRIDIAG_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
  lim.per_sm = std::size_t(v);
  TRIDIAG_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrReservedSharedMemoryPerBlock, dev));
  lim.reserved = std::size_t(v);
  TRIDIAG_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrMaxBlocksPerMultiprocessor, dev));
  lim.max_blocks = v;
  TRIDIAG_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
  lim.max_threads = v;
  cache.emplace(dev, lim);
  return lim;
}

// Allow a kernel the device's whole opt-in shared memory and prefer the largest shared-memory
// carveout (once per kernel and device).
template <class Kernel>
void prepare_kernel(Kernel kernel, int dev, const Limits& lim) {
  static std::mutex mu;
  static std::set<std::pair<const void*, int>> done;
  const auto key = std::make_pair(reinterpret_cast<const void*>(kernel), dev);
  std::lock_guard<std::mutex> lock(mu);
  if (done.count(key)) return;
  TRIDIAG_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(lim.optin)));
  TRIDIAG_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    int(cudaSharedmemCarveoutMaxShared)));
  done.insert(key);
}

// Lines per warp: as many lines resident per multiprocessor as shared memory allows (a smaller
// warp only when it gains more than 10% resident lines). shared_memory = false when not even one
// line fits in a block's shared memory.
GpuLaunchPlan make_plan(int ld, bool uniform, std::size_t elem, const Limits& lim) {
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

// ---- device helpers ------------------------------------------------------------------------------

__device__ __forceinline__ index_t line_base(const Geometry& g, index_t q) {
  return (q % g.nA) * g.sA + (q / g.nA) * g.sB;
}

__device__ __forceinline__ int imin(int x, int y) { return x < y ? x : y; }

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
template <class T, bool AlongX>
__global__ void __launch_bounds__(kWarp, kMinBlocks)
    thomas_uniform_smem(Geometry g, const T* __restrict__ A, const T* __restrict__ M, const T* __restrict__ CP,
                        T* __restrict__ d) {
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
          d[base + index_t(r) * s] = next;
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
        if (r < n) d[bl + r] = buf[l * ld + r];
      }
    }
  }
}

// General coefficients a, b, c (arrays in the layout of d). c is turned into c' in place in
// shared memory, d into d'; a and b pass through rings of kRing rows.
template <class T, bool AlongX>
__global__ void __launch_bounds__(kWarp, kMinBlocks)
    thomas_arrays_smem(Geometry g, const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                       T* __restrict__ d) {
  constexpr int D = kStagesArrays, R = kRing, ldr = kRingLd;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int lane = int(threadIdx.x);
  const index_t q0 = index_t(blockIdx.x) * g.lpw;
  const int nl = int(g.count - q0 < index_t(g.lpw) ? g.count - q0 : index_t(g.lpw));
  const bool active = lane < nl;
  const index_t base = active ? line_base(g, q0 + lane) : 0;
  const int n = int(g.n), ld = g.ld, nchunks = (n + kChunk - 1) / kChunk;
  const index_t s = g.s;
  T* const dbuf = reinterpret_cast<T*>(smem_raw);  // lpw rows of ld: d, then d'
  T* const cbuf = dbuf + g.lpw * ld;                // lpw rows of ld: c, then c'
  T* const abuf = cbuf + g.lpw * ld;                // lpw rings of ldr: a
  T* const bbuf = abuf + g.lpw * ldr;               // lpw rings of ldr: b
  const int me = active ? lane : 0;
  T* const md = dbuf + me * ld;
  T* const mc = cbuf + me * ld;
  T* const ma = abuf + me * ldr;
  T* const mb = bbuf + me * ldr;

  auto issue = [&](int k) {
    if (k < nchunks) {
      const int r0 = k * kChunk;
      if constexpr (AlongX) {
        const int r = r0 + lane, w = r & (R - 1);
        for (int l = 0; l < nl; ++l) {
          const index_t bl = __shfl_sync(0xffffffffu, base, l);
          if (r < n) {
            const index_t o = bl + r;
            cp_async(dbuf + l * ld + r, d + o);
            cp_async(cbuf + l * ld + r, c + o);
            cp_async(abuf + l * ldr + w, a + o);
            cp_async(bbuf + l * ldr + w, b + o);
          }
        }
      } else if (active) {
        const int r1 = imin(n, r0 + kChunk);
        for (int r = r0; r < r1; ++r) {
          const index_t o = base + index_t(r) * s;
          const int w = r & (R - 1);
          cp_async(md + r, d + o);
          cp_async(mc + r, c + o);
          cp_async(ma + w, a + o);
          cp_async(mb + w, b + o);
        }
      }
    }
    cp_async_commit();
  };

  for (int k = 0; k < D; ++k) issue(k);
  T cprev = T(0), dprev = T(0);
  for (int k = 0; k < nchunks; ++k) {
    cp_async_wait<D - 1>();
    __syncwarp();
    if (active) {
      const int r0 = k * kChunk;
      const T* const ra = ma + (r0 & (R - 1)) - r0;  // ra[r], rb[r]: row r of the rings
      const T* const rb = mb + (r0 & (R - 1)) - r0;
      auto row = [&](int r, T ar, T br, T cr, T dr) {
        ar = r > 0 ? ar : T(0);  // a_0 is never used (it may be anything)
        const T inv = T(1) / (br - ar * cprev);
        cprev = r + 1 < n ? cr * inv : T(0);  // nor is c_{n-1}
        mc[r] = cprev;
        dprev = (dr - ar * dprev) * inv;
        md[r] = dprev;
      };
      const int r1 = imin(n, r0 + kChunk);
      if (r1 - r0 == kChunk) {
        // Groups of 8 rows: their loads first, into registers, then the chain (the division's
        // slow path is a call, past which the compiler would not move the loads by itself).
        constexpr int G = 8;
#pragma unroll
        for (int j = 0; j < kChunk; j += G) {
          T av[G], bv[G], cv[G], dv[G];
#pragma unroll
          for (int i = 0; i < G; ++i) {
            const int r = r0 + j + i;
            av[i] = ra[r]; bv[i] = rb[r]; cv[i] = mc[r]; dv[i] = md[r];
          }
#pragma unroll
          for (int i = 0; i < G; ++i) row(r0 + j + i, av[i], bv[i], cv[i], dv[i]);
        }
      } else {
        for (int r = r0; r < r1; ++r) row(r, ra[r], rb[r], mc[r], md[r]);
      }
    }
    __syncwarp();  // every lane is done with the ring rows of chunk k before they are refilled
    issue(k + D);
  }

  T next = T(0);
  for (int k = nchunks - 1; k >= 0; --k) {
    const int r0 = k * kChunk, r1 = imin(n, r0 + kChunk);
    if constexpr (!AlongX) {
      if (active)
        rows_down(r0, r1, [&](int r) {
          next = md[r] - mc[r] * next;
          d[base + index_t(r) * s] = next;
        });
    } else {
      if (active)
        rows_down(r0, r1, [&](int r) {
          next = md[r] - mc[r] * next;
          md[r] = next;
        });
      __syncwarp();
      const int r = r0 + lane;
      for (int l = 0; l < nl; ++l) {
        const index_t bl = __shfl_sync(0xffffffffu, base, l);
        if (r < n) d[bl + r] = dbuf[l * ld + r];
      }
    }
  }
}

// ---- kernels: naive Thomas (global memory) ---------------------------------------------------------

template <class T>
__global__ void thomas_uniform_global(Geometry g, const T* __restrict__ A, const T* __restrict__ M,
                                      const T* __restrict__ CP, T* __restrict__ d) {
  const index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= g.count) return;
  const index_t base = line_base(g, q), s = g.s;
  const int n = int(g.n);
  T prev = T(0);
  for (int r = 0; r < n; ++r) {
    const index_t o = base + index_t(r) * s;
    prev = (d[o] - __ldg(A + r) * prev) * __ldg(M + r);
    d[o] = prev;
  }
  T next = T(0);
  for (int r = n - 1; r >= 0; --r) {
    const index_t o = base + index_t(r) * s;
    next = d[o] - __ldg(CP + r) * next;
    d[o] = next;
  }
}

// c' goes to scratch[r * count + q] (consecutive lines adjacent).
template <class T>
__global__ void thomas_arrays_global(Geometry g, const T* __restrict__ a, const T* __restrict__ b,
                                     const T* __restrict__ c, T* __restrict__ d, T* __restrict__ scratch) {
  const index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= g.count) return;
  const index_t base = line_base(g, q), s = g.s;
  const int n = int(g.n);
  T cprev = T(0), dprev = T(0);
  for (int r = 0; r < n; ++r) {
    const index_t o = base + index_t(r) * s;
    const T ar = r > 0 ? a[o] : T(0);
    const T inv = T(1) / (b[o] - ar * cprev);
    cprev = r + 1 < n ? c[o] * inv : T(0);
    scratch[index_t(r) * g.count + q] = cprev;
    dprev = (d[o] - ar * dprev) * inv;
    d[o] = dprev;
  }
  T next = T(0);
  for (int r = n - 1; r >= 0; --r) {
    const index_t o = base + index_t(r) * s;
    next = d[o] - scratch[index_t(r) * g.count + q] * next;
    d[o] = next;
  }
}

// ---- kernel: coefficient arrays for cuSPARSE ----------------------------------------------------------

// Full rows (lower dl with dl_0 = 0, diagonal dd, upper du with du_{n-1} = 0) in the layout of d,
// from a factored uniform matrix (A non-null: b_r = 1/m_r + a_r cp_{r-1}, c_r = cp_r / m_r) or
// from arrays a, b, c.
template <class T>
__global__ void fill_coefficients(Geometry g, const T* __restrict__ A, const T* __restrict__ M,
                                  const T* __restrict__ CP, const T* __restrict__ a, const T* __restrict__ b,
                                  const T* __restrict__ c, T* __restrict__ dl, T* __restrict__ dd,
                                  T* __restrict__ du) {
  const index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= g.count) return;
  const index_t base = line_base(g, q), s = g.s;
  const int n = int(g.n);
  for (int r = 0; r < n; ++r) {
    const index_t o = base + index_t(r) * s;
    T lower, diag, upper;
    if (A) {
      const T pivot = T(1) / M[r];
      lower = r > 0 ? A[r] : T(0);
      diag = pivot + (r > 0 ? A[r] * CP[r - 1] : T(0));
      upper = r + 1 < n ? CP[r] * pivot : T(0);
    } else {
      lower = r > 0 ? a[o] : T(0);
      diag = b[o];
      upper = r + 1 < n ? c[o] : T(0);
    }
    dl[o] = lower;
    dd[o] = diag;
    du[o] = upper;
  }
}

// ---- launches ---------------------------------------------------------------------------------------

unsigned grid_size(index_t blocks) {
  if (blocks > index_t(INT_MAX)) throw Error("tridiagonal solver (cuda): too many lines for one launch");
  return unsigned(blocks);
}

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

template <class T>
void launch_uniform(const LineSet& L, const T* A, const T* M, const T* CP, T* d, cudaStream_t stream,
                    GpuAlgorithm alg) {
  const Geometry g = geometry(L);
  const int dev = current_device();
  const Limits lim = device_limits(dev);
  const GpuLaunchPlan plan = make_plan(g.ld, true, sizeof(T), lim);
  if (alg == GpuAlgorithm::thomas && plan.shared_memory) {
    launch_smem(L, g, plan, dev, lim, thomas_uniform_smem<T, true>, thomas_uniform_smem<T, false>, stream, A, M, CP, d);
    TRIDIAG_LAUNCH("thomas_uniform_smem");
    return;
  }
  const unsigned blocks = grid_size((g.count + kNaiveThreads - 1) / kNaiveThreads);
  thomas_uniform_global<T><<<blocks, kNaiveThreads, 0, stream>>>(g, A, M, CP, d);
  TRIDIAG_LAUNCH("thomas_uniform_global");
}

template <class T>
void launch_arrays(const LineSet& L, const T* a, const T* b, const T* c, T* d, cudaStream_t stream,
                   GpuAlgorithm alg) {
  const Geometry g = geometry(L);
  const int dev = current_device();
  const Limits lim = device_limits(dev);
  const GpuLaunchPlan plan = make_plan(g.ld, false, sizeof(T), lim);
  if (alg == GpuAlgorithm::thomas && plan.shared_memory) {
    launch_smem(L, g, plan, dev, lim, thomas_arrays_smem<T, true>, thomas_arrays_smem<T, false>, stream, a, b, c, d);
    TRIDIAG_LAUNCH("thomas_arrays_smem");
    return;
  }
  // Naive: c' in a stream-ordered scratch array of n * count elements.
  void* scratch = nullptr;
  TRIDIAG_CUDA(cudaMallocAsync(&scratch, sizeof(T) * std::size_t(g.n) * std::size_t(g.count), stream));
  const unsigned blocks = grid_size((g.count + kNaiveThreads - 1) / kNaiveThreads);
  thomas_arrays_global<T><<<blocks, kNaiveThreads, 0, stream>>>(g, a, b, c, d, static_cast<T*>(scratch));
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t freed = cudaFreeAsync(scratch, stream);
  check_cuda(launch, "launch of thomas_arrays_global", __FILE__, __LINE__);
  TRIDIAG_CUDA(freed);
}

template <class T>
void fill(const LineSet& L, const T* A, const T* M, const T* CP, const T* a, const T* b, const T* c, T* dl, T* dd,
          T* du, cudaStream_t stream) {
  const Geometry g = geometry(L);
  const unsigned blocks = grid_size((g.count + kNaiveThreads - 1) / kNaiveThreads);
  fill_coefficients<T><<<blocks, kNaiveThreads, 0, stream>>>(g, A, M, CP, a, b, c, dl, dd, du);
  TRIDIAG_LAUNCH("fill_coefficients");
}

// ---- cuSPARSE by precision ------------------------------------------------------------------------------

cusparseStatus_t strided_buffer(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du,
                                const float* x, int batch, int stride, std::size_t* bytes) {
  return cusparseSgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, batch, stride, bytes);
}
cusparseStatus_t strided_buffer(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du,
                                const double* x, int batch, int stride, std::size_t* bytes) {
  return cusparseDgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, batch, stride, bytes);
}
cusparseStatus_t strided_solve(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du, float* x,
                               int batch, int stride, void* work) {
  return cusparseSgtsv2StridedBatch(h, m, dl, d, du, x, batch, stride, work);
}
cusparseStatus_t strided_solve(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du,
                               double* x, int batch, int stride, void* work) {
  return cusparseDgtsv2StridedBatch(h, m, dl, d, du, x, batch, stride, work);
}
cusparseStatus_t interleaved_buffer(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du,
                                    const float* x, int batch, std::size_t* bytes) {
  return cusparseSgtsvInterleavedBatch_bufferSizeExt(h, 0, m, dl, d, du, x, batch, bytes);
}
cusparseStatus_t interleaved_buffer(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du,
                                    const double* x, int batch, std::size_t* bytes) {
  return cusparseDgtsvInterleavedBatch_bufferSizeExt(h, 0, m, dl, d, du, x, batch, bytes);
}
cusparseStatus_t interleaved_solve(cusparseHandle_t h, int m, float* dl, float* d, float* du, float* x, int batch,
                                   void* work) {
  return cusparseSgtsvInterleavedBatch(h, 0, m, dl, d, du, x, batch, work);
}
cusparseStatus_t interleaved_solve(cusparseHandle_t h, int m, double* dl, double* d, double* du, double* x, int batch,
                                   void* work) {
  return cusparseDgtsvInterleavedBatch(h, 0, m, dl, d, du, x, batch, work);
}

// Device bytes that only grow.
struct DeviceBytes {
  void* p = nullptr;
  std::size_t size = 0;
  void reserve(std::size_t bytes) {
    if (bytes <= size) return;
    release();
    TRIDIAG_CUDA(cudaMalloc(&p, bytes));
    size = bytes;
  }
  void release() {
    if (p) cudaFree(p);  // (errors at teardown are ignored)
    p = nullptr;
    size = 0;
  }
  ~DeviceBytes() { release(); }
};

// Elements spanned by an array with the layout of L (first to last element, padding included).
index_t extent(const LineSet& L) {
  return (L.n[2] - 1) * L.stride[2] + (L.n[1] - 1) * L.stride[1] + L.n[0];
}

std::atomic<std::uint64_t> next_matrix_id{1};

}  // namespace

// ---- UniformMatrixDevice ------------------------------------------------------------------------------

template <class T>
UniformMatrixDevice<T>::UniformMatrixDevice(const UniformMatrix<T>& M) : n_(M.size()), id_(next_matrix_id++) {
  if (n_ == 0) return;
  std::vector<T> host(3 * std::size_t(n_));
  std::copy(M.a(), M.a() + n_, host.begin());
  std::copy(M.m(), M.m() + n_, host.begin() + n_);
  std::copy(M.cp(), M.cp() + n_, host.begin() + 2 * n_);
  host[0] = T(0);               // a_0 is not part of the matrix
  host[3 * n_ - 1] = T(0);      // nor is c_{n-1} (cp_{n-1} multiplies x_n = 0 in the back sweep)
  TRIDIAG_CUDA(cudaMalloc(reinterpret_cast<void**>(&data_), sizeof(T) * host.size()));
  const cudaError_t e = cudaMemcpy(data_, host.data(), sizeof(T) * host.size(), cudaMemcpyHostToDevice);
  if (e != cudaSuccess) {
    cudaFree(data_);
    data_ = nullptr;
    check_cuda(e, "cudaMemcpy (upload of a uniform matrix)", __FILE__, __LINE__);
  }
}

template <class T>
UniformMatrixDevice<T>::~UniformMatrixDevice() {
  if (data_) cudaFree(data_);
}

template <class T>
UniformMatrixDevice<T>::UniformMatrixDevice(UniformMatrixDevice&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), n_(std::exchange(o.n_, 0)), id_(std::exchange(o.id_, 0)) {}

template <class T>
UniformMatrixDevice<T>& UniformMatrixDevice<T>::operator=(UniformMatrixDevice&& o) noexcept {
  if (this != &o) {
    if (data_) cudaFree(data_);
    data_ = std::exchange(o.data_, nullptr);
    n_ = std::exchange(o.n_, 0);
    id_ = std::exchange(o.id_, 0);
  }
  return *this;
}

// ---- cuSPARSE baseline --------------------------------------------------------------------------------

struct CusparseTridiagonal::Impl {
  cusparseHandle_t handle = nullptr;
  DeviceBytes work;    // cuSPARSE's buffer
  DeviceBytes coeffs;  // dl, dd, du in the layout of d (3 * extent elements)
  // What coeffs holds, when it holds an expanded uniform matrix for the strided (x) path.
  std::uint64_t coeff_id = 0;
  std::size_t coeff_elem = 0;
  LineSet coeff_layout{};

  template <class T>
  T* coefficient_arrays(const LineSet& L) {
    const std::size_t e = std::size_t(extent(L));
    coeffs.reserve(3 * e * sizeof(T));
    return static_cast<T*>(coeffs.p);
  }

  template <class T>
  void run(const LineSet& L, const T* dl, const T* dd, const T* du, T* x) {
    const int m = int(L.length());
    if (L.axis == 0) {
      const bool whole = L.n[2] == 1 || L.stride[2] == L.n[1] * L.stride[1];
      const index_t batch = whole ? L.n[1] * L.n[2] : L.n[1];
      const index_t planes = whole ? 1 : L.n[2];
      const int stride = int(batch == 1 ? std::max<index_t>(L.stride[1], m) : L.stride[1]);
      std::size_t bytes = 0;
      TRIDIAG_CUSPARSE(strided_buffer(handle, m, dl, dd, du, x, int(batch), stride, &bytes));
      work.reserve(std::max<std::size_t>(bytes, 128));
      for (index_t p = 0; p < planes; ++p) {
        const index_t off = p * L.stride[2];
        TRIDIAG_CUSPARSE(strided_solve(handle, m, dl + off, dd + off, du + off, x + off, int(batch), stride, work.p));
      }
    } else {
      // Interleaved: row r of line q at r * batch + q (checked by supports()).
      const index_t batch = L.axis == 2 ? L.n[0] * L.n[1] : L.n[0];
      const index_t planes = L.axis == 2 ? 1 : L.n[2];
      std::size_t bytes = 0;
      TRIDIAG_CUSPARSE(interleaved_buffer(handle, m, dl, dd, du, x, int(batch), &bytes));
      work.reserve(std::max<std::size_t>(bytes, 128));
      for (index_t p = 0; p < planes; ++p) {
        const index_t off = p * L.stride[2];
        TRIDIAG_CUSPARSE(interleaved_solve(handle, m, const_cast<T*>(dl) + off, const_cast<T*>(dd) + off,
                                           const_cast<T*>(du) + off, x + off, int(batch), work.p));
      }
    }
  }
};

CusparseTridiagonal::CusparseTridiagonal() : impl_(std::make_unique<Impl>()) {
  TRIDIAG_CUSPARSE(cusparseCreate(&impl_->handle));
}

CusparseTridiagonal::~CusparseTridiagonal() {
  if (impl_ && impl_->handle) cusparseDestroy(impl_->handle);
}

bool CusparseTridiagonal::supports(const LineSet& L) {
  if (L.axis < 0 || L.axis > 2 || L.stride[0] != 1 || L.length() < 3) return false;
  if (extent(L) > index_t(INT_MAX) / 2) return false;  // cuSPARSE indexes with int
  if (L.axis == 0) return L.n[1] == 1 || L.stride[1] >= L.n[0];
  if (L.axis == 1) return L.stride[1] == L.n[0];
  return L.stride[1] == L.n[0] && L.stride[2] == L.n[0] * L.n[1];
}

template <class T>
void CusparseTridiagonal::solve(const LineSet& L, const T* a, const T* b, const T* c, T* d, cudaStream_t stream,
                                bool ends_are_zero) {
  if (!validate(L, "tridiagonal solver (cusparse)")) return;
  if (!supports(L))
    throw Error("tridiagonal solver (cusparse): this layout is not supported by the cuSPARSE baseline (x lines, "
                "or y/z lines of unpadded arrays, of length >= 3)");
  Impl& I = *impl_;
  TRIDIAG_CUSPARSE(cusparseSetStream(I.handle, stream));
  if (L.axis == 0 && ends_are_zero) {
    I.run<T>(L, a, b, c, d);
    return;
  }
  T* dl = I.coefficient_arrays<T>(L);
  const index_t e = extent(L);
  I.coeff_id = 0;  // (no longer an expanded uniform matrix)
  fill<T>(L, nullptr, nullptr, nullptr, a, b, c, dl, dl + e, dl + 2 * e, stream);
  I.run<T>(L, dl, dl + e, dl + 2 * e, d);
}

template <class T>
void CusparseTridiagonal::solve(const LineSet& L, const UniformMatrixDevice<T>& M, T* d, cudaStream_t stream) {
  if (!validate(L, "tridiagonal solver (cusparse)")) return;
  if (M.size() != L.length())
    throw Error("tridiagonal solver (cusparse): the uniform matrix has " + std::to_string(M.size()) +
                " rows but the lines have length " + std::to_string(L.length()));
  if (!supports(L))
    throw Error("tridiagonal solver (cusparse): this layout is not supported by the cuSPARSE baseline (x lines, "
                "or y/z lines of unpadded arrays, of length >= 3)");
  Impl& I = *impl_;
  TRIDIAG_CUSPARSE(cusparseSetStream(I.handle, stream));
  T* dl = I.coefficient_arrays<T>(L);
  const index_t e = extent(L);
  const bool cached = L.axis == 0 && I.coeff_id == M.id() && I.coeff_elem == sizeof(T) && I.coeff_layout.n == L.n &&
                      I.coeff_layout.stride == L.stride && I.coeff_layout.axis == L.axis;
  if (!cached) {
    fill<T>(L, M.a(), M.m(), M.cp(), nullptr, nullptr, nullptr, dl, dl + e, dl + 2 * e, stream);
    // gtsvInterleavedBatch may overwrite its coefficients: keep only the x path's expansion.
    I.coeff_id = L.axis == 0 ? M.id() : 0;
    I.coeff_elem = sizeof(T);
    I.coeff_layout = L;
  }
  I.run<T>(L, dl, dl + e, dl + 2 * e, d);
}

// ---- entry points ---------------------------------------------------------------------------------------

namespace {
CusparseTridiagonal& thread_baseline() {
  thread_local CusparseTridiagonal baseline;
  return baseline;
}
}  // namespace

template <class T>
void solve_lines_cuda(const LineSet& L, const UniformMatrixDevice<T>& M, T* d, cudaStream_t stream, GpuAlgorithm alg) {
  if (!validate(L, "tridiagonal solver (cuda)")) return;
  if (M.size() != L.length())
    throw Error("tridiagonal solver (cuda): the uniform matrix has " + std::to_string(M.size()) +
                " rows but the lines have length " + std::to_string(L.length()));
  if (alg == GpuAlgorithm::cusparse) {
    thread_baseline().solve<T>(L, M, d, stream);
    return;
  }
  launch_uniform<T>(L, M.a(), M.m(), M.cp(), d, stream, alg);
}

template <class T>
void solve_lines_cuda(const LineSet& L, const T* a, const T* b, const T* c, T* d, cudaStream_t stream,
                      GpuAlgorithm alg) {
  if (!validate(L, "tridiagonal solver (cuda)")) return;
  if (alg == GpuAlgorithm::cusparse) {
    thread_baseline().solve<T>(L, a, b, c, d, stream, false);
    return;
  }
  launch_arrays<T>(L, a, b, c, d, stream, alg);
}

template <class T>
GpuLaunchPlan plan_lines_cuda(const LineSet& L, bool uniform) {
  if (L.length() <= 0) return {};
  const Geometry g = geometry(L);
  return make_plan(g.ld, uniform, sizeof(T), device_limits(current_device()));
}

#define TRIDIAG_INSTANTIATE(T)                                                                                   \
  template class UniformMatrixDevice<T>;                                                                         \
  template void solve_lines_cuda<T>(const LineSet&, const UniformMatrixDevice<T>&, T*, cudaStream_t, GpuAlgorithm); \
  template void solve_lines_cuda<T>(const LineSet&, const T*, const T*, const T*, T*, cudaStream_t, GpuAlgorithm);  \
  template GpuLaunchPlan plan_lines_cuda<T>(const LineSet&, bool);                                               \
  template void CusparseTridiagonal::solve<T>(const LineSet&, const UniformMatrixDevice<T>&, T*, cudaStream_t);   \
  template void CusparseTridiagonal::solve<T>(const LineSet&, const T*, const T*, const T*, T*, cudaStream_t, bool);

TRIDIAG_INSTANTIATE(float)
TRIDIAG_INSTANTIATE(double)

}  // namespace tridsim::tridiag
