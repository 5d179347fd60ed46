#pragma once
// Lines split over the ranks of one axis, on this rank's GPU (namespace tridsim::tridiag::gpu):
// distributed.hpp's substructuring with the device functors of line_solve.cuh, one thread per
// line, per batch of lines:
//   1. each thread reduces its segment to two rows in one downward sweep over the rows as it reads
//      them (row source and `load`; eliminate_row and FirstRowSums), keeping the interior's swept
//      rows in scratch arrays;
//   2. the reduced rows (2 per line) cross the ranks of the axis by the pattern of
//      split_transport.hpp (gather, or all-to-all with the unknowns sent back), while the GPU
//      reduces the next batch: each batch's exchange starts as soon as its rows are out
//      (cuda::LineExchanges: queued on NCCL's stream, or started by the host through MPI);
//   3. each thread takes its line's two unknowns (solving its gathered reduced system, 2P rows, or
//      as sent back), recovers its interior upwards from the swept rows (recover_row) and writes it
//      through `store`.
// With rows shared by every line (ConstantDiffusionRows) the segment is factored once on the host
// (FactoredSegment): a thread then reduces its line by two weighted sums of the right-hand side
// (no rows formed or stored); with its two unknowns known, a segment longer than kClusterAbove is
// a line of its own (its interior's rows between two identity rows that hold the known unknowns:
// bordered_segment), solved whole on a thread-block cluster as the one-GPU path solves long lines
// (one read and one write per element, no scratch); a shorter one, or where the device runs no
// clusters, is recovered by Thomas, one thread per line.
// Functors as for gpu::solve_lines: load(o, q, r) and store(o, q, r, x) with r the row's local
// index (its position along the axis in this rank's box); the row source is ArrayRows or a
// generator (stage(o, r), row(r, left, right, a, b, c)) indexed by the whole line's row r
// (DiffusionRows or ConstantDiffusionRows with the whole line's n). Include from .cu files only.
#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "core/cuda_support.cuh"
#include "core/diffusion.hpp"
#include "core/domain.hpp"
#include "core/device_transport.cuh"
#include "solvers/tridiagonal/coefficients.hpp"
#include "solvers/tridiagonal/cuda/line_solve.cuh"
#include "solvers/tridiagonal/segment_reduction.hpp"
#include "solvers/tridiagonal/split_transport.hpp"

