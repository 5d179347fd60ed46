#pragma once
// The GPU line solvers behind the same contract as the CPU's solve_lines (batched.hpp; namespace
// tridsim::tridiag::gpu): lines (LineSet), a row source, a `load` functor that forms each
// right-hand side value and a `store` functor that writes or fuses each solution value. A module
// passes functors; the solver owns the loops, tiling and launch shapes. Include from .cu files
// only.
//
//   load(o, q, r) -> T        right-hand side of row r of line q (element offset o)
//   store(o, q, r, x)         the solution x of that row
// Row sources (row r of a line: a_r x_{r-1} + b_r x_r + c_r x_{r+1}; a_0, c_{n-1} ignored):
//   FactoredRows<T>           one matrix shared by every line, factored once (UniformMatrixDevice)
//   ArrayRows<T>              a, b, c arrays in the layout of the lines
//   a generator               any type with stage(o, r) -> T and row(r, left, right, a, b, c):
//                             one value staged per element (e.g. the face diffusivity to its
//                             right, DiffusionRows in core/diffusion.hpp), row r formed from the
//                             staged values of rows r-1 and r, so no kernel reads neighbours.
// Every element is loaded once and stored once; coefficients are read once (arrays) or
// generated from one staged value per element.
#include <algorithm>
#include <string>
#include <type_traits>

#include "solvers/tridiagonal/cuda/batched_cuda.hpp"
#include "solvers/tridiagonal/cuda/kernel_support.cuh"
#include "solvers/tridiagonal/cuda/thomas_pcr.cuh"
#include "solvers/tridiagonal/cuda/thomas_smem.cuh"
#include "solvers/tridiagonal/cuda/warp_solvers.hpp"

