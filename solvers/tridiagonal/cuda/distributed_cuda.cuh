#pragma once
// Lines split over the ranks of one axis, on this rank's GPU (namespace tridsim::tridiag::gpu):
// distributed.hpp's substructuring with the device functors of line_solve.cuh. One thread per line
//   1. forms its segment's rows (row source and `load`) in scratch arrays and reduces them to two
//      rows (reduce_segment);
//   2. the reduced rows (2 per line) cross the ranks of the axis: every rank gathers every rank's
//      (cuda::allgather_device);
//   3. each thread solves its line's reduced system (2 rows per rank), recovers its interior
//      (recover_segment) and writes it through `store`.
// With rows shared by every line (ConstantDiffusionRows) the segment is factored once on the host
// (FactoredSegment): a thread then reduces its line by two weighted sums of the right-hand side
// (no rows formed or stored) and recovers the interior by Thomas from its two kept unknowns.
// Functors as for gpu::solve_lines: load(o, q, r) and store(o, q, r, x) with r the row's local
// index (its position along the axis in this rank's box); the row source is ArrayRows or a
// generator (stage(o, r), row(r, left, right, a, b, c)) indexed by the whole line's row r
// (DiffusionRows or ConstantDiffusionRows with the whole line's n). Include from .cu files only.
#include <cuda_runtime.h>

#include <vector>

#include "core/cuda_support.cuh"
#include "core/diffusion.hpp"
#include "core/domain.hpp"
#include "core/device_transport.cuh"
#include "solvers/tridiagonal/coefficients.hpp"
#include "solvers/tridiagonal/cuda/line_solve.cuh"
#include "solvers/tridiagonal/segment_reduction.hpp"

namespace tridsim::tridiag::gpu {

// Work arrays of the split solves, kept between calls (sized by the largest call).
template <class T>
struct SplitScratch {
  cuda::DeviceArray<T> a, b, c, d, cp, x;
  cuda::DeviceArray<ReducedRow<T>> rows, gathered;
  cuda::PinnedBytes staging;
  std::vector<T> factored_host;  // the factored segment on the device, to upload only when it changes
  cuda::DeviceArray<T> factored;
  void size_for(index_t lines, index_t m, index_t P, bool shared) {
    auto fit = [](auto& v, index_t n) {
      if (v.n < n) v.allocate(n);
    };
    for (auto* v : {&a, &b, &c}) fit(*v, shared ? 0 : lines * m);
    fit(d, lines * m);
    fit(cp, lines * 2 * P);
    fit(x, lines * 2 * P);
    fit(rows, lines * 2);
    fit(gathered, lines * 2 * P);
  }
  SegmentFactors<T> upload(const FactoredSegment<T>& f) {
    std::vector<T> packed = f.packed();
    if (packed != factored_host) {
      factored.upload(packed.data(), index_t(packed.size()));
      factored_host = std::move(packed);
    }
    return f.view(factored.p);
  }
};

namespace split_kernels {

// The reduced system of line q from every rank's rows (got: [rank][line][2]); this rank's two
// unknowns.
template <class T>
__device__ void solve_line_reduced(index_t q, index_t L, const ReducedRow<T>* got, int P, int me, T* cp, T* x,
                                   T& first, T& last) {
  solve_reduced_at<T>(
      2 * index_t(P), 1, [&](index_t j, index_t) { return got[2 * ((j / 2) * L + q) + j % 2]; },
      [&](index_t j, index_t) -> T& { return cp[j * L + q]; }, [&](index_t j, index_t) -> T& { return x[j * L + q]; });
  first = x[2 * me * L + q];
  last = x[(2 * me + 1) * L + q];
}

// Element i of line q's segment in the scratch arrays: consecutive lines adjacent (coalesced).
template <class T, class Rows, class Load>
__global__ void split_reduce(Geometry g, Segment seg, Rows rows, Load load, T* a, T* b, T* c, T* d,
                             ReducedRow<T>* out) {
  const index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= g.count) return;
  const index_t base = line_base(g, q) + seg.first_row * g.s, L = g.count;
  T left = T(0);
  if constexpr (!is_array_rows_v<Rows>)
    if (seg.global_row > 0) left = rows.stage(base - g.s, seg.global_row - 1);
  for (index_t i = 0; i < seg.rows; ++i) {
    const index_t o = base + i * g.s, e = i * L + q;
    d[e] = load(o, q, int(seg.first_row + i));
    row_from_global<T>(rows, o, seg.global_row + i, left, a[e], b[e], c[e]);  // (the whole line's row)
  }
  ReducedRow<T> two[2];
  reduce_segment(seg.rows, L, a + q, b + q, c + q, d + q, two);
  out[2 * q] = two[0];
  out[2 * q + 1] = two[1];
}

// got: every rank's reduced rows, [rank][line][2].
template <class T, class Store>
__global__ void split_recover(Geometry g, Segment seg, Store store, const T* a, const T* c, T* d,
                              const ReducedRow<T>* got, int P, int me, T* cp, T* x) {
  const index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= g.count) return;
  const index_t L = g.count;
  T first, last;
  solve_line_reduced(q, L, got, P, me, cp, x, first, last);
  recover_segment(seg.rows, L, a + q, c + q, d + q, first, last);
  const index_t base = line_base(g, q) + seg.first_row * g.s;
  for (index_t i = 0; i < seg.rows; ++i) store(base + i * g.s, q, int(seg.first_row + i), d[i * L + q]);
}

