#pragma once
// Lines of any length on one GPU (namespace tridsim::tridiag::gpu): the `thomas` family's path for
// lines longer than kSegmentedAbove, behind the contract of line_solve.cuh (which includes this file
// at its end; include either). The substructuring of segment_reduction.hpp, applied twice inside a
// block, then once more across blocks:
//   - a block takes a tile of kSegLines lines times a chunk of rows; each of its threads owns a
//     segment of `S` rows of one line and reduces it to its two end rows (reduce_segments);
//   - one thread per line reduces the chunk's 2 * kSegParts end rows to the chunk's own two rows
//     (reduce_segments again, on rows with a unit diagonal);
//   - a line that fits in one chunk solves those two rows and recovers everything in the same
//     kernel (recover_segments, twice): one read and one write per element;
//   - a longer line writes each chunk's two rows to scratch (kernel `reduce`); the lines' reduced
//     systems (2 rows per chunk) are solved as lines of their own (solve_reduced_lines: a warp per
//     line, or this path again for very long lines); and each chunk is staged again through `load`
//     and the row source, reduced again (the same arithmetic, so the same end rows) and recovered
//     from its two solved unknowns (kernel `recover`). Staging again costs one more read of what
//     `load` reads, but keeps no per-element scratch, which would cost a write and a read.
// Tile layout in shared memory: planes a, b, c, d; y/z lines (x-adjacent: a row of the tile is one
// contiguous run of kSegLines values) at (i + i / S) * kSegLines + l, x lines at l * ld + i + i / S
// (one padding slot per segment, so threads walking their segments side by side hit different
// banks). The chunk's end rows: planes at j * kEndStride + l.
#include <algorithm>

#include "solvers/tridiagonal/cuda/line_solve.cuh"
#include "solvers/tridiagonal/segment_reduction.hpp"

namespace tridsim::tridiag::gpu {

namespace segmented {

constexpr int kThreads = 256;
// 32 lines per tile: the chunk's end rows, reduced by one thread per line one row after another,
// keep a whole warp busy and take half as long as with 16 lines of twice as many segments.
constexpr int kSegLines = 32;                   // lines per tile
constexpr int kSegParts = kThreads / kSegLines;  // segments per line and chunk
// End row j of line l at j * kEndStride + l: one slot of padding, so that an x tile's threads
// (segments of a line side by side) write their end rows to different banks.
constexpr int kEndStride = kSegLines + 1;

enum class Phase { whole, reduce, recover };

struct Plan {
  int S = 0;           // rows per segment
  int chunk = 0;       // rows per chunk: kSegParts * S
  index_t chunks = 0;  // chunks per line
  index_t tiles = 0;   // tiles of kSegLines lines
  std::size_t smem = 0;
};

// The segments' end rows and the tile's line offsets.
template <class T>
constexpr std::size_t end_rows_bytes() {
  return 4 * sizeof(T) * kEndStride * 2 * kSegParts + kSegLines * sizeof(index_t);
}

// Segment length: as long as fits in a third of the multiprocessor's shared memory (so that three
// blocks are resident), and no longer than the line needs.
template <class T>
Plan plan_for(const Geometry& g, const detail::Limits& lim) {
  Plan p;
  const std::size_t per_slot = 4 * sizeof(T) * kThreads;  // one row of every segment, 4 planes
  const std::size_t budget = std::min(lim.optin, lim.per_sm / 3 - lim.reserved);
  const int fit = int((budget - end_rows_bytes<T>()) / per_slot) - 1;
  const int need = int((g.n + kSegParts - 1) / kSegParts);
  p.S = std::max(2, std::min(fit, need));
  if (p.S % 2 == 1) p.S += p.S < fit ? 1 : -1;  // S + 1 odd: a warp's segments start in distinct banks
  p.chunk = kSegParts * p.S;
  p.chunks = (g.n + p.chunk - 1) / p.chunk;
  p.tiles = (g.count + kSegLines - 1) / kSegLines;
  p.smem = per_slot * std::size_t(p.S + 1) + end_rows_bytes<T>();
  return p;
}

// Stages row r (element o) of line q: d from `load`; a, b, c from arrays or a factored matrix's
// rows, or (a generator) its staged value in plane c, turned into rows by form_generated_rows.
template <class T, class Rows, class Load>
__device__ __forceinline__ void stage_row(const Rows& rows, const Load& load, index_t n, index_t o, index_t q, int r,
                                          T* a, T* b, T* c, T* d, index_t p) {
  d[p] = load(o, q, r);
  if constexpr (is_factored_v<Rows>) {
    a[p] = __ldg(rows.a + r);
    b[p] = __ldg(rows.b + r);
    c[p] = __ldg(rows.c + r);
  } else if constexpr (is_array_rows_v<Rows>) {
    a[p] = rows.a[o];
    b[p] = rows.b[o];
    c[p] = rows.c[o];
  } else {
    c[p] = rows.stage(o, r);
  }
  if (r == 0) a[p] = T(0);  // (a_0 and c_{n-1} are not part of the line)
  if (r == n - 1) c[p] = T(0);
}

// The lines' reduced systems in scratch: row j of line q at j * count + q in each plane (y lines of
// a count x (2 * chunks) array), the unit diagonal stored so that they are array rows.
template <class T>
struct ReducedPlanes {
  T *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
  __device__ void put(index_t e, const ReducedRow<T>& r) const {
    a[e] = r.a;
    b[e] = T(1);
    c[e] = r.c;
    d[e] = r.d;
  }
};

// (The phase is an argument, not a template parameter: one kernel per row source and functors
// instead of three, each branch uniform across the grid.)
template <class T, bool AlongX, class Rows, class Load, class Store>
__global__ void __launch_bounds__(kThreads)
    chunk_kernel(Geometry g, Plan plan, Phase phase, Rows rows, Load load, Store store, ReducedPlanes<T> reduced,
                 const T* solved) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  constexpr int X = kSegLines, P = kSegParts;
  const int S = plan.S, n = int(g.n), tid = int(threadIdx.x);
  const index_t plane = index_t(X) * P * (S + 1), ld = index_t(P) * (S + 1);
  T* const A = reinterpret_cast<T*>(smem_raw);
  T* const B = A + plane;
  T* const C = B + plane;
  T* const D = C + plane;
  T* const ra = D + plane;  // the segments' end rows, 2 per segment
  constexpr int E = kEndStride;
  T* const rb = ra + E * 2 * P;
  T* const rc = rb + E * 2 * P;
  T* const rd = rc + E * 2 * P;
  index_t* const bases = reinterpret_cast<index_t*>(rd + E * 2 * P);  // the tile's line offsets
  // y/z lines: blocks side by side take the same chunk of x-adjacent tiles, so that the blocks
  // resident at once read few pages (a line's chunks lie a page or more apart); x lines: a tile's
  // chunks, one contiguous run.
  const index_t b = blockIdx.x;
  const index_t tile = AlongX ? b / plan.chunks : b % plan.tiles, k = AlongX ? b % plan.chunks : b / plan.tiles;
  const index_t q0 = tile * X, r0 = k * plan.chunk;
  const int nl = int(g.count - q0 < X ? g.count - q0 : X);
  const int rows_here = int(n - r0 < plan.chunk ? n - r0 : plan.chunk);
  const index_t stride = AlongX ? 1 : X;
  auto pos = [&](int l, int i) { return AlongX ? l * ld + i + i / S : index_t(i + i / S) * X + l; };
  if (tid < nl) bases[tid] = detail::line_base(g, q0 + tid) + r0 * g.s;
  __syncthreads();