namespace tridsim::tridiag::gpu {

using detail::Geometry;
using detail::kWarp;

template <class T>
struct FactoredRows {
  const T* a = nullptr;   // a with a_0 = 0
  const T* m = nullptr;   // inverse pivots
  const T* cp = nullptr;  // modified upper diagonal
  const T* b = nullptr;   // the rows rebuilt (PCR)
  const T* c = nullptr;
  const T* scan = nullptr;  // the warp-scan table (thomas_pcr.cuh)
};
template <class T>
FactoredRows<T> factored_rows(const UniformMatrixDevice<T>& M) {
  return {M.a(), M.m(), M.cp(), M.b(), M.c(), M.scan()};
}

template <class T>
struct ArrayRows {
  const T* a;
  const T* b;
  const T* c;
};

template <class T>
struct ArrayLoad {
  const T* p;
  __device__ T operator()(index_t o, index_t, int) const { return p[o]; }
};
template <class T>
using ArrayStore = detail::AssignStore<T>;

template <class R>
inline constexpr bool is_factored_v = false;
template <class T>
inline constexpr bool is_factored_v<FactoredRows<T>> = true;
template <class R>
inline constexpr bool is_array_rows_v = false;
template <class T>
inline constexpr bool is_array_rows_v<ArrayRows<T>> = true;
template <class L>
inline constexpr bool is_array_load_v = false;
template <class T>
inline constexpr bool is_array_load_v<ArrayLoad<T>> = true;
template <class S>
inline constexpr bool is_array_store_v = false;
template <class T>
inline constexpr bool is_array_store_v<ArrayStore<T>> = true;

// Values staged per element besides the right-hand side: none for a factored matrix, a, b, c
// for arrays, one for a generator.
template <class R>
inline constexpr int kStaged = is_factored_v<R> ? 0 : is_array_rows_v<R> ? 3 : 1;

// ---- the recurrence of one line held in shared memory -----------------------------------------
//
// d[at(r)] holds the right-hand side (the solution on return); st: the staged values (arrays:
// planes a, b, c `plane` apart; c, or the generator's value, is overwritten with c').
template <class T, class Rows, class At>
__device__ __forceinline__ void thomas_line(const Rows& rows, int n, T* d, T* st, index_t plane, const At& at) {
  T prev = T(0);
  if constexpr (is_factored_v<Rows>) {
    for (int r = 0; r < n; ++r) {
      const T mr = __ldg(rows.m + r);
      prev = fma(-(__ldg(rows.a + r) * mr), prev, d[at(r)] * mr);
      d[at(r)] = prev;
    }
    for (int r = n - 2; r >= 0; --r) prev = d[at(r)] -= __ldg(rows.cp + r) * prev;
  } else {
    T cprev = T(0), left = T(0);
    for (int r = 0; r < n; ++r) {
      T A, B, C;
      if constexpr (is_array_rows_v<Rows>) {
        A = r > 0 ? st[at(r)] : T(0);
        B = st[plane + at(r)];
        C = st[2 * plane + at(r)];
      } else {
        const T right = st[at(r)];
        rows.row(r, left, right, A, B, C);
        left = right;
      }
      const T inv = detail::reciprocal(B - A * cprev);
      cprev = r + 1 < n ? C * inv : T(0);
      st[(is_array_rows_v<Rows> ? 2 * plane : 0) + at(r)] = cprev;
      prev = (d[at(r)] - A * prev) * inv;
      d[at(r)] = prev;
    }
    const T* cpl = st + (is_array_rows_v<Rows> ? 2 * plane : 0);
    for (int r = n - 2; r >= 0; --r) prev = d[at(r)] -= cpl[at(r)] * prev;
  }
}

// Stage element (line l, row r) at shared position p: the right-hand side and the row values.
template <class T, class Rows, class Load>
__device__ __forceinline__ void stage_element(const Rows& rows, const Load& load, index_t o, index_t q, int r, T* d,
                                              T* st, index_t plane, index_t p) {
  d[p] = load(o, q, r);
  if constexpr (is_array_rows_v<Rows>) {
    st[p] = rows.a[o];
    st[plane + p] = rows.b[o];
    st[2 * plane + p] = rows.c[o];
  } else if constexpr (!is_factored_v<Rows>) {
    st[p] = rows.stage(o, r);
  }
}

// ---- thomas: one thread per line, a tile of lines staged in shared memory ---------------------
//
// A block of kTileThreads threads takes `lines` consecutive lines. All threads load the tile
// (x lines: consecutive threads on consecutive elements of a line, the local transposition;
// y/z lines: consecutive lines are x-adjacent, so a row of the tile is one contiguous run), one
// thread per line runs the recurrence, and all threads store. Layout: x lines at l * ld + r
// (ld = n + 1 against bank conflicts), y/z lines at r * lines + l.
constexpr int kTileThreads = 256;

template <class T, bool AlongX, class Rows, class Load, class Store>
__global__ void __launch_bounds__(kTileThreads)
    thomas_tiled(Geometry g, int lines, Rows rows, Load load, Store store) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* const d = reinterpret_cast<T*>(smem_raw);
  const int n = int(g.n);
  const index_t ld = AlongX ? index_t(n) + 1 : index_t(lines);
  const index_t plane = AlongX ? index_t(lines) * ld : index_t(n) * lines;
  T* const st = d + plane;
  const index_t q0 = index_t(blockIdx.x) * lines;
  const int nl = int(g.count - q0 < index_t(lines) ? g.count - q0 : index_t(lines));
  const int tid = int(threadIdx.x);
  auto pos = [&](int l, int r) { return AlongX ? index_t(l) * ld + r : index_t(r) * lines + l; };
  if constexpr (AlongX) {
    for (int l = 0; l < nl; ++l) {
      const index_t base = detail::line_base(g, q0 + l);
#pragma unroll 4
      for (int r = tid; r < n; r += kTileThreads) stage_element(rows, load, base + r, q0 + l, r, d, st, plane, pos(l, r));
    }
  } else {
    const int l = tid % lines, step = kTileThreads / lines;
    if (l < nl && tid < step * lines) {
      const index_t base = detail::line_base(g, q0 + l);
#pragma unroll 4
      for (int r = tid / lines; r < n; r += step)
        stage_element(rows, load, base + index_t(r) * g.s, q0 + l, r, d, st, plane, pos(l, r));
    }
  }
  __syncthreads();
  if (tid < nl) thomas_line<T>(rows, n, d, st, plane, [&](int r) { return pos(tid, r); });
  __syncthreads();
  if constexpr (AlongX) {
    for (int l = 0; l < nl; ++l) {
      const index_t base = detail::line_base(g, q0 + l);
      for (int r = tid; r < n; r += kTileThreads) store(base + r, q0 + l, r, d[pos(l, r)]);
    }
  } else {
    const int l = tid % lines, step = kTileThreads / lines;
    if (l < nl && tid < step * lines) {
      const index_t base = detail::line_base(g, q0 + l);
      for (int r = tid / lines; r < n; r += step) store(base + index_t(r) * g.s, q0 + l, r, d[pos(l, r)]);
    }
  }
}

