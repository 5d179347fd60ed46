#pragma once
// y and z lines of per-line rows (coefficient arrays, generated rows) up to rows_lines::kMax points
// on one GPU (namespace tridsim::tridiag::gpu): the `thomas` family's path for them past
// kRowsLinesAbove, behind the contract of line_solve.cuh (which includes this file at its end).
// Each thread owns a segment of at most kRowsPerThread rows of one line and reads it once, straight
// from global memory, several rows ahead of its sweep (a warp reads a row of several x-adjacent
// lines as one run):
//   - the segment is reduced to its two end rows in one downward sweep (segment_reduction.hpp),
//     its swept rows kept in shared memory (registers would leave too few for the rows in flight);
//   - the line's reduced system (2 rows per segment, unit diagonal, tridiagonal) is solved by
//     parallel cyclic reduction in shared memory, one thread per segment holding its two rows;
//   - each segment recovers its interior upwards from its two unknowns and stores it.
// One read and one write per element, no scratch in global memory; the tiled kernel's tile would
// hold only a few such lines, one thread sweeping each, and the segmented path reads every row twice.
#include "solvers/tridiagonal/cuda/line_solve.cuh"
#include "solvers/tridiagonal/segment_reduction.hpp"

namespace tridsim::tridiag::gpu {

namespace rows_lines {

constexpr int kThreads = 256;
constexpr int kRowsPerThread = 16;
constexpr int kMaxParts = 32;  // segments per line: a block keeps at least 8 lines side by side
constexpr index_t kMax = index_t(kRowsPerThread) * kMaxParts;
constexpr int kAhead = 8;  // rows a thread loads before it uses them

// Shared memory: the swept rows' a', c', d' (row i of thread t at i * kThreads + t: each thread
// its own bank), then the reduced rows.
template <class T>
constexpr std::size_t smem_bytes() {
  return 3 * sizeof(T) * kRowsPerThread * kThreads + sizeof(ReducedRow<T>) * 2 * kThreads;
}

// Segments per line: the fewest (a power of two, at least 2) of at most kRowsPerThread rows.
inline int parts_for(index_t n) {
  int p = 2;
  while (index_t(p) * kRowsPerThread < n) p *= 2;
  return p;
}

template <class T>
__device__ __forceinline__ void pcr_step(const ReducedRow<T>& lo, ReducedRow<T>& r, const ReducedRow<T>& hi) {
  const T inv = T(1) / (T(1) - r.a * lo.c - r.c * hi.a);
  r = {-r.a * lo.a * inv, -r.c * hi.c * inv, (r.d - r.a * lo.d - r.c * hi.d) * inv};
}

// Block: kThreads / parts lines (x-adjacent) times `parts` segments; thread (line l, segment p).
// Segment p holds rows [p n / parts, (p + 1) n / parts): at least 2 of them (n >= 2 parts).
template <class T, class Rows, class Load, class Store>
__global__ void __launch_bounds__(kThreads, 2) kernel(Geometry g, int parts, Rows rows, Load load, Store store) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* const sa = reinterpret_cast<T*>(smem_raw);
  T* const sc = sa + kRowsPerThread * kThreads;
  T* const sd = sc + kRowsPerThread * kThreads;
  auto* const reduced = reinterpret_cast<ReducedRow<T>*>(sd + kRowsPerThread * kThreads);
  const int lines = kThreads / parts, tid = int(threadIdx.x), l = tid % lines, p = tid / lines;
  const index_t q = index_t(blockIdx.x) * lines + l, n = g.n;
  const bool active = q < g.count;
  const index_t i0 = index_t(p) * n / parts;
  const int m = int(index_t(p + 1) * n / parts - i0);
  const index_t base = active ? detail::line_base(g, q) + i0 * g.s : 0;