  // 1. Stage the tile (consecutive threads on consecutive addresses; on x lines the tile's rows
  // taken as one run, so that every thread has loads in flight however short the chunk).
  auto for_tile = [&](auto&& f) {
    if constexpr (AlongX) {
#pragma unroll 4
      for (int e = tid; e < nl * rows_here; e += kThreads) {
        const int l = e / rows_here, i = e - l * rows_here;
        f(l, i, bases[l] + i);
      }
    } else {
      const int l = tid % X;
      if (l < nl) {
#pragma unroll 4
        for (int i = tid / X; i < rows_here; i += P) f(l, i, bases[l] + index_t(i) * g.s);
      }
    }
  };
  for_tile([&](int l, int i, index_t o) { stage_row(rows, load, g.n, o, q0 + l, int(r0 + i), A, B, C, D, pos(l, i)); });

  // This thread's segment: line l, rows [i0, i0 + m) of the chunk.
  const int l = AlongX ? tid / P : tid % X, part = AlongX ? tid % P : tid / X;
  const int i0 = part * S, m = l < nl && rows_here > i0 ? detail::imin(S, rows_here - i0) : 0;
  if constexpr (!is_factored_v<Rows> && !is_array_rows_v<Rows>) {
    // A generator's row i is formed from the staged values of rows i-1 and i.
    T left = T(0);
    __syncthreads();
    if (m > 0) {
      const index_t r = r0 + i0;
      if (i0 > 0) left = C[pos(l, i0 - 1)];
      else if (r > 0) left = rows.stage(bases[l] - g.s, int(r - 1));
    }
    __syncthreads();  // (row i0 - 1's staged value is read before its owner overwrites it)
    for (int i = i0; i < i0 + m; ++i) {
      const index_t p = pos(l, i);
      const int r = int(r0 + i);
      const T right = C[p];
      T a, b, c;
      rows.row(r, left, right, a, b, c);
      A[p] = r == 0 ? T(0) : a;
      B[p] = b;
      C[p] = r == n - 1 ? T(0) : c;
      left = right;
    }
  }
  __syncthreads();

  // 2. Each segment to its two end rows.
  if (m > 0) {
    ReducedRow<T> two[2];
    const index_t p = pos(l, i0);
    const int got = reduce_segments<T>(m, stride, 1, A + p, B + p, C + p, D + p, two);
    for (int j = 0; j < got; ++j) {
      const index_t e = index_t(2 * part + j) * E + l;
      ra[e] = two[j].a;
      rb[e] = T(1);
      rc[e] = two[j].c;
      rd[e] = two[j].d;
    }
  }
  __syncthreads();