// Lines per tile: as many as fit in a third of the multiprocessor's shared memory (so that
// several blocks are resident), at most 32; 0 when not even one line fits in a block.
template <class T, class Rows>
int tile_lines(index_t n, const detail::Limits& lim) {
  const std::size_t per_line = std::size_t(1 + kStaged<Rows>) * sizeof(T) * std::size_t(n + 1);
  if (per_line > lim.optin) return 0;
  const std::size_t budget = std::max<std::size_t>(per_line, std::min(lim.optin, lim.per_sm / 3));
  return int(std::min<std::size_t>(32, budget / per_line));
}

// ---- thomas-naive: one thread per line, d' and c' in global scratch ---------------------------

// A row's values as read from memory, before the row is formed: arrays' a, b, c, or a generator's
// staged value (in b). Fetching apart from forming lets a thread read rows ahead of its recurrence.
template <class T>
struct FetchedRow {
  T a, b, c;
};

template <class T, class Rows>
__device__ __forceinline__ FetchedRow<T> fetch_row(const Rows& rows, index_t o, index_t r) {
  if constexpr (is_array_rows_v<Rows>) return {r > 0 ? rows.a[o] : T(0), rows.b[o], rows.c[o]};
  else return {T(0), rows.stage(o, r), T(0)};
}

// Row r from its fetched values; a generator's from the staged value of the row before (`left`,
// updated to this row's).
template <class T, class Rows>
__device__ __forceinline__ void form_row(const Rows& rows, index_t r, const FetchedRow<T>& f, T& left, T& A, T& B,
                                         T& C) {
  if constexpr (is_array_rows_v<Rows>) {
    A = f.a;
    B = f.b;
    C = f.c;
  } else {
    rows.row(r, left, f.b, A, B, C);
    left = f.b;
  }
}

// Row r (element o) of a line read by one thread in order.
template <class T, class Rows>
__device__ __forceinline__ void row_from_global(const Rows& rows, index_t o, index_t r, T& left, T& A, T& B, T& C) {
  form_row<T>(rows, r, fetch_row<T>(rows, o, r), left, A, B, C);
}

template <class T, class Rows, class Load, class Store>
__global__ void thomas_global(Geometry g, Rows rows, Load load, Store store, T* __restrict__ dscr,
                              T* __restrict__ cscr) {
  const index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= g.count) return;
  const index_t base = detail::line_base(g, q), s = g.s;
  const int n = int(g.n);
  auto at = [&](int r) { return index_t(r) * g.count + q; };  // consecutive lines adjacent
  T prev = T(0), cprev = T(0), left = T(0);
  for (int r = 0; r < n; ++r) {
    const index_t o = base + index_t(r) * s;
    const T rhs = load(o, q, r);
    if constexpr (is_factored_v<Rows>) {
      prev = (rhs - __ldg(rows.a + r) * prev) * __ldg(rows.m + r);
    } else {
      T A, B, C;
      row_from_global<T>(rows, o, r, left, A, B, C);
      const T inv = detail::reciprocal(B - A * cprev);
      cprev = r + 1 < n ? C * inv : T(0);
      cscr[at(r)] = cprev;
      prev = (rhs - A * prev) * inv;
    }
    dscr[at(r)] = prev;
  }
  T next = T(0);
  for (int r = n - 1; r >= 0; --r) {
    T cr;
    if constexpr (is_factored_v<Rows>) cr = r + 1 < n ? __ldg(rows.cp + r) : T(0);
    else cr = cscr[at(r)];
    next = dscr[at(r)] - cr * next;
    store(base + index_t(r) * s, q, r, next);
  }
}

// ---- thomas-pcr: one warp per line (thomas_pcr.cuh) ------------------------------------------

