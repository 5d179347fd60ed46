#pragma once
// Internals shared by the CUDA line-solver sources (batched_cuda.cu, warp_solvers.cu; namespace
// tridsim::tridiag::detail): error checks, the geometry of a LineSet as the kernels see it, device
// limits and kernel attributes. Include only from .cu files.
#include <cuda_runtime.h>

#include <climits>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "core/errors.hpp"
#include "solvers/tridiagonal/cuda/batched_cuda.hpp"

namespace tridsim::tridiag::detail {

inline void check_cuda(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess)
    throw Error(std::string("CUDA error at ") + file + ":" + std::to_string(line) + " in " + what + ": " +
                cudaGetErrorString(e));
}
#define TRIDIAG_CUDA(call) ::tridsim::tridiag::detail::check_cuda((call), #call, __FILE__, __LINE__)
#define TRIDIAG_LAUNCH(name) \
  ::tridsim::tridiag::detail::check_cuda(cudaGetLastError(), "launch of " name, __FILE__, __LINE__)

constexpr int kWarp = 32;

// 1/x on the dependent chains of the recurrences: the hardware's approximate reciprocal refined
// by Newton steps (two in double, one in float), within an ulp or two of the division at a
// fraction of its latency. (Flushes subnormal x to zero; pivots of solvable lines are not.)
__device__ __forceinline__ double reciprocal(double x) {
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  r = fma(r, fma(-x, r, 1.0), r);
  return fma(r, fma(-x, r, 1.0), r);
}
__device__ __forceinline__ float reciprocal(float x) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return fmaf(r, fmaf(-x, r, 1.0f), r);
}

struct Geometry {
  index_t n = 0;      // line length
  index_t s = 1;      // element stride along the lines
  index_t count = 0;  // number of lines
  index_t nA = 1, sA = 0, sB = 0;  // line q starts at (q % nA) * sA + (q / nA) * sB
  int ld = 1;         // shared-memory row length of one line (odd)
  int lpw = kWarp;    // lines per warp
};

inline Geometry geometry(const LineSet& L) {
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
inline bool validate(const LineSet& L, const char* who) {
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

inline int current_device() {
  int dev = 0;
  TRIDIAG_CUDA(cudaGetDevice(&dev));
  return dev;
}

inline Limits device_limits(int dev) {
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

inline unsigned grid_size(index_t blocks) {
  if (blocks > index_t(INT_MAX)) throw Error("tridiagonal solver (cuda): too many lines for one launch");
  return unsigned(blocks);
}


// ---- device helpers ------------------------------------------------------------------------------

__device__ __forceinline__ index_t line_base(const Geometry& g, index_t q) {
  return (q % g.nA) * g.sA + (q / g.nA) * g.sB;
}

__device__ __forceinline__ int imin(int x, int y) { return x < y ? x : y; }

}  // namespace tridsim::tridiag::detail