namespace tridsim::tridiag::gpu {

// Lines per batch of a split solve, at least: a batch is one kernel of one thread per line, and
// fewer threads than this leave most of the GPU idle, so that a smaller batch takes hardly less time.
inline constexpr index_t kSplitBatchLines = index_t(1) << 16;
inline index_t split_batches(index_t lines) { return std::clamp<index_t>(lines / kSplitBatchLines, 1, 4); }

// A segment of rows shared by every line, its first and last unknowns known: identity rows at both
// ends (their right-hand sides the known values), the segment's own rows between them.
template <class T>
UniformMatrix<T> bordered_segment(const FactoredSegment<T>& f) {
  std::vector<T> a(f.a), b(f.b), c(f.c);
  for (const index_t i : {index_t(0), f.m - 1}) a[i] = c[i] = T(0), b[i] = T(1);
  return UniformMatrix<T>(std::move(a), b, c);
}

// Work arrays of the split solves, kept between calls (sized by the largest call). Element i of
// line q's segment at i * L + q (consecutive lines adjacent: coalesced), the reduced system's row j
// likewise; exchanged: rows [line][2], got [rank][line][2] per batch (the batch's lines, or this
// rank's chunk of them), and the all-to-all's unknowns solved [rank][line of the chunk][2] (batch
// b from 2 (q0 + b P)) and back [line][2].
template <class T>
struct SplitScratch {
  cuda::DeviceArray<T> a, c, d, cp, x;  // a, c, d: swept rows (per-line rows); d: the forward sweep
  cuda::DeviceArray<T> kept;            // the bordered segments' known unknowns, [line][2]
  cuda::WireArray<ReducedRow<T>> rows, got;
  cuda::WireArray<T> solved, back;
  cuda::LineExchanges exchanges;
  std::vector<T> factored_host;  // the factored segment on the device, to upload only when it changes
  cuda::DeviceArray<T> factored;
  UniformMatrixDevice<T> bordered;  // the segment with its ends known (bordered_segment)
  void size_for(index_t lines, index_t m, index_t P, index_t batches, bool shared, bool alltoall) {
    auto fit = [](auto& v, index_t n) {
      if (v.n < n) v.allocate(n);
    };
    for (auto* v : {&a, &c}) fit(*v, shared ? 0 : lines * m);
    fit(d, lines * m);
    fit(kept, shared && m > kClusterAbove ? 2 * lines : 0);
    fit(cp, lines * 2 * P);
    fit(x, lines * 2 * P);
    rows.size_for(lines * 2);
    got.size_for(lines * 2 * P);
    solved.size_for(alltoall ? 2 * (lines + batches * P) : 0);
    back.size_for(alltoall ? 2 * lines : 0);
  }
  SegmentFactors<T> upload(const FactoredSegment<T>& f) {
    std::vector<T> packed = f.packed();
    if (packed != factored_host) {
      factored.upload(packed.data(), index_t(packed.size()));
      factored_host = std::move(packed);
      if (f.m > kClusterAbove) bordered = UniformMatrixDevice<T>(bordered_segment(f));
    }
    return f.view(factored.p);
  }
};

namespace split_kernels {

// This thread's line of the batch [q0, q1), or -1.
__device__ inline index_t batch_line(index_t q0, index_t q1) {
  const index_t q = q0 + index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  return q < q1 ? q : -1;
}

// Line q's two unknowns from its gathered reduced system: got holds every rank's rows of the n
// lines from q0, [rank][line - q0][2]; cp and x are the reduced system's scratch (row j at j * L + q).
template <class T>
struct GatheredEnds {
  const ReducedRow<T>* got;
  index_t q0, n, L;
  int P, me;
  T *cp, *x;
  __device__ void operator()(index_t q, T& first, T& last) const {
    solve_reduced_at<T>(
        2 * index_t(P), 1, [&](index_t j, index_t) { return got[2 * ((j / 2) * n + q - q0) + j % 2]; },
        [&](index_t j, index_t) -> T& { return cp[j * L + q]; }, [&](index_t j, index_t) -> T& { return x[j * L + q]; });
    first = x[2 * me * L + q];
    last = x[(2 * me + 1) * L + q];
  }
};

// Line q's two unknowns as the rank that solved its reduced system sent them back ([line][2]).
template <class T>
struct ReturnedEnds {
  const T* back;
  __device__ void operator()(index_t q, T& first, T& last) const {
    first = back[2 * q];
    last = back[2 * q + 1];
  }
};

// Rows `from` up to (not including) `to`, in that direction: each group of kRowsAhead rows is loaded
// (get) before it is used (use): a thread's row loads then overlap, where a loop that uses each
// row as it loads it waits for every load in turn.
constexpr int kRowsAhead = 8;
template <class Get, class Use>
__device__ __forceinline__ void for_rows_loaded(index_t from, index_t to, const Get& get, const Use& use) {
  using V = decltype(get(from));
  const index_t step = from <= to ? 1 : -1;
  index_t i = from;
  for (; (to - i) * step >= kRowsAhead; i += kRowsAhead * step) {
    V v[kRowsAhead];
#pragma unroll
    for (int u = 0; u < kRowsAhead; ++u) v[u] = get(i + u * step);
#pragma unroll
    for (int u = 0; u < kRowsAhead; ++u) use(i + u * step, v[u]);
  }
  for (; i != to; i += step) use(i, get(i));
}

// Per-line rows: the segment's two reduced rows in one downward sweep (segment_reduction.hpp), the
// interior's swept rows (1 .. m-2) kept at i * L + q for the recovery.
template <class T, class Rows, class Load>
__global__ void split_reduce(Geometry g, Segment seg, Rows rows, Load load, T* a, T* c, T* d, ReducedRow<T>* out,
                             index_t q0, index_t q1) {
  const index_t q = batch_line(q0, q1);
  if (q < 0) return;
  const index_t base = line_base(g, q) + seg.first_row * g.s, L = g.count, m = seg.rows;
  T left = T(0);
  if constexpr (!is_array_rows_v<Rows>)
    if (seg.global_row > 0) left = rows.stage(base - g.s, seg.global_row - 1);
  struct Fetched {
    T d;
    FetchedRow<T> row;
  };
  T a0 = T(0), b0 = T(1), c0 = T(0), d0 = T(0);
  ReducedRow<T> prev = sweep_start<T>();
  FirstRowSums<T> sums;
  for_rows_loaded(
      index_t(0), m,
      [&](index_t i) {
        const index_t o = base + i * g.s;
        return Fetched{load(o, q, int(seg.first_row + i)), fetch_row<T>(rows, o, seg.global_row + i)};
      },
      [&](index_t i, const Fetched& f) {
        T A, B, C;
        form_row<T>(rows, seg.global_row + i, f.row, left, A, B, C);  // (the whole line's row)
        if (i == 0) {
          a0 = A, b0 = B, c0 = C, d0 = f.d;
          return;
        }
        if (i >= 2) sums.add_interior(prev);
        prev = eliminate_row(A, B, C, f.d, prev);
        if (i + 1 < m) {
          const index_t e = i * L + q;
          a[e] = prev.a;
          c[e] = prev.c;
          d[e] = prev.d;
        }
      });
  out[2 * q] = sums.first_row(a0, b0, c0, d0);
  out[2 * q + 1] = prev;
}

template <class T, class Store, class Ends>
__global__ void split_recover(Geometry g, Segment seg, Store store, const T* a, const T* c, const T* d, Ends ends,
                              index_t q0, index_t q1) {
  const index_t q = batch_line(q0, q1);
  if (q < 0) return;
  const index_t L = g.count, m = seg.rows, base = line_base(g, q) + seg.first_row * g.s;
  T first, last;
  ends(q, first, last);
  auto row = [&](index_t i) { return int(seg.first_row + i); };
  store(base + (m - 1) * g.s, q, row(m - 1), last);
  T next = last;
  for_rows_loaded(
      m - 2, index_t(0),
      [&](index_t i) {
        const index_t e = i * L + q;
        return ReducedRow<T>{a[e], c[e], d[e]};
      },
      [&](index_t i, const ReducedRow<T>& swept) {
        store(base + i * g.s, q, row(i), next = recover_row(swept, first, next));
      });
  store(base, q, row(0), first);
}

// Rows shared by every line: the reduced rows' d as weighted sums of the segment's right-hand side.
template <class T, class Load>
__global__ void split_reduce_shared(Geometry g, Segment seg, SegmentFactors<T> f, Load load, ReducedRow<T>* out,
                                    index_t q0, index_t q1) {
  const index_t q = batch_line(q0, q1);
  if (q < 0) return;
  const index_t base = line_base(g, q) + seg.first_row * g.s;
  T first = T(0), last = T(0);
  for_rows_loaded(index_t(0), seg.rows, [&](index_t i) { return load(base + i * g.s, q, int(seg.first_row + i)); },
                  [&](index_t i, T d) { f.add(i, d, first, last); });
  out[2 * q] = {f.first.a, f.first.c, first};
  out[2 * q + 1] = {f.last.a, f.last.c, last};
}

// Rows shared by every line, a segment not solved bordered: Thomas on the interior, its end values
// known (FactoredSegment::solve); d holds the forward sweep.
template <class T, class Load, class Store, class Ends>
__global__ void split_recover_shared(Geometry g, Segment seg, SegmentFactors<T> f, Load load, Store store, T* d,
                                     Ends ends, index_t q0, index_t q1) {
  const index_t q = batch_line(q0, q1);
  if (q < 0) return;
  const index_t L = g.count, m = seg.rows, base = line_base(g, q) + seg.first_row * g.s;
  T first, last;
  ends(q, first, last);
  auto row = [&](index_t i) { return int(seg.first_row + i); };
  T prev = first;
  for_rows_loaded(index_t(1), m - 1, [&](index_t i) { return load(base + i * g.s, q, row(i)); },
                  [&](index_t i, T v) { d[i * L + q] = prev = f.forward(i, v, prev); });
  T next = last;
  store(base + (m - 1) * g.s, q, row(m - 1), last);
  for_rows_loaded(
      m - 2, index_t(0), [&](index_t i) { return d[i * L + q]; },
      [&](index_t i, T v) { store(base + i * g.s, q, row(i), next = f.backward(i, v, next)); });
  store(base, q, row(0), first);
}

// Rows shared by every line: each line's two unknowns kept, [line][2], for the bordered solve.
template <class T, class Ends>
__global__ void keep_ends(Ends ends, T* kept, index_t q0, index_t q1) {
  const index_t q = batch_line(q0, q1);
  if (q < 0) return;
  ends(q, kept[2 * q], kept[2 * q + 1]);
}

// The bordered segment's load and store: its rows 0 .. m-1 are the rank's rows first_row ..
// (element offset `offset` further along the line); the identity rows' right-hand sides are the
// kept unknowns.
template <class T, class Load>
struct BorderedLoad {
  Load load;
  const T* kept;
  index_t offset;
  int first_row, last;
  __device__ T operator()(index_t o, index_t q, int r) const {
    if (r == 0) return kept[2 * q];
    if (r == last) return kept[2 * q + 1];
    return load(o + offset, q, r + first_row);
  }
};
template <class T, class Store>
struct BorderedStore {
  Store store;
  index_t offset;
  int first_row;
  __device__ void operator()(index_t o, index_t q, int r, T x) const { store(o + offset, q, r + first_row, x); }
};

// All-to-all: the reduced systems of this rank's chunk of n lines (got: every rank's rows of them,
// [rank][line][2]) solved; every rank's two unknowns of each into out, [rank][line][2].
template <class T>
__global__ void solve_chunk(const ReducedRow<T>* got, index_t n, int P, T* cp, T* x, T* out) {
  const index_t i = batch_line(0, n);
  if (i < 0) return;
  solve_reduced_at<T>(
      2 * index_t(P), 1, [&](index_t j, index_t) { return got[2 * ((j / 2) * n + i) + j % 2]; },
      [&](index_t j, index_t) -> T& { return cp[j * n + i]; }, [&](index_t j, index_t) -> T& { return x[j * n + i]; });
  for (index_t k = 0; k < P; ++k) {
    out[2 * (k * n + i)] = x[2 * k * n + i];
    out[2 * (k * n + i) + 1] = x[(2 * k + 1) * n + i];
  }
}

}  // namespace split_kernels

// Solves every line of L (this rank's local lines along L.axis, on the device) whose rows are
// split over the ranks of `comm`; this rank holds rows `seg` of each. Starts after the work queued
// on the default stream and returns with the last recovery queued on it. `transport` forces one
// (none: choose_split_transport), `batches` the number of batches (0: split_batches).
template <class T, class Rows, class Load, class Store>
void solve_split_lines(const LineSet& L, const Segment& seg, const Rows& rows, const Load& load, const Store& store,
                       LineComm& comm, SplitScratch<T>& s, std::optional<SplitTransport> transport = {},
                       index_t batches = 0) {
  using Row = ReducedRow<T>;
  const index_t lines = L.count(), P = comm.size(), me = comm.rank();
  if (lines == 0) return;
  if (seg.rows < 2) throw Error("distributed line solve: every rank needs at least 2 rows of each line");
  constexpr bool shared = rows_shared_by_lines_v<Rows>;
  const bool alltoall = transport.value_or(choose_split_transport(lines, int(P))) == SplitTransport::alltoall;
  const index_t nbatch = batches > 0 ? std::min(batches, lines) : split_batches(lines);
  s.size_for(lines, seg.rows, P, nbatch, shared, alltoall);
  const Geometry g = tridsim::tridiag::detail::geometry(L);
  constexpr int threads = 128;
  auto grid = [](index_t n) { return unsigned((n + threads - 1) / threads); };
  auto batch = [&](index_t b) { return SplitChunks{lines * b / nbatch, lines * (b + 1) / nbatch, P}; };
  SegmentFactors<T> f{};
  if constexpr (shared) f = s.upload(FactoredSegment<T>::of_rows(rows, seg));
  const bool bordered = shared && seg.rows > kClusterAbove;
  s.exchanges.begin(comm);

  // 1. Every batch reduced and its rows put on the wire, in order; mark b: batch b's rows are out.
  for (index_t b = 0; b < nbatch; ++b) {
    const SplitChunks B = batch(b);
    if constexpr (shared)
      split_kernels::split_reduce_shared<T><<<grid(B.q1 - B.q0), threads>>>(g, seg, f, load, s.rows.device(), B.q0, B.q1);
    else
      split_kernels::split_reduce<T><<<grid(B.q1 - B.q0), threads>>>(g, seg, rows, load, s.a.p, s.c.p, s.d.p,
                                                                     s.rows.device(), B.q0, B.q1);
    TRIDSIM_CUDA_LAUNCH();
    s.rows.to_wire(2 * B.q0, 2 * (B.q1 - B.q0));
    s.exchanges.mark(std::size_t(b));
  }
  std::vector<int> request(nbatch, -1), returned(nbatch, -1);  // returned: the all-to-all's unknowns
  // 2. Batch b's rows to the other ranks, once the GPU has them out.
  auto send_rows = [&](index_t b) {
    const SplitChunks B = batch(b);
    Row *out = s.rows.wire() + 2 * B.q0, *in = s.got.wire() + 2 * B.q0 * P;
    if (alltoall) {  // to rank r: this rank's rows of chunk r; from rank k: k's rows of this rank's chunk
      const auto to = B.by_chunk(2 * sizeof(Row)), from = B.own_chunk(me, 2 * sizeof(Row));
      request[b] = s.exchanges.alltoallv(std::size_t(b), out, to.data(), to.data() + P, in, from.data(), from.data() + P);
    } else {
      request[b] = s.exchanges.allgather(std::size_t(b), out, in, sizeof(Row) * 2 * std::size_t(B.q1 - B.q0));
    }
  };
  // All-to-all: this rank's chunk of batch b solved on the GPU, every rank's two unknowns of it sent back.
  auto solve_chunk = [&](index_t b) {
    s.exchanges.wait(request[b]);
    const SplitChunks B = batch(b);
    const index_t nc = B.size(me), at = 2 * (B.q0 + b * P);
    s.got.from_wire(2 * B.q0 * P, 2 * nc * P);
    if (nc > 0) {
      split_kernels::solve_chunk<T><<<grid(nc), threads>>>(s.got.device() + 2 * B.q0 * P, nc, int(P), s.cp.p, s.x.p,
                                                           s.solved.device() + at);
      TRIDSIM_CUDA_LAUNCH();
    }
    s.solved.to_wire(at, 2 * nc * P);
    s.exchanges.mark(std::size_t(nbatch + b));
    const auto to = B.own_chunk(me, 2 * sizeof(T)), from = B.by_chunk(2 * sizeof(T));
    returned[b] = s.exchanges.alltoallv(std::size_t(nbatch + b), s.solved.wire() + at, to.data(), to.data() + P,
                                        s.back.wire() + 2 * B.q0, from.data(), from.data() + P);
  };
  // 3. Batch b's interiors recovered and stored, once its unknowns (or reduced systems) are here.
  auto recover = [&](index_t b) {
    s.exchanges.wait(alltoall ? returned[b] : request[b]);
    const SplitChunks B = batch(b);
    const index_t n = B.q1 - B.q0;
    auto launch = [&](const auto& ends) {
      if constexpr (shared) {
        if (bordered)
          split_kernels::keep_ends<T><<<grid(n), threads>>>(ends, s.kept.p, B.q0, B.q1);
        else
          split_kernels::split_recover_shared<T><<<grid(n), threads>>>(g, seg, f, load, store, s.d.p, ends, B.q0,
                                                                       B.q1);
      } else
        split_kernels::split_recover<T><<<grid(n), threads>>>(g, seg, store, s.a.p, s.c.p, s.d.p, ends, B.q0, B.q1);
      TRIDSIM_CUDA_LAUNCH();
    };
    if (alltoall) {
      s.back.from_wire(2 * B.q0, 2 * n);
      launch(split_kernels::ReturnedEnds<T>{s.back.device()});
    } else {
      s.got.from_wire(2 * B.q0 * P, 2 * n * P);
      launch(split_kernels::GatheredEnds<T>{s.got.device() + 2 * B.q0 * P, B.q0, n, lines, int(P), int(me), s.cp.p, s.x.p});
    }
  };
  // As on the CPU: batch b sent at step b, (all-to-all) solved at step b + 1, recovered at step b + lag.
  const index_t lag = alltoall ? 2 : 1;
  for (index_t step = 0; step < nbatch + lag; ++step) {
    if (step < nbatch) send_rows(step);
    if (alltoall && step >= 1 && step <= nbatch) solve_chunk(step - 1);
    if (step >= lag) recover(step - lag);
  }
  if constexpr (shared)
    if (bordered) {  // every line's segment at once, its ends known
      LineSet B = L;
      B.n[L.axis] = seg.rows;
      const index_t offset = seg.first_row * L.axis_stride();
      const int first = int(seg.first_row), last = int(seg.rows - 1);
      const split_kernels::BorderedLoad<T, Load> bordered_load{load, s.kept.p, offset, first, last};
      const split_kernels::BorderedStore<T, Store> bordered_store{store, offset, first};
      if (!launch_cluster_lines<T>(B, tridsim::tridiag::detail::geometry(B), factored_rows(s.bordered), bordered_load,
                                   bordered_store, 0)) {
        const split_kernels::ReturnedEnds<T> kept{s.kept.p};
        split_kernels::split_recover_shared<T><<<grid(lines), threads>>>(g, seg, f, load, store, s.d.p, kept, 0, lines);
        TRIDSIM_CUDA_LAUNCH();
      }
    }
}

}  // namespace tridsim::tridiag::gpu