constexpr int kPcrWarps = 4;  // lines per block

template <class T, int M, class Rows, class Load, class Store>
__global__ void __launch_bounds__(kPcrWarps * 32)
    thomas_pcr_lines(Geometry g, Rows rows, Load load, Store store) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  using detail::pad;
  const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
  const index_t q = index_t(blockIdx.x) * kPcrWarps + warp;
  if (q >= g.count) return;  // (whole warps)
  const int n = int(g.n), np = pad(n) + 1;
  const index_t base = detail::line_base(g, q), s = g.s;
  T* const sd = reinterpret_cast<T*>(smem_raw) + warp * (1 + kStaged<Rows>) * np;
  T* const st = sd + np;
  for (int r = lane; r < n; r += 32)
    stage_element(rows, load, base + index_t(r) * s, q, r, sd, st, np, pad(r));
  __syncwarp();
  if constexpr (is_factored_v<Rows>) {
    detail::uniform_scan_warp<T, M>(lane, n, sd, rows.scan);
  } else {
    detail::thomas_pcr_warp<T, M>(lane, n, sd, [](int r) { return pad(r); }, [&](int r, T& A, T& B, T& C) {
      if constexpr (is_array_rows_v<Rows>) {
        A = st[pad(r)];
        B = st[np + pad(r)];
        C = st[2 * np + pad(r)];
      } else {
        rows.row(r, r > 0 ? st[pad(r - 1)] : T(0), st[pad(r)], A, B, C);
      }
    });
  }
  __syncwarp();
  for (int r = lane; r < n; r += 32) store(base + index_t(r) * s, q, r, sd[pad(r)]);
}

// The scan form's steps on one segment of a line of a factored matrix: rows r0 .. r0 + L - 1, their
// values in v (registers, R >= L). Forward y_r = m_r d_r + alpha_r y_{r-1}, alpha_r = -a_r m_r
// (a_0 = 0): the segment's map Y -> P Y + y with a zero carry, and the segment with its true carry
// (v becomes y). Backward x_r = y_r + beta_r x_{r+1}, beta_r = -cp_r (cp_{n-1} = 0): the map.
template <class T, int R>
__device__ __forceinline__ detail::SegmentMap<T> scan_forward_map(const FactoredRows<T>& rows, int r0, int L,
                                                                  const T (&v)[R]) {
  T y = T(0), P = T(1);
#pragma unroll
  for (int k = 0; k < R; ++k)
    if (k < L) {
      const T m = __ldg(rows.m + r0 + k), alpha = -__ldg(rows.a + r0 + k) * m;
      y = fma(alpha, y, m * v[k]);
      P *= alpha;
    }
  return {P, y};
}
template <class T, int R>
__device__ __forceinline__ void scan_forward(const FactoredRows<T>& rows, int r0, int L, T y, T (&v)[R]) {
#pragma unroll
  for (int k = 0; k < R; ++k)
    if (k < L) {
      const T m = __ldg(rows.m + r0 + k);
      y = fma(-__ldg(rows.a + r0 + k) * m, y, m * v[k]);
      v[k] = y;
    }
}
template <class T, int R>
__device__ __forceinline__ detail::SegmentMap<T> scan_backward_map(const FactoredRows<T>& rows, int r0, int L,
                                                                   const T (&v)[R]) {
  T x = T(0), P = T(1);
#pragma unroll
  for (int k = R - 1; k >= 0; --k)
    if (k < L) {
      const T beta = -__ldg(rows.cp + r0 + k);
      x = fma(beta, x, v[k]);
      P *= beta;
    }
  return {P, x};
}

// The scan form on y/z lines, segments across warps (thomas_pcr.cuh's uniform_scan_strided with
// a load functor): a block takes kScanYzLines x-adjacent lines cut into segments of R rows.
template <class T, int R, class Load, class Store>
__global__ void __launch_bounds__(1024)
    scan_strided_lines(Geometry g, FactoredRows<T> rows, Load load, Store store) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  using Map = detail::SegmentMap<T>;
  Map* const maps = reinterpret_cast<Map*>(smem_raw);  // [segment][line]
  constexpr int X = detail::kScanYzLines;
  const int lane = int(threadIdx.x) % X, w = int(threadIdx.x) / X, W = int(blockDim.x) / X;
  const index_t q = index_t(blockIdx.x) * X + lane;
  const bool active = q < g.count;
  const index_t base = active ? detail::line_base(g, q) : 0, s = g.s;
  const int n = int(g.n), r0 = w * R, L = active ? (n - r0 < R ? n - r0 : R) : 0;
  T v[R];
