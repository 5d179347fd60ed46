#pragma once
// Block-tridiagonal lines split over the ranks of one axis, on this rank's GPU (namespace
// tridsim::blocktri::gpu): the substructuring of ../distributed.hpp with the segment formulas of
// ../segment_reduction.hpp, one thread per line:
//   1. reduces its segment to two block rows (block Thomas for 2M + 1 right-hand sides);
//   2. the reduced rows (2 block rows per line) cross the ranks of the axis: every rank gathers
//      every rank's (cuda::allgather_device);
//   3. solves its line's reduced system (2P block rows), recovers its interior and stores it.
// Each thread's block Thomas scratch is interleaved by line (Strided), so that neighbouring
// threads touch neighbouring words. Functors as for gpu::solve_lines (block_solve.cuh):
// load(o, q, r, s) and store(o, q, r, s, x) with r the row's local index; the blocks come from a
// generator (host-device entry(o, r, i, j, A, B, C)) indexed by the whole line's row r, e.g.
// rd::CoupledRows with the whole line's n. Include from .cu files only.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <type_traits>

#include "core/cuda_support.cuh"
#include "core/domain.hpp"
#include "core/device_transport.cuh"
#include "solvers/block_tridiagonal/segment_reduction.hpp"
#include "solvers/tridiagonal/cuda/kernel_support.cuh"
#include "solvers/tridiagonal/segment_reduction.hpp"

namespace tridsim::blocktri::gpu {

using tridiag::Segment;

// Work arrays of the split solves, kept between calls (sized by the largest call).
template <class T>
struct SplitBlockScratch {
  cuda::DeviceArray<T> X, cs;
  cuda::WireArray<T> rows, gathered;
  cuda::DeviceArray<int> failed;
  void size_for(int m, index_t lines, index_t interior, index_t P) {
    auto fit = [](auto& v, index_t n) {
      if (v.n < n) v.allocate(n);
    };
    const index_t mm = index_t(m) * m, rsz = reduced_row_size(m);
    fit(X, lines * std::max(interior * m * (2 * m + 1), 2 * P * m));
    fit(cs, lines * std::max(interior, 2 * P) * mm);
    rows.size_for(lines * 2 * rsz);
    gathered.size_for(P * lines * 2 * rsz);
    fit(failed, 1);
  }
};

namespace split_kernels {

using tridiag::detail::Geometry;
using tridiag::detail::line_base;

// Line q's view of the problem: its segment's blocks and right-hand side, its scratch.
template <class T, class Blocks, class Load>
struct SplitLine {
  SegmentRows<T, Blocks> rows;
  Load load;
  index_t q, first_row;
  __device__ T operator()(index_t k, int s) const { return load(rows.base + k * rows.stride, q, first_row + k, s); }
};

template <class T, class Blocks, class Load>
__device__ SplitLine<T, Blocks, Load> split_line(const Geometry& g, const Segment& seg, int m, const Blocks& blocks,
                                                 const Load& load, index_t q) {
  const index_t base = line_base(g, q) + seg.first_row * g.s;
  return {SegmentRows<T, Blocks>{blocks, m, base, g.s, seg.global_row}, load, q, seg.first_row};
}

template <class T>
__device__ SegmentWork<T, Strided<T>> line_work(T* X, T* cs, index_t q, index_t lines) {
  SegmentWork<T, Strided<T>> w;
  w.X = {X + q, lines};
  w.cs = {cs + q, lines};
  return w;
}

// The kernels take the block size M at compile time (the blocks then live in registers).
// out: line q's two reduced rows at out + 2 q rsz.
template <int M, class T, class Blocks, class Load>
__global__ void reduce(Geometry g, Segment seg, Blocks blocks, Load load, T* X, T* cs, T* out, int* failed,
                       Pivoting pivoting) {
  constexpr int m = M;
  const index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= g.count) return;
  const auto line = split_line<T>(g, seg, m, blocks, load, q);
  auto w = line_work(X, cs, q, g.count);
  T* first = out + 2 * q * reduced_row_size(m);
  if (!reduce_block_segment(m, seg.rows, line.rows, line, w, first, first + reduced_row_size(m), pivoting)) *failed = 1;
}

// got: every rank's reduced rows, [rank][line][2 rows].
template <int M, class T, class Blocks, class Load, class Store>
__global__ void recover(Geometry g, Segment seg, Blocks blocks, Load load, Store store, const T* got, int P, int me,
                        T* X, T* cs, int* failed, Pivoting pivoting) {
  constexpr int m = M;
  const index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= g.count) return;
  const index_t L = g.count, rsz = reduced_row_size(m);
  auto w = line_work(X, cs, q, L);
  auto row = [&](index_t r) { return got + ((r / 2 * L + q) * 2 + r % 2) * rsz; };
  if (!solve_block_reduced(m, 2 * index_t(P), row, w, pivoting)) {
    *failed = 1;
    return;
  }
  T x0[M], x1[M];
  for (int s = 0; s < m; ++s) x0[s] = w.X[2 * me * m + s], x1[s] = w.X[(2 * me + 1) * m + s];
  const auto line = split_line<T>(g, seg, m, blocks, load, q);
  auto put = [&](index_t k, int s, T x) { store(line.rows.base + k * g.s, q, seg.first_row + k, s, x); };
  if (!recover_block_segment(m, seg.rows, line.rows, line, x0, x1, w, put, pivoting)) *failed = 1;
}

}  // namespace split_kernels

