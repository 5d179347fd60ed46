#pragma once
// Batched tridiagonal line solvers on a CUDA device (namespace tridsim::tridiag): every line along
// one axis of an x-fastest array in device memory (LineSet: padding allowed, stride[0] == 1),
// solved in place with the same semantics as the CPU solve_lines (batched.hpp): row r of a line
// reads
//   a_r x_{r-1} + b_r x_r + c_r x_{r+1} = d_r      (a_0 and c_{n-1} are ignored, never used),
// elements outside the lines (padding) are neither read nor written.
//
// Host API only: this header is includable from .cpp files compiled by the host compiler
// (it needs the CUDA include directory, which linking CUDA::cudart provides). All pointers
// passed here are device pointers; the work is queued on `stream` (asynchronous to the host).
// Every CUDA call and launch is checked and a failure raises tridsim::Error with file:line and
// the CUDA (or cuSPARSE) error string.
//
// Algorithms (GpuAlgorithm):
//  - thomas (default): one thread per line, 32 lines per warp, each warp independent. The
//    right-hand side (and for arrays a, b, c) is streamed into shared memory with asynchronous
//    copies (cp.async) a few 32-row chunks ahead of the forward sweep; d' (and c') stay in
//    shared memory, and the back substitution writes the solution straight out, so each
//    element of d is read once and written once, and each coefficient read once.
//      * lines along y or z: the lanes of a warp take x-adjacent lines, so every row of the
//        warp's lines is one contiguous run (coalesced loads and stores);
//      * lines along x: local transposition through shared memory (Laszlo, Giles & Appleyard
//        2014): the warp loads 32-row chunks of its lines cooperatively (each load instruction
//        reads 32 consecutive elements of one line), each lane then sweeps its own line, and
//        the solution chunks go back out the same coalesced way.
//    Uniform matrices read a, m, cp through the read-only cache (all lanes read the same row).
//    Lines too long for shared memory fall back to thomas_naive.
//  - thomas_naive: the paper's naive solver: one thread per line, d' overwritten in place in
//    global memory (and c' in a scratch array for general coefficients). Coalesced only for
//    y/z lines. Kept as a reference point and as the fallback for very long lines.
//  - thomas_pcr: the Thomas–PCR hybrid (warp_solvers.hpp, thomas_pcr.cuh), lines of at most 512
//    points: on x one warp per line held in registers; on y/z with a uniform matrix, segments of
//    64 x-adjacent lines spread over the warps of a block (with arrays on y/z it runs the x
//    kernel on strided lines, correct but slow). Fastest on x lines of a few hundred points.
//  - thomas_shuffle: Thomas with local transposition by register shuffles instead of shared
//    memory, x lines of at most 1024 points (thomas_shuffle.cu).
//  - pcr: parallel cyclic reduction, one thread per row (lines of at most 1024 points).
//  - cusparse: the cuSPARSE baseline (see CusparseTridiagonal below).
//  - automatic: the fastest of these for the axis, line length, batch size and precision, by
//    the table measured on an H100 (gpu_selection.cpp, written by tools/gpu_selection_table.py
//    from the line-solver benchmark).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <cuda_runtime_api.h>

#include "core/types.hpp"
#include "solvers/tridiagonal/coefficients.hpp"
#include "solvers/tridiagonal/line_solvers.hpp"
#include "solvers/tridiagonal/line_set.hpp"

namespace tridsim::tridiag {

// Why `alg` cannot solve the lines of L ("" when it can): line-length limits of thomas-pcr, pcr and
// thomas-shuffle, cuSPARSE layouts; thomas-shuffle and cusparse solve arrays in place only
// (in_place = false: a caller with load/store functors, line_solve.cuh). The deck layer asks this.
std::string gpu_unsupported_reason(GpuAlgorithm alg, const LineSet& L, bool in_place);
bool gpu_algorithm_supports(GpuAlgorithm alg, const LineSet& L);  // in place
// What `automatic` runs for L (never automatic): the fastest that can run these lines in the
// nearest case of the measured table (uniform: a factored matrix; otherwise arrays, which also
// stand for generated rows); any other alg as it is.
GpuAlgorithm resolve_gpu_algorithm(GpuAlgorithm alg, const LineSet& L, bool uniform, std::size_t elem_bytes,
                                   bool in_place = true);

// Device copies of the factorization of a UniformMatrix (a with a_0 = 0, inverse pivots m,
// modified upper diagonal cp with cp_{n-1} = 0). Uploads on construction (synchronously, on the
// current device), frees on destruction. Movable, not copyable.
template <class T>
class UniformMatrixDevice {
 public:
  UniformMatrixDevice() = default;
  explicit UniformMatrixDevice(const UniformMatrix<T>& M);
  ~UniformMatrixDevice();
  UniformMatrixDevice(UniformMatrixDevice&& other) noexcept;
  UniformMatrixDevice& operator=(UniformMatrixDevice&& other) noexcept;
  UniformMatrixDevice(const UniformMatrixDevice&) = delete;
  UniformMatrixDevice& operator=(const UniformMatrixDevice&) = delete;