#pragma unroll
  for (int k = 0; k < R; ++k)
    if (k < L) v[k] = load(base + index_t(r0 + k) * s, q, r0 + k);
  // Forward: the segment's map with a zero carry, then the true carry.
  maps[w * X + lane] = scan_forward_map<T, R>(rows, r0, L, v);
  __syncthreads();
  T carry = T(0);
  for (int u = 0; u < w; ++u) carry = fma(maps[u * X + lane].a, carry, maps[u * X + lane].b);
  scan_forward<T, R>(rows, r0, L, carry, v);
  __syncthreads();  // (the forward maps are read; the backward ones go to the same place)
  // Backward, the same way from the line's end.
  maps[w * X + lane] = scan_backward_map<T, R>(rows, r0, L, v);
  __syncthreads();
  carry = T(0);
  for (int u = W - 1; u > w; --u) carry = fma(maps[u * X + lane].a, carry, maps[u * X + lane].b);
  T x = carry;
#pragma unroll
  for (int k = R - 1; k >= 0; --k)
    if (k < L) {
      x = fma(-__ldg(rows.cp + r0 + k), x, v[k]);
      store(base + index_t(r0 + k) * s, q, r0 + k, x);
    }
}

// The hybrid on strided (y, z) lines with rows from arrays or a generator: a block stages a tile
// of x-adjacent lines as thomas_tiled does (a row of the tile is one contiguous run), then each
// warp solves lines of the tile with thomas_pcr_warp, and the block stores. Layout: row r of
// line l at r * lines + l + r / 8, so that lanes reading rows a segment apart hit different banks.
template <class T, int M, class Rows, class Load, class Store>
__global__ void __launch_bounds__(kTileThreads)
    thomas_pcr_tiled(Geometry g, int lines, Rows rows, Load load, Store store) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* const d = reinterpret_cast<T*>(smem_raw);
  const int n = int(g.n);
  const index_t plane = index_t(n) * lines + n / 8 + 1;
  T* const st = d + plane;
  const index_t q0 = index_t(blockIdx.x) * lines;
  const int nl = int(g.count - q0 < index_t(lines) ? g.count - q0 : index_t(lines));
  const int tid = int(threadIdx.x), step = kTileThreads / lines;
  auto pos = [&](int l, int r) { return index_t(r) * lines + l + r / 8; };
  const int l = tid % lines;
  const bool loads = l < nl && tid < step * lines;
  const index_t base = loads ? detail::line_base(g, q0 + l) : 0;
  if (loads) {
#pragma unroll 4
    for (int r = tid / lines; r < n; r += step)
      stage_element(rows, load, base + index_t(r) * g.s, q0 + l, r, d, st, plane, pos(l, r));
  }
  __syncthreads();
  const int lane = tid % kWarp;
  for (int line = tid / kWarp; line < nl; line += kTileThreads / kWarp)
    detail::thomas_pcr_warp<T, M>(lane, n, d, [&](int r) { return pos(line, r); }, [&](int r, T& A, T& B, T& C) {
      if constexpr (is_array_rows_v<Rows>) {
        A = st[pos(line, r)];
        B = st[plane + pos(line, r)];
        C = st[2 * plane + pos(line, r)];
      } else {
        rows.row(r, r > 0 ? st[pos(line, r - 1)] : T(0), st[pos(line, r)], A, B, C);
      }
    });
  __syncthreads();
  if (loads)
    for (int r = tid / lines; r < n; r += step) store(base + index_t(r) * g.s, q0 + l, r, d[pos(l, r)]);
}

