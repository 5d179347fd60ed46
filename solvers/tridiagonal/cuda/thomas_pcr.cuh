#pragma once
// The Thomas–PCR hybrid solve of one line by one warp (namespace tridsim::tridiag::detail), as a
// device function, so that fused kernels (an ADI sweep that forms its right-hand side while
// loading) can call it as well as the batched solver (warp_solvers.cu, where the method is
// described).
//
// thomas_pcr_warp<T, M>(lane, n, sd, at, row): the 32 lanes of a warp solve the line whose
// right-hand side sits in shared memory at sd[at(r)], r = 0 .. n-1, overwriting it with the
// solution; row(r, a, b, c) gives row r's coefficients (a for r = 0 and c for r = n-1 are
// ignored). `at` should spread rows a segment apart over banks (pad does for one line). M must be at least the longest segment, thomas_pcr_segment_bound(n). Call with the
// whole warp converged, after a __syncwarp() that makes sd visible; __syncwarp() before reading
// the solution.
#include "core/types.hpp"
#include "solvers/tridiagonal/cuda/kernel_support.cuh"

namespace tridsim::tridiag::detail {

// Shared-memory position of row r: one pad element per 32 rows, so lanes reading rows a segment
// length apart hit different banks.
__host__ __device__ __forceinline__ int pad(int r) { return r + (r >> 5); }

template <class T>
struct Row {
  T a, b, c, d;
};

template <class T>
__device__ __forceinline__ Row<T> identity_row() {
  return {T(0), T(1), T(0), T(0)};
}

// One PCR step of row `me` with its neighbours `lo` (stride rows above) and `hi` (below).
template <class T>
__device__ __forceinline__ Row<T> pcr_step(const Row<T>& me, const Row<T>& lo, const Row<T>& hi) {
  const T k1 = me.a * reciprocal(lo.b), k2 = me.c * reciprocal(hi.b);
  return {-lo.a * k1, me.b - lo.c * k1 - hi.a * k2, -hi.c * k2, me.d - lo.d * k1 - hi.d * k2};
}

template <class T>
__device__ __forceinline__ Row<T> shfl_up(const Row<T>& r, int h, int lane) {
  Row<T> o{__shfl_up_sync(0xffffffffu, r.a, h), __shfl_up_sync(0xffffffffu, r.b, h),
           __shfl_up_sync(0xffffffffu, r.c, h), __shfl_up_sync(0xffffffffu, r.d, h)};
  return lane >= h ? o : identity_row<T>();
}
template <class T>
__device__ __forceinline__ Row<T> shfl_down(const Row<T>& r, int h, int lane) {
  Row<T> o{__shfl_down_sync(0xffffffffu, r.a, h), __shfl_down_sync(0xffffffffu, r.b, h),
           __shfl_down_sync(0xffffffffu, r.c, h), __shfl_down_sync(0xffffffffu, r.d, h)};
  return lane + h < 32 ? o : identity_row<T>();
}

// Segments of a line of n >= 3 points: as many as lanes, but each of at least 3 rows.
__host__ __device__ constexpr int thomas_pcr_segments(index_t n) { return int(n / 3 < 32 ? n / 3 : 32); }
// The longest segment (rows per segment differ by at most one).
__host__ __device__ constexpr index_t thomas_pcr_segment_bound(index_t n) {
  return n < 3 ? n : (n + thomas_pcr_segments(n) - 1) / thomas_pcr_segments(n);
}

// The hybrid's work on one segment of L >= 3 rows (row_at(k): row k of the segment with its
// right-hand side, ends of the line already cut): eliminating within the segment leaves every
// inner row as x_k + ap[k] x_first + cp[k] x_last = dp[k], and the segment's first and last
// rows as rows of the reduced system, which couples the ends of neighbouring segments only:
// first to the previous segment's last, last to the next segment's first.
template <class T, int M, class RowAt>
__device__ __forceinline__ void segment_eliminate(int L, const RowAt& row_at, T (&ap)[M], T (&cp)[M], T (&dp)[M],
                                                  Row<T>& first, Row<T>& last) {
  Row<T> r0 = identity_row<T>();
#pragma unroll
  for (int k = 0; k < M; ++k) {
    if (k < L) {
      const Row<T> r = row_at(k);
      if (k == 0) {
        r0 = r;
      } else if (k == 1) {
        const T inv = reciprocal(r.b);
        ap[1] = r.a * inv; cp[1] = r.c * inv; dp[1] = r.d * inv;
      } else {
        const T inv = reciprocal(r.b - r.a * cp[k - 1]);
        ap[k] = -r.a * ap[k - 1] * inv;
        cp[k] = r.c * inv;
        dp[k] = (r.d - r.a * dp[k - 1]) * inv;
      }
      if (k == L - 1 && k >= 2) last = {ap[k], T(1), cp[k], dp[k]};
    }
  }
#pragma unroll
  for (int k = M - 2; k >= 1; --k) {
    if (k <= L - 3) {
      const T ck = cp[k];
      dp[k] -= ck * dp[k + 1];
      ap[k] -= ck * ap[k + 1];
      cp[k] = -ck * cp[k + 1];
    }
  }
  if (L >= 3) first = {r0.a, r0.b - r0.c * ap[1], -r0.c * cp[1], r0.d - r0.c * dp[1]};
}

// Row k of the segment once its ends xf, xl are known.
template <class T, int M>
__device__ __forceinline__ T segment_solution(int k, int L, const T (&ap)[M], const T (&cp)[M], const T (&dp)[M],
                                              T xf, T xl) {
  return k == 0 ? xf : k == L - 1 ? xl : dp[k] - ap[k] * xf - cp[k] * xl;
}

template <class T, int M, class At, class RowFn>
__device__ __forceinline__ void thomas_pcr_warp(int lane, int n, T* sd, const At& at, const RowFn& row) {
  if (n <= 2) {  // too short to split: solve directly
    if (lane == 0) {
      T a0, b0, c0, a1, b1, c1;
      row(0, a0, b0, c0);
      if (n == 1) {
        sd[at(0)] = sd[at(0)] / b0;
      } else {
        row(1, a1, b1, c1);
        const T d0 = sd[at(0)], d1 = sd[at(1)], det = b0 * b1 - c0 * a1;
        sd[at(0)] = (d0 * b1 - c0 * d1) / det;
        sd[at(1)] = (b0 * d1 - a1 * d0) / det;
      }
    }
  } else {
    const int P = thomas_pcr_segments(n), len = n / P, rem = n % P;
    const bool active = lane < P;
    const int L = active ? len + (lane < rem ? 1 : 0) : 0;
    const int start = lane * len + (lane < rem ? lane : rem);
    T ap[M], cp[M], dp[M];
    Row<T> first = identity_row<T>(), last = identity_row<T>();
    segment_eliminate<T, M>(L, [&](int k) {
      Row<T> r;
      row(start + k, r.a, r.b, r.c);
      if (start + k == 0) r.a = T(0);
      if (start + k == n - 1) r.c = T(0);
      r.d = sd[at(start + k)];
      return r;
    }, ap, cp, dp, first, last);

    // PCR on the 64 rows (first, last) x lane: row stride 1, then 2, 4, ..., 32 (lane offsets).
    {
      const Row<T> prev_last = shfl_up(last, 1, lane), next_first = shfl_down(first, 1, lane);
      const Row<T> f = pcr_step(first, prev_last, last), l = pcr_step(last, first, next_first);
      first = f;
      last = l;
    }
#pragma unroll
    for (int h = 1; h < 32; h *= 2) {
      const Row<T> f = pcr_step(first, shfl_up(first, h, lane), shfl_down(first, h, lane));
      const Row<T> l = pcr_step(last, shfl_up(last, h, lane), shfl_down(last, h, lane));
      first = f;
      last = l;
    }
    const T xf = first.d / first.b, xl = last.d / last.b;
#pragma unroll
    for (int k = 0; k < M; ++k)
      if (k < L) sd[at(start + k)] = segment_solution<T, M>(k, L, ap, cp, dp, xf, xl);
  }
}

// ---- the same hybrid for a factored uniform matrix: two warp scans ---------------------------
//
// With the LU factors of a matrix shared by every line (a, inverse pivots m, cp: see
// UniformMatrix), a solve is two first-order linear recurrences,
//   forward   y_r = m_r d_r + alpha_r y_{r-1},   alpha_r = -a_r m_r,
//   backward  x_r = y_r + beta_r x_{r+1},        beta_r = -cp_r,
// and the reduced system of the segments is bidiagonal: each lane runs its segment with a zero
// carry, the carries follow from an inclusive scan of affine maps across the warp (5 shuffle
// steps), and each row is corrected by the product of the recurrence coefficients from its
// segment's start (pf) or end (pb) — products that depend on the matrix only and are computed
// once (uniform_scan_products). No divisions and no coefficient state per line.
namespace scan_detail {
// Segments: min(32, n), of n / P or n / P + 1 rows.
__host__ __device__ constexpr int segments(index_t n) { return int(n < 32 ? n : 32); }
__host__ __device__ constexpr index_t segment_start(index_t n, int lane) {
  const index_t P = segments(n), len = n / P, rem = n % P;
  return lane * len + (lane < rem ? lane : rem);
}
}  // namespace scan_detail

// The longest segment of the scan form (M must be at least this).
__host__ __device__ constexpr index_t uniform_scan_segment_bound(index_t n) {
  return n < 1 ? 0 : (n + scan_detail::segments(n) - 1) / scan_detail::segments(n);
}

// The per-row data of the scan form in a lane-interleaved table, so that the 32 lanes reading
// row k of their segments read 32 consecutive values: five planes of uniform_scan_plane(n)
// values, element (k, lane) of plane p at p * plane + k * 32 + lane:
//   0: alpha_r   1: m_r   2: beta_r
//   3: pf_r = alpha_s ... alpha_r  (s: first row of r's segment; the weight of the carry y_{s-1})
//   4: pb_r = beta_r ... beta_e    (e: last row of the segment; the weight of the carry x_{e+1})
__host__ __device__ constexpr index_t uniform_scan_plane(index_t n) { return uniform_scan_segment_bound(n) * 32; }

template <class T>
void uniform_scan_table(index_t n, const T* a, const T* m, const T* cp, T* table) {
  if (n <= 0) return;
  const index_t plane = uniform_scan_plane(n);
  for (index_t i = 0; i < 5 * plane; ++i) table[i] = T(0);
  const int P = scan_detail::segments(n);
  for (int l = 0; l < P; ++l) {
    const index_t s = scan_detail::segment_start(n, l), e = scan_detail::segment_start(n, l + 1) - 1;
    auto at = [&](int p, index_t r) -> T& { return table[p * plane + (r - s) * 32 + l]; };
    double pf = 1, pb = 1;
    for (index_t r = s; r <= e; ++r) {
      const double alpha = r > 0 ? -double(a[r]) * double(m[r]) : 0.0;
      pf *= alpha;
      at(0, r) = T(alpha);
      at(1, r) = m[r];
      at(2, r) = r + 1 < n ? -cp[r] : T(0);
      at(3, r) = T(pf);
    }
    for (index_t r = e; r >= s; --r) {
      pb *= r + 1 < n ? -double(cp[r]) : 0.0;
      at(4, r) = T(pb);
    }
  }
}

// Solve the line staged at sd[pad(r)] in place (same contract as thomas_pcr_warp); `table` as
// written by uniform_scan_table for this n.
template <class T, int M>
__device__ __forceinline__ void uniform_scan_warp(int lane, int n, T* sd, const T* __restrict__ table) {
  const int P = scan_detail::segments(n);
  const int start = int(scan_detail::segment_start(n, lane));
  const int L = lane < P ? int(scan_detail::segment_start(n, lane + 1)) - start : 0;
  const index_t plane = uniform_scan_plane(n);
  const T* const t = table + lane;
  T v[M];
  // Forward: local recurrence with a zero carry, then the carry by an inclusive scan of the
  // maps Y -> A Y + B (A: the segment's product of alpha, B: its local last value).
  T y = T(0), A = T(1);
#pragma unroll
  for (int k = 0; k < M; ++k)
    if (k < L) {
      const T* tk = t + k * 32;
      y = fma(__ldg(tk), y, sd[pad(start + k)] * __ldg(tk + plane));
      v[k] = y;
      A = __ldg(tk + 3 * plane);
    }
  T B = L > 0 ? y : T(0);
#pragma unroll
  for (int h = 1; h < 32; h *= 2) {
    const T Ap = __shfl_up_sync(0xffffffffu, A, h), Bp = __shfl_up_sync(0xffffffffu, B, h);
    if (lane >= h) {
      B = fma(A, Bp, B);
      A *= Ap;
    }
  }
  T carry = __shfl_up_sync(0xffffffffu, B, 1);
  if (lane == 0) carry = T(0);
  // Backward, from the segment's end: x_r = y_r + beta_r x_{r+1}.
  T x = T(0);
  A = T(1);
#pragma unroll
  for (int k = M - 1; k >= 0; --k)
    if (k < L) {
      const T* tk = t + k * 32;
      v[k] = fma(__ldg(tk + 3 * plane), carry, v[k]);  // the true y_r
      x = fma(__ldg(tk + 2 * plane), x, v[k]);
      v[k] = x;
      A = __ldg(tk + 4 * plane);
    }
  B = L > 0 ? x : T(0);
#pragma unroll
  for (int h = 1; h < 32; h *= 2) {
    const T An = __shfl_down_sync(0xffffffffu, A, h), Bn = __shfl_down_sync(0xffffffffu, B, h);
    if (lane + h < 32) {
      B = fma(A, Bn, B);
      A *= An;
    }
  }
  carry = __shfl_down_sync(0xffffffffu, B, 1);
  if (lane == 31) carry = T(0);
#pragma unroll
  for (int k = 0; k < M; ++k)
    if (k < L) sd[pad(start + k)] = fma(__ldg(t + k * 32 + 4 * plane), carry, v[k]);
}

// ---- the scan form on strided (y, z) lines: segments across warps ----------------------------
//
// A block takes kScanYzLines lines (thread = line: for y/z lines consecutive lines are x-adjacent,
// so a row of them is one contiguous run) and cuts them into W = ceil(n / R) segments of R rows,
// one per group of kScanYzLines threads. Each thread holds its R right-hand sides in registers (all
// loads in flight at once), computes its segment's forward map Y -> A Y + B (A the product of alpha
// over the segment: accumulated on the fly, no table), exchanges the maps through shared memory,
// reruns the segment with its true carry, and does the same backwards (line_solve.cuh's
// scan_strided_lines). Lines of at most kScanYzMax points.
constexpr index_t kScanYzMax = 512;
constexpr int kScanYzLines = 64;  // lines per block: rows of 512 (double) or 256 (float) bytes

template <class T>
struct SegmentMap {
  T a, b;
};

// R rows per segment for lines of n points (at most 16 segments), 0 beyond kScanYzMax.
__host__ __device__ constexpr int scan_yz_rows(index_t n) {
  return n <= 128 ? 8 : n <= 256 ? 16 : n <= 512 ? 32 : 0;
}

}  // namespace tridsim::tridiag::detail
