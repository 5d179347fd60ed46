// Host API of the CUDA block-tridiagonal solvers (block_batched_cuda.hpp): the in-place entry
// points over device arrays, instantiated for float and double, on the kernels of
// block_solve.cuh. Constant coupled diffusion is factored once on the host (UniformBlockMatrix)
// and its factorization kept on the device for the next call with the same rows.
#include "solvers/block_tridiagonal/cuda/block_batched_cuda.hpp"

#include <cuda_runtime.h>

#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <utility>

#include "solvers/block_tridiagonal/cuda/block_solve.cuh"

namespace tridsim::blocktri {

// ---- UniformBlocksDevice ---------------------------------------------------------------------------

template <class T>
UniformBlocksDevice<T>::UniformBlocksDevice(const UniformBlockMatrix<T>& M) : n_(M.size()), m_(M.m()) {
  const std::size_t mm = std::size_t(m_) * m_, count = std::size_t(n_) * mm;
  if (count == 0) return;
  BLOCKTRI_CUDA(cudaMalloc(&data_, 3 * count * sizeof(T)));
  try {
    BLOCKTRI_CUDA(cudaMemcpy(data_, M.pinv(), count * sizeof(T), cudaMemcpyHostToDevice));
    BLOCKTRI_CUDA(cudaMemcpy(data_ + count, M.g(), count * sizeof(T), cudaMemcpyHostToDevice));
    BLOCKTRI_CUDA(cudaMemcpy(data_ + 2 * count, M.cs(), count * sizeof(T), cudaMemcpyHostToDevice));
  } catch (...) {
    cudaFree(data_);
    throw;
  }
}

template <class T>
UniformBlocksDevice<T>::~UniformBlocksDevice() {
  if (data_) cudaFree(data_);  // (errors at teardown are ignored)
}

template <class T>
UniformBlocksDevice<T>::UniformBlocksDevice(UniformBlocksDevice&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), n_(std::exchange(o.n_, 0)), m_(std::exchange(o.m_, 0)) {}

template <class T>
UniformBlocksDevice<T>& UniformBlocksDevice<T>::operator=(UniformBlocksDevice&& o) noexcept {
  std::swap(data_, o.data_);
  std::swap(n_, o.n_);
  std::swap(m_, o.m_);
  return *this;
}

namespace {

// Factorizations of constant coupled-diffusion rows on the device, by the bytes of the rows
// (w D, M, n, ends), the pivoting and the device; the most recent few are kept.
template <class T>
const UniformBlocksDevice<T>& coupled_factorization(const CoupledDiffusionRows<T>& rows, Pivoting pivoting) {
  struct Entry {
    CoupledDiffusionRows<T> rows;
    Pivoting pivoting;
    int device;
    std::unique_ptr<UniformBlocksDevice<T>> factored;
  };
  static std::mutex mu;
  static std::list<Entry> cache;
  constexpr std::size_t kKept = 8;
  int device = 0;
  BLOCKTRI_CUDA(cudaGetDevice(&device));
  auto same = [&](const Entry& e) {
    return e.pivoting == pivoting && e.device == device && e.rows.m == rows.m && e.rows.n == rows.n &&
           e.rows.dirichlet_lo == rows.dirichlet_lo && e.rows.dirichlet_hi == rows.dirichlet_hi &&
           std::memcmp(e.rows.wd, rows.wd, sizeof(rows.wd)) == 0;
  };
  std::lock_guard<std::mutex> lock(mu);
  for (auto it = cache.begin(); it != cache.end(); ++it)
    if (same(*it)) {
      cache.splice(cache.begin(), cache, it);
      return *cache.front().factored;
    }
  auto factored = std::make_unique<UniformBlocksDevice<T>>(UniformBlockMatrix<T>(rows.m, rows.n, rows, pivoting));
  cache.push_front(Entry{rows, pivoting, device, std::move(factored)});
  if (cache.size() > kKept) cache.pop_back();
  return *cache.front().factored;
}

template <class T, class Access>
void check_m(int m, const Access& u, const char* what) {
  if (u.m != m)
    throw Error(std::string("block-tridiagonal solver (cuda): ") + what + " of M = " + std::to_string(m) +
                " with vectors of M = " + std::to_string(u.m));
}

}  // namespace

template <class T>
void solve_lines_cuda(const LineSet& L, const BlockArrays<T>& blocks, const InterleavedAccess<T>& u,
                      BlockGpuAlgorithm alg, Pivoting pivoting, cudaStream_t stream) {
  check_m<T>(blocks.m, u, "blocks");
  gpu::solve_lines<T>(blocks.m, L, blocks, u, u, alg, pivoting, stream);
}
template <class T>
void solve_lines_cuda(const LineSet& L, const BlockArrays<T>& blocks, const PlanarAccess<T>& u, BlockGpuAlgorithm alg,
                      Pivoting pivoting, cudaStream_t stream) {
  check_m<T>(blocks.m, u, "blocks");
  gpu::solve_lines<T>(blocks.m, L, blocks, u, u, alg, pivoting, stream);
}

template <class T>
void solve_lines_cuda(const LineSet& L, const UniformBlocksDevice<T>& M, const InterleavedAccess<T>& u,
                      BlockGpuAlgorithm alg, cudaStream_t stream) {
  check_m<T>(M.m(), u, "a uniform matrix");
  gpu::solve_lines<T>(M.m(), L, M.view(), u, u, alg, Pivoting::none, stream);
}
template <class T>
void solve_lines_cuda(const LineSet& L, const UniformBlocksDevice<T>& M, const PlanarAccess<T>& u,
                      BlockGpuAlgorithm alg, cudaStream_t stream) {
  check_m<T>(M.m(), u, "a uniform matrix");
  gpu::solve_lines<T>(M.m(), L, M.view(), u, u, alg, Pivoting::none, stream);
}

template <class T>
void solve_lines_cuda(const LineSet& L, const CoupledDiffusionRows<T>& rows, const InterleavedAccess<T>& u,
                      BlockGpuAlgorithm alg, Pivoting pivoting, cudaStream_t stream) {
  check_m<T>(rows.m, u, "coupled diffusion");
  if (rows.n != L.length())
    throw Error("block-tridiagonal solver (cuda): coupled diffusion rows of length " + std::to_string(rows.n) +
                " for lines of length " + std::to_string(L.length()));
  if (L.length() == 0 || L.count() == 0) return;
  solve_lines_cuda<T>(L, coupled_factorization(rows, pivoting), u, alg, stream);
}
template <class T>
void solve_lines_cuda(const LineSet& L, const CoupledDiffusionRows<T>& rows, const PlanarAccess<T>& u,
                      BlockGpuAlgorithm alg, Pivoting pivoting, cudaStream_t stream) {
  check_m<T>(rows.m, u, "coupled diffusion");
  if (rows.n != L.length())
    throw Error("block-tridiagonal solver (cuda): coupled diffusion rows of length " + std::to_string(rows.n) +
                " for lines of length " + std::to_string(L.length()));
  if (L.length() == 0 || L.count() == 0) return;
  solve_lines_cuda<T>(L, coupled_factorization(rows, pivoting), u, alg, stream);
}

#define BLOCKTRI_INSTANTIATE(T)                                                                                      \
  template class UniformBlocksDevice<T>;                                                                             \
  template void solve_lines_cuda<T>(const LineSet&, const BlockArrays<T>&, const InterleavedAccess<T>&,              \
                                    BlockGpuAlgorithm, Pivoting, cudaStream_t);                                      \
  template void solve_lines_cuda<T>(const LineSet&, const BlockArrays<T>&, const PlanarAccess<T>&, BlockGpuAlgorithm, \
                                    Pivoting, cudaStream_t);                                                         \
  template void solve_lines_cuda<T>(const LineSet&, const CoupledDiffusionRows<T>&, const InterleavedAccess<T>&,     \
                                    BlockGpuAlgorithm, Pivoting, cudaStream_t);                                      \
  template void solve_lines_cuda<T>(const LineSet&, const CoupledDiffusionRows<T>&, const PlanarAccess<T>&,          \
                                    BlockGpuAlgorithm, Pivoting, cudaStream_t);                                      \
  template void solve_lines_cuda<T>(const LineSet&, const UniformBlocksDevice<T>&, const InterleavedAccess<T>&,      \
                                    BlockGpuAlgorithm, cudaStream_t);                                                \
  template void solve_lines_cuda<T>(const LineSet&, const UniformBlocksDevice<T>&, const PlanarAccess<T>&,           \
                                    BlockGpuAlgorithm, cudaStream_t);
BLOCKTRI_INSTANTIATE(float)
BLOCKTRI_INSTANTIATE(double)
#undef BLOCKTRI_INSTANTIATE

}  // namespace tridsim::blocktri