  // 1. The segment's downward sweep: row 0 as read, rows 1 .. m-1 swept (a', c', d').
  T a0 = T(0), b0 = T(1), c0 = T(0), d0 = T(0), left = T(0);
  if constexpr (!is_array_rows_v<Rows>)
    if (active && i0 > 0) left = rows.stage(base - g.s, i0 - 1);
  ReducedRow<T> prev = sweep_start<T>();
  FirstRowSums<T> sums;
  struct Fetched {
    T d;
    FetchedRow<T> row;
  };
#pragma unroll
  for (int k0 = 0; k0 < kRowsPerThread; k0 += kAhead) {
    Fetched f[kAhead];
#pragma unroll
    for (int u = 0; u < kAhead; ++u) {
      const int i = k0 + u;
      if (active && i < m) {
        const index_t o = base + i * g.s;
        f[u] = {load(o, q, int(i0 + i)), fetch_row<T>(rows, o, i0 + i)};
      }
    }
#pragma unroll
    for (int u = 0; u < kAhead; ++u) {
      const int i = k0 + u;
      if (active && i < m) {
        T A, B, C;
        form_row<T>(rows, i0 + i, f[u].row, left, A, B, C);
        if (i0 + i == n - 1) C = T(0);
        if (i == 0) {
          a0 = A, b0 = B, c0 = C, d0 = f[u].d;
        } else {
          if (i >= 2) sums.add_interior(prev);
          prev = eliminate_row(A, B, C, f[u].d, prev);
          const int e = i * kThreads + tid;
          sa[e] = prev.a, sc[e] = prev.c, sd[e] = prev.d;
        }
      }
    }
  }

  // 2. The reduced system: row 2p + j of line l at (2p + j) * lines + l; idle lines hold x = 0.
  const int R = 2 * parts;
  ReducedRow<T> mine[2] = {sums.first_row(a0, b0, c0, d0), prev};
  if (!active) mine[0] = mine[1] = {T(0), T(0), T(0)};
  const ReducedRow<T> none{T(0), T(0), T(0)};
  for (int s = 1; s < R; s *= 2) {
    reduced[(2 * p) * lines + l] = mine[0];
    reduced[(2 * p + 1) * lines + l] = mine[1];
    __syncthreads();
    ReducedRow<T> lo[2], hi[2];
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int r = 2 * p + j;
      lo[j] = r - s >= 0 ? reduced[(r - s) * lines + l] : none;
      hi[j] = r + s < R ? reduced[(r + s) * lines + l] : none;
    }
    __syncthreads();  // (read before the next step overwrites)
#pragma unroll
    for (int j = 0; j < 2; ++j) pcr_step(lo[j], mine[j], hi[j]);
  }
  if (!active) return;

  // 3. The interior upwards from the segment's two unknowns, stored as it goes.
  const T first = mine[0].d, last = mine[1].d;
  store(base + (m - 1) * g.s, q, int(i0 + m - 1), last);
  T next = last;
  for (int i = m - 2; i >= 1; --i) {
    const int e = i * kThreads + tid;
    store(base + i * g.s, q, int(i0 + i), next = recover_row(ReducedRow<T>{sa[e], sc[e], sd[e]}, first, next));
  }
  store(base, q, int(i0), first);
}

}  // namespace rows_lines

// Solves L's lines on this path and returns true, or returns false (nothing launched) where it does
// not apply: x lines, a factored matrix (cluster_lines.cuh), lines shorter than 4 or longer than kMax.
template <class T, class Rows, class Load, class Store>
bool launch_rows_lines(const LineSet& L, const Geometry& g, const Rows& rows, const Load& load, const Store& store,
                       cudaStream_t stream) {
  if constexpr (is_factored_v<Rows>) {
    return false;
  } else {
    using namespace rows_lines;
    if (L.axis == 0 || g.n < 4 || g.n > kMax) return false;
    const int parts = parts_for(g.n), lines = kThreads / parts;
    launch<T>(kernel<T, Rows, Load, Store>, detail::grid_size((g.count + lines - 1) / lines), kThreads,
              smem_bytes<T>(), stream, "rows_lines", g, parts, rows, load, store);
    return true;
  }
}

}  // namespace tridsim::tridiag::gpu
