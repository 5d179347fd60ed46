#pragma once
// Block-tridiagonal line solvers on a CUDA device, host API (namespace tridsim::blocktri): every
// line along one axis of an x-fastest node array in device memory (LineSet: padding allowed,
// stride[0] == 1), solved in place with the semantics of the contract (block_rows.hpp) and of
// reference_solve_lines:
//   A_r x_{r-1} + B_r x_r + C_r x_{r+1} = d_r,   x_r, d_r in R^M, M = 1..8.
// The right-hand sides are overwritten by the solutions, in either species layout:
//   InterleavedAccess<T>{u, M}          u[o*M + s]      (one array of M-vectors)
//   PlanarAccess<T>{u, plane, M}        u[s*plane + o]  (one field per species)
// Block sources: BlockArrays<T> (device arrays, interleaved per node), CoupledDiffusionRows<T>
// (constant coupled diffusion: every line has the same rows, so it is factored once on the host
// and the factorization cached on the device; a solve then streams only u), and
// UniformBlocksDevice<T> (a UniformBlockMatrix uploaded once).
//
// Host API only: includable from .cpp files (no kernels here; block_solve.cuh has the templates
// for .cu files with load/store functors). All pointers are device pointers; the work is queued
// on `stream`. Every CUDA call and launch is checked (tridsim::Error with file:line).
// block_gpu_unsupported_reason (block_gpu_algorithm.hpp) says which algorithms take which M.
#include <cuda_runtime_api.h>

#include "core/coupled_diffusion.hpp"
#include "core/types.hpp"
#include "solvers/block_tridiagonal/block_gpu_algorithm.hpp"
#include "solvers/block_tridiagonal/block_rows.hpp"
#include "solvers/block_tridiagonal/uniform_blocks.hpp"

namespace tridsim::blocktri {

// The device view of a factored uniform matrix (the kernels' block source): per row r three
// M x M blocks, row-major, at pinv + r*M*M (likewise g, cs); see uniform_blocks.hpp.
template <class T>
struct UniformBlocks {
  const T* pinv = nullptr;
  const T* g = nullptr;
  const T* cs = nullptr;
  index_t n = 0;  // block rows
  int m = 0;
};

// A UniformBlockMatrix uploaded to the current device (synchronously, on construction) and
// freed on destruction. Movable, not copyable.
template <class T>
class UniformBlocksDevice {
 public:
  UniformBlocksDevice() = default;
  explicit UniformBlocksDevice(const UniformBlockMatrix<T>& M);
  ~UniformBlocksDevice();
  UniformBlocksDevice(UniformBlocksDevice&& other) noexcept;
  UniformBlocksDevice& operator=(UniformBlocksDevice&& other) noexcept;
  UniformBlocksDevice(const UniformBlocksDevice&) = delete;
  UniformBlocksDevice& operator=(const UniformBlocksDevice&) = delete;

  int m() const { return m_; }
  index_t size() const { return n_; }
  UniformBlocks<T> view() const {
    const index_t mm = index_t(m_) * m_;
    return {data_, data_ + n_ * mm, data_ + 2 * n_ * mm, n_, m_};
  }

 private:
  T* data_ = nullptr;  // pinv, g, cs
  index_t n_ = 0;
  int m_ = 0;
};

// In-place solves (the right-hand sides in u become the solutions). Throws Error when M is not
// 1..8, the access's M differs from the blocks', the uniform matrix's size differs from the line
// length, stride[0] != 1, or a CUDA call fails. `pivoting` does not apply to uniform matrices
// (they are factored with the pivoting they were built with).
template <class T>
void solve_lines_cuda(const LineSet& L, const BlockArrays<T>& blocks, const InterleavedAccess<T>& u,
                      BlockGpuAlgorithm alg = BlockGpuAlgorithm::automatic, Pivoting pivoting = Pivoting::partial,
                      cudaStream_t stream = 0);
template <class T>
void solve_lines_cuda(const LineSet& L, const BlockArrays<T>& blocks, const PlanarAccess<T>& u,
                      BlockGpuAlgorithm alg = BlockGpuAlgorithm::automatic, Pivoting pivoting = Pivoting::partial,
                      cudaStream_t stream = 0);
template <class T>
void solve_lines_cuda(const LineSet& L, const CoupledDiffusionRows<T>& rows, const InterleavedAccess<T>& u,
                      BlockGpuAlgorithm alg = BlockGpuAlgorithm::automatic, Pivoting pivoting = Pivoting::partial,
                      cudaStream_t stream = 0);
template <class T>
void solve_lines_cuda(const LineSet& L, const CoupledDiffusionRows<T>& rows, const PlanarAccess<T>& u,
                      BlockGpuAlgorithm alg = BlockGpuAlgorithm::automatic, Pivoting pivoting = Pivoting::partial,
                      cudaStream_t stream = 0);
template <class T>
void solve_lines_cuda(const LineSet& L, const UniformBlocksDevice<T>& M, const InterleavedAccess<T>& u,
                      BlockGpuAlgorithm alg = BlockGpuAlgorithm::automatic, cudaStream_t stream = 0);
template <class T>
void solve_lines_cuda(const LineSet& L, const UniformBlocksDevice<T>& M, const PlanarAccess<T>& u,
                      BlockGpuAlgorithm alg = BlockGpuAlgorithm::automatic, cudaStream_t stream = 0);

}  // namespace tridsim::blocktri
