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
#include "solvers/tridiagonal/cuda/kernel_support.cuh"
#include "solvers/tridiagonal/cuda/line_solve.cuh"
#include "solvers/tridiagonal/cuda/thomas_smem.cuh"
#include "solvers/tridiagonal/cuda/warp_solvers.hpp"

namespace tridsim::tridiag {

using namespace detail;

namespace {

// ---- cuSPARSE error checking ----------------------------------------------------------------

void check_cusparse(cusparseStatus_t st, const char* what, const char* file, int line) {
  if (st != CUSPARSE_STATUS_SUCCESS)
    throw Error(std::string("cuSPARSE error at ") + file + ":" + std::to_string(line) + " in " + what + ": " +
                cusparseGetErrorString(st));
}
#define TRIDIAG_CUSPARSE(call) check_cusparse((call), #call, __FILE__, __LINE__)

// ---- tuning constants (the rest in thomas_smem.cuh) -----------------------------------

constexpr int kNaiveThreads = 128;

// ---- kernels: shared-memory Thomas with general coefficients ---------------------------------

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

// Thomas on coefficient arrays in place: the pipelined kernel (asynchronous copies a few chunks
// ahead of the sweep) for lines up to kSegmentedAbove that fit in shared memory; longer lines go to
// gpu::solve_lines's thomas (tiled, or segmented_lines.cuh).
template <class T>
void launch_arrays(const LineSet& L, const T* a, const T* b, const T* c, T* d, cudaStream_t stream) {
  const Geometry g = geometry(L);
  const int dev = current_device();
  const Limits lim = device_limits(dev);
  const GpuLaunchPlan plan = make_plan(g.ld, false, sizeof(T), lim);
  if (!plan.shared_memory || g.n > gpu::kSegmentedAbove)  // long lines: thomas picks tiled or segmented
    return gpu::solve_lines<T>(L, gpu::ArrayRows<T>{a, b, c}, gpu::ArrayLoad<T>{d}, gpu::ArrayStore<T>{d},
                               GpuAlgorithm::thomas, stream);
  launch_smem(L, g, plan, dev, lim, thomas_arrays_smem<T, true>, thomas_arrays_smem<T, false>, stream, a, b, c, d);
  TRIDIAG_LAUNCH("thomas_arrays_smem");
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
  const std::size_t n = std::size_t(n_);
  // a, m, cp; the rows b, c rebuilt from them; the scan table
  std::vector<T> host(5 * n + 5 * std::size_t(detail::uniform_scan_plane(n_)));
  std::copy(M.a(), M.a() + n, host.begin());
  std::copy(M.m(), M.m() + n, host.begin() + n);
  std::copy(M.cp(), M.cp() + n, host.begin() + 2 * n);
  host[0] = T(0);          // a_0 is not part of the matrix
  host[3 * n - 1] = T(0);  // nor is c_{n-1} (cp_{n-1} multiplies x_n = 0 in the back sweep)
  for (std::size_t r = 0; r < n; ++r) {  // b_r = 1/m_r + a_r cp_{r-1}, c_r = cp_r / m_r
    const double pivot = 1.0 / double(host[n + r]);
    host[3 * n + r] = T(pivot + (r > 0 ? double(host[r]) * double(host[2 * n + r - 1]) : 0.0));
    host[4 * n + r] = T(double(host[2 * n + r]) * pivot);
  }
  detail::uniform_scan_table<T>(n_, host.data(), host.data() + n, host.data() + 2 * n, host.data() + 5 * n);
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
  alg = resolve_gpu_algorithm(alg, L, true, sizeof(T));
  if (alg == GpuAlgorithm::cusparse) return thread_baseline().solve<T>(L, M, d, stream);
  if (alg == GpuAlgorithm::thomas_shuffle)
    return launch_thomas_shuffle<T>(L, RowSource<T>{true, M.a()}, M.m(), M.cp(), d, stream);
  gpu::solve_lines<T>(L, gpu::factored_rows(M), gpu::ArrayLoad<T>{d}, gpu::ArrayStore<T>{d}, alg, stream);
}

template <class T>
void solve_lines_cuda(const LineSet& L, const T* a, const T* b, const T* c, T* d, cudaStream_t stream,
                      GpuAlgorithm alg) {
  if (!validate(L, "tridiagonal solver (cuda)")) return;
  alg = resolve_gpu_algorithm(alg, L, false, sizeof(T));
  if (alg == GpuAlgorithm::cusparse) return thread_baseline().solve<T>(L, a, b, c, d, stream, false);
  if (alg == GpuAlgorithm::thomas_shuffle)
    return launch_thomas_shuffle<T>(L, RowSource<T>{false, a, b, c}, nullptr, nullptr, d, stream);
  if (alg == GpuAlgorithm::thomas) return launch_arrays<T>(L, a, b, c, d, stream);
  gpu::solve_lines<T>(L, gpu::ArrayRows<T>{a, b, c}, gpu::ArrayLoad<T>{d}, gpu::ArrayStore<T>{d}, alg, stream);
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