// Lines per tile of thomas_pcr_tiled: 16, or fewer so that three blocks fit on a multiprocessor.
template <class T, class Rows>
int pcr_tile_lines(index_t n, const detail::Limits& lim) {
  for (int lines = 16; lines >= 1; lines /= 2) {
    const std::size_t smem = std::size_t(1 + kStaged<Rows>) * sizeof(T) * std::size_t(n * lines + n / 8 + 1);
    if (smem <= lim.per_sm / 3 || (lines == 1 && smem <= lim.optin)) return lines;
  }
  return 0;
}

// ---- pcr: one block per line, one thread per row ----------------------------------------------

template <class T, class Rows, class Load, class Store>
__global__ void pcr_lines(Geometry g, Rows rows, Load load, Store store) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  using detail::Row;
  const int n = int(g.n), i = int(threadIdx.x);
  const index_t q = blockIdx.x, base = detail::line_base(g, q), s = g.s;
  Row<T>* const shared_rows = reinterpret_cast<Row<T>*>(smem_raw);
  Row<T> me = detail::identity_row<T>();
  if (i < n) {
    const index_t o = base + index_t(i) * s;
    me.d = load(o, q, i);
    if constexpr (is_factored_v<Rows>) {
      me.a = __ldg(rows.a + i); me.b = __ldg(rows.b + i); me.c = __ldg(rows.c + i);
    } else if constexpr (is_array_rows_v<Rows>) {
      me.a = rows.a[o]; me.b = rows.b[o]; me.c = rows.c[o];
    } else {
      rows.row(i, i > 0 ? rows.stage(o - s, i - 1) : T(0), rows.stage(o, i), me.a, me.b, me.c);
    }
    if (i == 0) me.a = T(0);
    if (i == n - 1) me.c = T(0);
  }
  for (int stride = 1; stride < n; stride *= 2) {
    if (i < n) shared_rows[i] = me;
    __syncthreads();
    if (i < n) {
      const Row<T> lo = i >= stride ? shared_rows[i - stride] : detail::identity_row<T>();
      const Row<T> hi = i + stride < n ? shared_rows[i + stride] : detail::identity_row<T>();
      me = detail::pcr_step(me, lo, hi);
    }
    __syncthreads();
  }
  if (i < n) store(base + index_t(i) * s, q, i, me.d / me.b);
}

// Lines of a factored matrix longer than kClusterAbove go whole onto a thread-block cluster where
// they fit one (cluster_lines.cuh; false where not): one read and one write per element, where the
// segmented path reads twice. From the thomas family, and from thomas-pcr's y/z lines, whose
// one-block scan holds segments of 32 rows past 256 points and spills (x lines stay on its warp
// scan, faster there).
constexpr index_t kClusterAbove = 256;
template <class T, class Load, class Store>
bool launch_cluster_lines(const LineSet& L, const Geometry& g, const FactoredRows<T>& rows, const Load& load,
                          const Store& store, cudaStream_t stream);

// ---- launches ---------------------------------------------------------------------------------

template <class T, class Kernel, class... Args>
void launch(Kernel kernel, unsigned blocks, unsigned threads, std::size_t smem, cudaStream_t stream,
            const char* name, Args... args) {
  const int dev = detail::current_device();
  if (smem > (48u << 10)) detail::prepare_kernel(kernel, dev, detail::device_limits(dev));
  kernel<<<blocks, threads, smem, stream>>>(args...);
  detail::check_cuda(cudaGetLastError(), name, __FILE__, __LINE__);
}

template <class T, class Rows, class Load, class Store>
void launch_tiled(const LineSet& L, const Geometry& g, const Rows& rows, const Load& load, const Store& store,
                  cudaStream_t stream) {
  const detail::Limits lim = detail::device_limits(detail::current_device());
  const int lines = tile_lines<T, Rows>(g.n, lim);
  const std::size_t smem = std::size_t(1 + kStaged<Rows>) * sizeof(T) * std::size_t(g.n + 1) * lines;
  const unsigned blocks = detail::grid_size((g.count + lines - 1) / lines);
  if (L.axis == 0)
    launch<T>(thomas_tiled<T, true, Rows, Load, Store>, blocks, kTileThreads, smem, stream, "thomas_tiled", g, lines,
              rows, load, store);
  else
    launch<T>(thomas_tiled<T, false, Rows, Load, Store>, blocks, kTileThreads, smem, stream, "thomas_tiled", g, lines,
              rows, load, store);
}