// Rows shared by every line: the reduced rows' d as weighted sums of the segment's right-hand side.
template <class T, class Load>
__global__ void split_reduce_shared(Geometry g, Segment seg, SegmentFactors<T> f, Load load, ReducedRow<T>* out) {
  const index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= g.count) return;
  const index_t base = line_base(g, q) + seg.first_row * g.s;
  T first = T(0), last = T(0);
  for (index_t i = 0; i < seg.rows; ++i) f.add(i, load(base + i * g.s, q, int(seg.first_row + i)), first, last);
  out[2 * q] = {f.first.a, f.first.c, first};
  out[2 * q + 1] = {f.last.a, f.last.c, last};
}

// Rows shared by every line: Thomas on the interior, its end values known (FactoredSegment::solve);
// d holds the forward sweep, element i of line q at i * L + q.
template <class T, class Load, class Store>
__global__ void split_recover_shared(Geometry g, Segment seg, SegmentFactors<T> f, Load load, Store store, T* d,
                                     const ReducedRow<T>* got, int P, int me, T* cp, T* x) {
  const index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= g.count) return;
  const index_t L = g.count, m = seg.rows, base = line_base(g, q) + seg.first_row * g.s;
  T first, last;
  solve_line_reduced(q, L, got, P, me, cp, x, first, last);
  auto row = [&](index_t i) { return int(seg.first_row + i); };
  T prev = first;
  for (index_t i = 1; i + 1 < m; ++i) {
    prev = f.forward(i, load(base + i * g.s, q, row(i)), prev);
    d[i * L + q] = prev;
  }
  T next = last;
  store(base + (m - 1) * g.s, q, row(m - 1), last);
  for (index_t i = m - 2; i >= 1; --i) {
    next = f.backward(i, d[i * L + q], next);
    store(base + i * g.s, q, row(i), next);
  }
  store(base, q, row(0), first);
}

}  // namespace split_kernels

// Solves every line of L (this rank's local lines along L.axis, on the device) whose rows are
// split over the ranks of `comm`; this rank holds rows `seg` of each. The exchange waits for the
// work queued on the default stream; the recovery is queued on it.
template <class T, class Rows, class Load, class Store>
void solve_split_lines(const LineSet& L, const Segment& seg, const Rows& rows, const Load& load, const Store& store,
                       LineComm& comm, SplitScratch<T>& s) {
  const index_t lines = L.count(), P = comm.size();
  if (lines == 0) return;
  if (seg.rows < 2) throw Error("distributed line solve: every rank needs at least 2 rows of each line");
  constexpr bool shared = rows_shared_by_lines_v<Rows>;
  s.size_for(lines, seg.rows, P, shared);
  const Geometry g = tridsim::tridiag::detail::geometry(L);
  constexpr int threads = 128;
  const unsigned blocks = unsigned((lines + threads - 1) / threads);
  auto exchange = [&] {
    cuda::allgather_device(comm, s.rows.p, s.gathered.p, sizeof(ReducedRow<T>) * 2 * std::size_t(lines), s.staging);
  };
  if constexpr (shared) {
    const SegmentFactors<T> f = s.upload(FactoredSegment<T>::of_rows(rows, seg));
    split_kernels::split_reduce_shared<T><<<blocks, threads>>>(g, seg, f, load, s.rows.p);
    TRIDSIM_CUDA_LAUNCH();
    exchange();
    split_kernels::split_recover_shared<T><<<blocks, threads>>>(g, seg, f, load, store, s.d.p, s.gathered.p, int(P),
                                                                comm.rank(), s.cp.p, s.x.p);
    TRIDSIM_CUDA_LAUNCH();
    return;
  }
  split_kernels::split_reduce<T><<<blocks, threads>>>(g, seg, rows, load, s.a.p, s.b.p, s.c.p, s.d.p, s.rows.p);
  TRIDSIM_CUDA_LAUNCH();
  exchange();
  split_kernels::split_recover<T><<<blocks, threads>>>(g, seg, store, s.a.p, s.c.p, s.d.p, s.gathered.p, int(P), comm.rank(),
                                                s.cp.p, s.x.p);
  TRIDSIM_CUDA_LAUNCH();
}

}  // namespace tridsim::tridiag::gpu