  // 3. The chunk's end rows to the chunk's two rows; their unknowns; the segments' end unknowns.
  if (tid < nl) {
    const int parts = (rows_here + S - 1) / S, tail = rows_here - (parts - 1) * S;
    const index_t ends = 2 * index_t(parts) - (tail == 1 ? 1 : 0), q = q0 + tid;
    ReducedRow<T> two[2];
    const int got = reduce_segments<T>(ends, E, 1, ra + tid, rb + tid, rc + tid, rd + tid, two);
    if (got == 1) two[1] = {T(0), T(0), T(0)};  // a one-row chunk ends the line: x = 0 decoupled
    if (phase == Phase::reduce) {
      reduced.put(2 * k * g.count + q, two[0]);
      reduced.put((2 * k + 1) * g.count + q, two[1]);
    } else {
      T first, last;
      if (phase == Phase::whole) {  // a_0 = c_{n-1} = 0: the line's two rows alone
        T cp[2], x[2];
        solve_reduced<T>(2, two, cp, x);
        first = x[0];
        last = got == 1 ? x[0] : x[1];
      } else {
        first = solved[2 * k * g.count + q];
        last = got == 1 ? first : solved[(2 * k + 1) * g.count + q];
      }
      recover_segments<T>(ends, E, 1, ra + tid, rc + tid, rd + tid, &first, &last);
    }
  }
  if (phase == Phase::reduce) return;
  __syncthreads();

  // 4. Each segment's interior from its end unknowns; the tile stored.
  if (m > 0) {
    const T first = rd[index_t(2 * part) * E + l], last = m > 1 ? rd[index_t(2 * part + 1) * E + l] : first;
    const index_t p = pos(l, i0);
    recover_segments<T>(m, stride, 1, A + p, C + p, D + p, &first, &last);
  }
  __syncthreads();
  for_tile([&](int l, int i, index_t o) { store(o, q0 + l, int(r0 + i), D[pos(l, i)]); });
}

}  // namespace segmented

// The reduced systems (per_line rows each, ReducedPlanes' layout), their unknowns to x in the same
// layout: thomas-pcr's tiled kernel, a warp per line, up to its length; past it, this path again
// (the reduced system of a reduced system is shorter by a chunk's length).
template <class T>
void solve_reduced_lines(index_t count, index_t per_line, const segmented::ReducedPlanes<T>& r, T* x,
                         cudaStream_t stream) {
  const LineSet L{{count, per_line, 1}, {1, count, count * per_line}, 1};
  const Geometry g = detail::geometry(L);
  const ArrayRows<T> rows{r.a, r.b, r.c};
  if (!launch_pcr_tiled<T>(g, rows, ArrayLoad<T>{r.d}, ArrayStore<T>{x}, stream))
    launch_segmented<T>(L, g, rows, ArrayLoad<T>{r.d}, ArrayStore<T>{x}, stream);
}

template <class T, class Rows, class Load, class Store>
void launch_segmented(const LineSet& L, const Geometry& g, const Rows& rows, const Load& load, const Store& store,
                      cudaStream_t stream) {
  using namespace segmented;
  const Plan plan = plan_for<T>(g, detail::device_limits(detail::current_device()));
  const unsigned blocks = detail::grid_size(plan.tiles * plan.chunks);
  auto run = [&](auto along_x) {
    constexpr bool X = decltype(along_x)::value;
    if (plan.chunks == 1) {
      launch<T>(chunk_kernel<T, X, Rows, Load, Store>, blocks, kThreads, plan.smem, stream,
                "segmented whole lines", g, plan, Phase::whole, rows, load, store, ReducedPlanes<T>{},
                static_cast<const T*>(nullptr));
      return;
    }
    const index_t per_line = 2 * plan.chunks, values = per_line * g.count;
    void* scratch = nullptr;
    TRIDIAG_CUDA(cudaMallocAsync(&scratch, 5 * values * sizeof(T), stream));
    T* const planes = static_cast<T*>(scratch);
    const ReducedPlanes<T> reduced{planes, planes + values, planes + 2 * values, planes + 3 * values};
    T* const solved = planes + 4 * values;
    try {
      launch<T>(chunk_kernel<T, X, Rows, Load, Store>, blocks, kThreads, plan.smem, stream,
                "segmented reduce", g, plan, Phase::reduce, rows, load, store, reduced, static_cast<const T*>(nullptr));
      solve_reduced_lines<T>(g.count, per_line, reduced, solved, stream);
      launch<T>(chunk_kernel<T, X, Rows, Load, Store>, blocks, kThreads, plan.smem, stream,
                "segmented recover", g, plan, Phase::recover, rows, load, store, ReducedPlanes<T>{},
                static_cast<const T*>(solved));
    } catch (...) {
      (void)cudaFreeAsync(scratch, stream);
      throw;
    }
    TRIDIAG_CUDA(cudaFreeAsync(scratch, stream));
  };
  if (L.axis == 0) run(std::true_type{});
  else run(std::false_type{});
}

}  // namespace tridsim::tridiag::gpu
