// Thomas with local transposition by register shuffles (Laszlo, Giles & Appleyard 2014, the
// "register blocking" variant of section 3): lines along x, one warp per 32 lines. For each chunk
// of 32 rows the warp loads row r0 + lane of each of its 32 lines (32 coalesced loads of 32
// consecutive elements), transposes the 32 x 32 block in registers so that lane l holds rows
// r0 .. r0 + 31 of line l, and runs the recurrence; d' (and c') go to thread-local memory (cached
// in L1) for the back substitution, whose chunks are transposed back the same way and stored.
// No shared memory.
//
// The transposition (lane L holds v[j] = element (line j, row L); wanted: v[i] = (line L, row i)):
//   1. rotate the registers left by L            u[k] = v[(k + L) % 32]
//   2. shuffle register k from lane (L - k) % 32  t[k] = element (line L, row (L - k) % 32)
//   3. reverse and rotate right by L              v[i] = t[(L - i) % 32]
// Rotations by a per-lane amount are five conditional fixed rotations (selects), so every
// register index is known at compile time and nothing leaves the registers.
#include "solvers/tridiagonal/cuda/warp_solvers.hpp"

#include <string>

#include "solvers/tridiagonal/cuda/kernel_support.cuh"

namespace tridsim::tridiag::detail {

namespace {

// v <- v rotated left by `by` (0 .. 31, per lane).
template <class T>
__device__ __forceinline__ void rotate_left(T (&v)[32], int by) {
#pragma unroll
  for (int b = 0; b < 5; ++b) {
    const bool take = (by >> b) & 1;
    T t[32];
#pragma unroll
    for (int k = 0; k < 32; ++k) t[k] = take ? v[(k + (1 << b)) & 31] : v[k];
#pragma unroll
    for (int k = 0; k < 32; ++k) v[k] = t[k];
  }
}

template <class T>
__device__ __forceinline__ void transpose32(T (&v)[32], int lane) {
  rotate_left(v, lane);
#pragma unroll
  for (int k = 0; k < 32; ++k) v[k] = __shfl_sync(0xffffffffu, v[k], (lane - k) & 31);
  T t[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) t[i] = v[(32 - i) & 31];  // t[i] = v[-i]: then rotate right by lane
#pragma unroll
  for (int i = 0; i < 32; ++i) v[i] = t[i];
  rotate_left(v, (32 - lane) & 31);
}

// Load rows r0 .. r0 + 31 of the warp's lines of array p into v (lane = line after transposing).
template <class T>
__device__ __forceinline__ void load_chunk(T (&v)[32], const T* p, index_t base, int nl, int r0, int n, int lane) {
#pragma unroll
  for (int j = 0; j < 32; ++j) {
    const index_t bj = __shfl_sync(0xffffffffu, base, j);
    v[j] = (j < nl && r0 + lane < n) ? p[bj + r0 + lane] : T(0);
  }
  transpose32(v, lane);
}

template <class T>
__device__ __forceinline__ void store_chunk(T (&v)[32], T* p, index_t base, int nl, int r0, int n, int lane) {
  transpose32(v, lane);
#pragma unroll
  for (int j = 0; j < 32; ++j) {
    const index_t bj = __shfl_sync(0xffffffffu, base, j);
    if (j < nl && r0 + lane < n) p[bj + r0 + lane] = v[j];
  }
}

template <class T, bool Uniform>
__global__ void __launch_bounds__(32) thomas_shuffle_kernel(Geometry g, RowSource<T> src, const T* __restrict__ M,
                                                            const T* __restrict__ CP, T* __restrict__ d) {
  T dp[kShuffleMax];                    // d', then nothing: thread-local (L1-cached) memory
  T cpl[Uniform ? 1 : kShuffleMax];     // c' (arrays only)
  const int lane = int(threadIdx.x);
  const index_t q0 = index_t(blockIdx.x) * 32;
  const int nl = int(g.count - q0 < 32 ? g.count - q0 : 32);
  const bool active = lane < nl;
  const index_t base = active ? line_base(g, q0 + lane) : 0;
  const int n = int(g.n), chunks = (n + 31) / 32;
  T v[32];
  T prev = T(0), cprev = T(0);
  for (int c = 0; c < chunks; ++c) {
    const int r0 = 32 * c;
    load_chunk(v, d, base, nl, r0, n, lane);
    if constexpr (Uniform) {
#pragma unroll
      for (int i = 0; i < 32; ++i)
        if (r0 + i < n) {
          const T m = __ldg(M + r0 + i);
          prev = fma(-(__ldg(src.a + r0 + i) * m), prev, v[i] * m);
          dp[r0 + i] = prev;
        }
    } else {
      T a[32], b[32], cc[32];
      load_chunk(a, src.a, base, nl, r0, n, lane);
      load_chunk(b, src.b, base, nl, r0, n, lane);
      load_chunk(cc, src.c, base, nl, r0, n, lane);
#pragma unroll
      for (int i = 0; i < 32; ++i)
        if (r0 + i < n) {
          const int r = r0 + i;
          const T ar = r > 0 ? a[i] : T(0);
          const T inv = T(1) / (b[i] - ar * cprev);
          cprev = r + 1 < n ? cc[i] * inv : T(0);
          cpl[r] = cprev;
          prev = (v[i] - ar * prev) * inv;
          dp[r] = prev;
        }
    }
  }
  T next = T(0);
  for (int c = chunks - 1; c >= 0; --c) {
    const int r0 = 32 * c;
#pragma unroll
    for (int i = 31; i >= 0; --i)
      if (r0 + i < n) {
        const int r = r0 + i;
        const T cr = Uniform ? __ldg(CP + r) : cpl[Uniform ? 0 : r];
        next = dp[r] - cr * next;
        v[i] = next;
      } else {
        v[i] = T(0);
      }
    store_chunk(v, d, base, nl, r0, n, lane);
  }
}

}  // namespace

template <class T>
void launch_thomas_shuffle(const LineSet& L, const RowSource<T>& rows, const T* M, const T* CP, T* d,
                           cudaStream_t stream) {
  const Geometry g = geometry(L);
  if (L.axis != 0 || g.n > kShuffleMax)
    throw Error("tridiagonal solver (thomas-shuffle): lines along x of at most " + std::to_string(kShuffleMax) +
                " points (got axis " + std::to_string(L.axis) + ", " + std::to_string(g.n) + " points)");
  const unsigned blocks = grid_size((g.count + 31) / 32);
  if (rows.uniform)
    thomas_shuffle_kernel<T, true><<<blocks, 32, 0, stream>>>(g, rows, M, CP, d);
  else
    thomas_shuffle_kernel<T, false><<<blocks, 32, 0, stream>>>(g, rows, M, CP, d);
  TRIDIAG_LAUNCH("thomas_shuffle_kernel");
}

template void launch_thomas_shuffle<float>(const LineSet&, const RowSource<float>&, const float*, const float*, float*,
                                           cudaStream_t);
template void launch_thomas_shuffle<double>(const LineSet&, const RowSource<double>&, const double*, const double*,
                                            double*, cudaStream_t);

}  // namespace tridsim::tridiag::detail