template <class T, class Rows, class Load, class Store>
void launch_naive(const Geometry& g, const Rows& rows, const Load& load, const Store& store, cudaStream_t stream) {
  const std::size_t elems = std::size_t(g.n) * std::size_t(g.count);
  void* scratch = nullptr;
  TRIDIAG_CUDA(cudaMallocAsync(&scratch, sizeof(T) * elems * (is_factored_v<Rows> ? 1 : 2), stream));
  T* dscr = static_cast<T*>(scratch);
  T* cscr = is_factored_v<Rows> ? nullptr : dscr + elems;
  constexpr int threads = 128;
  thomas_global<T><<<detail::grid_size((g.count + threads - 1) / threads), threads, 0, stream>>>(g, rows, load, store,
                                                                                                 dscr, cscr);
  const cudaError_t launched = cudaGetLastError();
  const cudaError_t freed = cudaFreeAsync(scratch, stream);
  detail::check_cuda(launched, "launch of thomas_global", __FILE__, __LINE__);
  TRIDIAG_CUDA(freed);
}

// thomas-pcr on strided (y, z) lines of per-line rows: a staged tile, a warp per line; false where
// the lines are too long for it.
template <class T, class Rows, class Load, class Store>
bool launch_pcr_tiled(const Geometry& g, const Rows& rows, const Load& load, const Store& store, cudaStream_t stream) {
  const int lines = pcr_tile_lines<T, Rows>(g.n, detail::device_limits(detail::current_device()));
  if (lines == 0 || g.n > detail::kThomasPcrMax) return false;
  const std::size_t smem = std::size_t(1 + kStaged<Rows>) * sizeof(T) * std::size_t(g.n * lines + g.n / 8 + 1);
  const unsigned blocks = detail::grid_size((g.count + lines - 1) / lines);
  if (detail::thomas_pcr_segment_bound(g.n) <= 8)
    launch<T>(thomas_pcr_tiled<T, 8, Rows, Load, Store>, blocks, kTileThreads, smem, stream, "thomas_pcr_tiled", g,
              lines, rows, load, store);
  else
    launch<T>(thomas_pcr_tiled<T, 16, Rows, Load, Store>, blocks, kTileThreads, smem, stream, "thomas_pcr_tiled", g,
              lines, rows, load, store);
  return true;
}

template <class T, class Rows, class Load, class Store>
void launch_thomas_pcr(const LineSet& L, const Geometry& g, const Rows& rows, const Load& load, const Store& store,
                       cudaStream_t stream) {
  if constexpr (is_factored_v<Rows>) {
    if (L.axis != 0) {  // strided lines: segments across warps
      if (g.n > kClusterAbove && launch_cluster_lines<T>(L, g, rows, load, store, stream)) return;
      const int R = detail::scan_yz_rows(g.n), W = int((g.n + R - 1) / R);
      constexpr int X = detail::kScanYzLines;
      const unsigned blocks = detail::grid_size((g.count + X - 1) / X);
      const std::size_t smem = std::size_t(W) * X * sizeof(detail::SegmentMap<T>);
      if (R == 8)
        launch<T>(scan_strided_lines<T, 8, Load, Store>, blocks, W * X, smem, stream, "scan_strided_lines", g, rows,
                  load, store);
      else if (R == 16)
        launch<T>(scan_strided_lines<T, 16, Load, Store>, blocks, W * X, smem, stream, "scan_strided_lines", g, rows,
                  load, store);
      else
        launch<T>(scan_strided_lines<T, 32, Load, Store>, blocks, W * X, smem, stream, "scan_strided_lines", g, rows,
                  load, store);
      return;
    }
  }
  if constexpr (!is_factored_v<Rows>)
    if (L.axis != 0 && launch_pcr_tiled<T>(g, rows, load, store, stream)) return;  // a warp per staged line
  const index_t longest =
      is_factored_v<Rows> ? detail::uniform_scan_segment_bound(g.n) : detail::thomas_pcr_segment_bound(g.n);
  const std::size_t smem =
      std::size_t(kPcrWarps) * (1 + kStaged<Rows>) * std::size_t(detail::pad(int(g.n)) + 1) * sizeof(T);
  const unsigned blocks = detail::grid_size((g.count + kPcrWarps - 1) / kPcrWarps);
  if (longest <= 8)
    launch<T>(thomas_pcr_lines<T, 8, Rows, Load, Store>, blocks, kPcrWarps * 32, smem, stream, "thomas_pcr_lines", g,
              rows, load, store);
  else
    launch<T>(thomas_pcr_lines<T, 16, Rows, Load, Store>, blocks, kPcrWarps * 32, smem, stream, "thomas_pcr_lines", g,
              rows, load, store);
}