// Solves every line of L (this rank's local lines along L.axis, block size m, on the device) whose
// rows are split over the ranks of `comm`; this rank holds rows `seg` of each. Returns when the
// solution is stored. Throws SingularMatrix on every rank of the axis when a pivot block of some
// line is singular.
template <class T, class Blocks, class Load, class Store>
void solve_split_lines(int m, const LineSet& L, const Segment& seg, const Blocks& blocks, const Load& load,
                       const Store& store, LineComm& comm, SplitBlockScratch<T>& s, Pivoting pivoting) {
  const index_t lines = L.count(), P = comm.size();
  if (lines == 0) return;
  if (seg.rows < 2) throw Error("distributed block line solve: every rank needs at least 2 rows of each line");
  s.size_for(m, lines, seg.rows - 2, P);
  const auto g = tridiag::detail::geometry(L);
  constexpr int threads = 128;
  const unsigned blocks_n = unsigned((lines + threads - 1) / threads);
  auto run = [&](auto M) {
    constexpr int m_ = decltype(M)::value;
    split_kernels::reduce<m_, T><<<blocks_n, threads>>>(g, seg, blocks, load, s.X.p, s.cs.p, s.rows.device(), s.failed.p,
                                                        pivoting);
    TRIDSIM_CUDA_LAUNCH();
    cuda::allgather_device(comm, s.rows, s.gathered, 2 * lines * reduced_row_size(m));
    split_kernels::recover<m_, T><<<blocks_n, threads>>>(g, seg, blocks, load, store, s.gathered.device(), int(P), comm.rank(),
                                                         s.X.p, s.cs.p, s.failed.p, pivoting);
    TRIDSIM_CUDA_LAUNCH();
  };
  TRIDSIM_CUDA(cudaMemsetAsync(s.failed.p, 0, sizeof(int)));
  if (!with_fixed_block_size(m, run))
    throw Error("distributed block line solve (GPU): block size " + std::to_string(m) + " is not 1 to " +
                std::to_string(kMaxFixedBlock));
  int failed = 0;
  TRIDSIM_CUDA(cudaMemcpy(&failed, s.failed.p, sizeof(int), cudaMemcpyDeviceToHost));
  if (failed)
    throw singular_pivot_block("distributed block-tridiagonal solver (GPU)", -1, pivoting);
}

}  // namespace tridsim::blocktri::gpu