  index_t size() const { return n_; }
  const T* a() const { return data_; }
  const T* m() const { return data_ + n_; }
  const T* cp() const { return data_ + 2 * n_; }
  const T* b() const { return data_ + 3 * n_; }  // the rows (b, and c with c_{n-1} = 0), rebuilt
  const T* c() const { return data_ + 4 * n_; }  // from the factorization for the PCR solvers
  const T* scan() const { return data_ + 5 * n_; }  // the table of thomas_pcr's warp-scan form
  // A number unique to this upload (caches of derived data key on it, not on addresses).
  std::uint64_t id() const { return id_; }

 private:
  T* data_ = nullptr;  // a, m, cp, b, c, then the scan table
  index_t n_ = 0;
  std::uint64_t id_ = 0;
};

// Solve every line of L in place: d_inout holds the right-hand sides on entry and the solutions
// on return. Throws tridsim::Error when the matrix does not match the lines, stride[0] != 1, or
// a CUDA call fails.
template <class T>
void solve_lines_cuda(const LineSet& L, const UniformMatrixDevice<T>& M, T* d_inout, cudaStream_t stream = 0,
                      GpuAlgorithm alg = GpuAlgorithm::thomas);

// General coefficients: a, b, c are device arrays with the layout of d (same strides and padding).
template <class T>
void solve_lines_cuda(const LineSet& L, const T* a, const T* b, const T* c, T* d_inout, cudaStream_t stream = 0,
                      GpuAlgorithm alg = GpuAlgorithm::thomas);

// How solve_lines_cuda(thomas) runs L on the current device (for tests, benchmarks and logs).
struct GpuLaunchPlan {
  bool shared_memory = false;   // false: the global-memory fallback (thomas_naive)
  int lines_per_warp = 0;       // lines solved by one warp (one block)
  std::size_t smem_bytes = 0;   // dynamic shared memory of one block
  int blocks_per_sm = 0;        // resident blocks per multiprocessor allowed by shared memory
};
template <class T>
GpuLaunchPlan plan_lines_cuda(const LineSet& L, bool uniform);

// The cuSPARSE baseline. Owns a cuSPARSE handle and device workspaces (RAII); create it on the
// device it will run on and use it from one host thread at a time.
//  - x lines: cusparse<t>gtsv2StridedBatch (batch stride = stride[1]), one call for the whole
//    array when planes are not padded (stride[2] == n[1]*stride[1]), else one call per z plane.
//  - y/z lines: cusparse<t>gtsvInterleavedBatch (cuThomas, algo 0) where the rows of the lines
//    are interleaved without gaps: z lines need stride[1] == n[0] and stride[2] == n[0]*n[1]
//    (one call); y lines need stride[1] == n[0] (one call per z plane). Other layouts are
//    refused (supports() is false and solve() throws).
//  - cuSPARSE needs lines of length n >= 3 and a zero first lower / last upper coefficient on
//    every line; the wrapper builds zeroed copies of a and c (ends_are_zero = false) unless the
//    caller promises its arrays already have zero ends (ends_are_zero = true, passed through
//    as they are). gtsvInterleavedBatch may overwrite its coefficient arrays, so the y/z path
//    always works on copies (rebuilt on every call, and timed as part of it).
//  - A UniformMatrixDevice is expanded once into full dl/d/du arrays in the layout of d (kept
//    for the next call with the same matrix and layout).
class CusparseTridiagonal {
 public:
  CusparseTridiagonal();
  ~CusparseTridiagonal();
  CusparseTridiagonal(const CusparseTridiagonal&) = delete;
  CusparseTridiagonal& operator=(const CusparseTridiagonal&) = delete;

  static bool supports(const LineSet& L);
  template <class T>
  void solve(const LineSet& L, const UniformMatrixDevice<T>& M, T* d_inout, cudaStream_t stream = 0);
  template <class T>
  void solve(const LineSet& L, const T* a, const T* b, const T* c, T* d_inout, cudaStream_t stream = 0,
             bool ends_are_zero = false);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tridsim::tridiag