// Lines longer than kSegmentedAbove that no path above takes go to the segmented path of the
// thomas family (segmented_lines.cuh): every thread busy, where the tiled kernel would have one
// thread of its block sweep each of the few lines its tile holds.
constexpr index_t kSegmentedAbove = detail::kThomasPcrMax;
template <class T, class Rows, class Load, class Store>
void launch_segmented(const LineSet& L, const Geometry& g, const Rows& rows, const Load& load, const Store& store,
                      cudaStream_t stream);

// y/z lines of per-line rows longer than kRowsLinesAbove (up to rows_lines::kMax) take rows_lines.cuh:
// one read per element, every thread busy (at 256 points and below the tiled kernels are as fast).
constexpr index_t kRowsLinesAbove = 256;
template <class T, class Rows, class Load, class Store>
bool launch_rows_lines(const LineSet& L, const Geometry& g, const Rows& rows, const Load& load, const Store& store,
                       cudaStream_t stream);

// Solve every line of L (device memory, queued on `stream`). `alg` must be supported
// (gpu_unsupported_reason: checked when the deck is read, and again here as a backstop);
// automatic picks from the measured table.
template <class T, class Rows, class Load, class Store>
void solve_lines(const LineSet& L, const Rows& rows, const Load& load, const Store& store, GpuAlgorithm alg,
                 cudaStream_t stream = 0) {
  if (!detail::validate(L, "tridiagonal solver (cuda)")) return;
  alg = resolve_gpu_algorithm(alg, L, is_factored_v<Rows>, sizeof(T), false);
  if (const std::string why = gpu_unsupported_reason(alg, L, false); !why.empty())
    throw Error("tridiagonal solver (cuda): " + why);
  const Geometry g = detail::geometry(L);
  switch (alg) {
    case GpuAlgorithm::thomas_naive: return launch_naive<T>(g, rows, load, store, stream);
    case GpuAlgorithm::thomas_pcr: return launch_thomas_pcr<T>(L, g, rows, load, store, stream);
    case GpuAlgorithm::pcr: {
      const std::size_t smem = std::size_t(g.n) * sizeof(detail::Row<T>);
      return launch<T>(pcr_lines<T, Rows, Load, Store>, detail::grid_size(g.count), unsigned((g.n + 31) / 32 * 32),
                       smem, stream, "pcr_lines", g, rows, load, store);
    }
    default: break;
  }
  if constexpr (is_factored_v<Rows>)
    if (g.n > kClusterAbove && launch_cluster_lines<T>(L, g, rows, load, store, stream)) return;
  if (g.n > kRowsLinesAbove && launch_rows_lines<T>(L, g, rows, load, store, stream)) return;
  if (g.n > kSegmentedAbove) return launch_segmented<T>(L, g, rows, load, store, stream);
  // thomas: a factored matrix from array to array runs the pipelined kernel of the in-place
  // solver (asynchronous copies a few chunks ahead of the sweep). A fused store (an update
  // that reads as well) runs faster in the tiled kernel, off the back substitution's path.
  if constexpr (is_factored_v<Rows> && is_array_load_v<Load> && is_array_store_v<Store>)
    if (detail::launch_uniform_smem<T>(L, rows.a, rows.m, rows.cp, load.p, store, stream)) return;
  launch_tiled<T>(L, g, rows, load, store, stream);
}

}  // namespace tridsim::tridiag::gpu

#include "solvers/tridiagonal/cuda/cluster_lines.cuh"    // (launch_cluster_lines)
#include "solvers/tridiagonal/cuda/segmented_lines.cuh"  // (launch_segmented)
#include "solvers/tridiagonal/cuda/rows_lines.cuh"       // (launch_rows_lines)
