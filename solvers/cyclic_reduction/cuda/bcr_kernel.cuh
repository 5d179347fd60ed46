#pragma once
// One level of the GPU block cyclic reduction (poisson_cuda.cu; namespace tridsim::cr::detail):
// every sub-problem is a symmetric Toeplitz tridiagonal system along x,
//   rho * tridiag(-1, delta, -1) x = v,   delta = 2 + eps,  eps = (excess + shift) / rho > 0,
// of length L, solved by a whole thread block: thread p owns the S consecutive rows p*S ...
// p*S + S - 1 in registers. With mu + 1/mu = delta (0 < mu < 1) and a_k = 1 - mu^(2k), the
// Thomas pivots of this matrix are known in closed form, e_i = mu a_{i+1} / a_{i+2}, and the
// Thomas solve becomes two first-order recurrences with the constant multiplier mu:
//   forward   w_i = mu a_{i+1} v_i + mu w_{i-1}           (w_{-1} = 0; y_i = w_i / a_{i+2}),
//   backward  s_i = w_i / (a_{i+1} a_{i+2}) + mu s_{i+1}  (s_L = 0),   rho x_i = a_{i+1} s_i.
// Each is a local pass per thread plus a block scan of the segment ends with multiplier mu^S.
// It is Thomas's arithmetic rescaled, so as stable as Thomas on these diagonally dominant
// systems (no cancellation, every multiplier below one); a_k follows a_{k+1} = (1 - mu^2) +
// mu^2 a_k (positive terms) from one exp per thread (1 - exp(2k log mu): relative error ~eps
// even for mu near one, where 1 - mu^(2k) by products would lose digits).
//
// A block takes `count` consecutive sub-problems of one interval of one plane (they share the
// interval's input and output rows), sums their weighted solutions per output row in shared
// memory, and adds the sums to the rows with coalesced atomics (neighbouring intervals share
// end rows). Shared memory: NOUT x S x (P + 1) accumulators, row i of thread p = i / S at
// [(i % S) * (P + 1) + p] (conflict-free both when threads write their rows and when the flush
// reads consecutive rows), and the scans' warp totals.
#include "core/types.hpp"

namespace tridsim::cr::detail {

// One sub-problem: the shift lambda_j of its interval, its right-hand side sum_k cin[k] row_k
// (rows of g when >= 0, slots of the copied inner rows when < 0 as -(slot+1)), and the weights
// of its solution in the output rows.
struct BcrTask {
  double shift;
  int nin, nout;
  long long in_row[5];
  double cin[5];
  long long out_row[3];
  double cout[3];
};

// Consecutive tasks of one interval, handled by one block (on every plane: blockIdx.y).
struct BcrChunk {
  int first, count;
};

constexpr unsigned kFullWarp = 0xffffffffu;

// The constants of one sub-problem's solve: mu, mu^2, 1 - mu^2, log(mu) and mu^S.
template <class T>
struct ToeplitzConstants {
  T mu, mu2, t2, log_mu, mu_s;
};
template <class T, int S>
__device__ ToeplitzConstants<T> toeplitz_constants(double excess, double shift, double rho) {
  const double eps = (excess + shift) / rho, root = sqrt(eps * (eps + 4));
  const double mu = 2 / (2 + eps + root), one_minus_mu = (eps + root) / (2 + eps + root);  // no cancellation
  return {T(mu), T(mu * mu), T(one_minus_mu * (1 + mu)), T(log1p(-one_minus_mu)), T(pow(mu, double(S)))};
}

// pw[b] = m^(2^b), b = 0..5  ->  m^e for 0 <= e <= 63.
template <class T>
__device__ __forceinline__ T power_from(const T* pw, int e) {
  T r = T(1);
#pragma unroll
  for (int b = 0; b < 6; ++b)
    if (e & (1 << b)) r *= pw[b];
  return r;
}

// Exclusive scan over the segments of a block: forward (from the left),
//   returns C_p = sum_{q < p} m^(p-1-q) E_q;
// backward (from the right), returns D_p = sum_{q > p} m^(q-p-1) E_q.
// pw[b] = m^(2^b); tot: 32 values of shared memory, one __syncthreads inside.
template <class T, bool Forward>
__device__ __forceinline__ T block_scan(T E, const T* pw, T* tot, int lane, int warp, int nwarps) {
  T I = E;  // inclusive within the warp, in the scan's direction
#pragma unroll
  for (int b = 0; b < 5; ++b) {
    const int h = 1 << b;
    const T t = Forward ? __shfl_up_sync(kFullWarp, I, h) : __shfl_down_sync(kFullWarp, I, h);
    if (Forward ? lane >= h : lane + h < 32) I += pw[b] * t;
  }
  if (lane == (Forward ? 31 : 0)) tot[warp] = I;
  __syncthreads();
  const T m32 = pw[5];
  T carry = 0;  // the warps before this one, in the scan's direction
  if (Forward) {
    for (int w = 0; w < warp; ++w) carry = carry * m32 + tot[w];
  } else {
    for (int w = nwarps - 1; w > warp; --w) carry = carry * m32 + tot[w];
  }
  const int dist = Forward ? lane + 1 : 32 - lane;  // segments to this warp's edge, inclusive
  const T Ig = I + power_from(pw, dist) * carry;
  const T ex = Forward ? __shfl_up_sync(kFullWarp, Ig, 1) : __shfl_down_sync(kFullWarp, Ig, 1);
  return lane == (Forward ? 0 : 31) ? carry : ex;
}

template <class T, int S, int NOUT>
__global__ void __launch_bounds__(512) bcr_level_kernel(const BcrTask* __restrict__ tasks,
                                                        const BcrChunk* __restrict__ chunks, T* __restrict__ g,
                                                        const T* __restrict__ inner, long long L,
                                                        long long plane_size, long long inner_plane, double rho,
                                                        const double* __restrict__ plane_excess) {
  extern __shared__ unsigned char smem_raw[];
  T* acc = reinterpret_cast<T*>(smem_raw);  // NOUT x S x (P + 1)
  const int P = blockDim.x, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nwarps = P >> 5;
  T* tot_f = acc + NOUT * S * (P + 1);
  T* tot_b = tot_f + 32;
  // Double-buffered constants: thread 0 makes the next task's while the block solves this one
  // (the scans' barriers publish them), so the transcendental functions run once per task.
  auto* consts = reinterpret_cast<ToeplitzConstants<T>*>(tot_b + 32);
  const long long plane = blockIdx.y;
  const BcrChunk chunk = chunks[blockIdx.x];
  T* gp = g + plane * plane_size;
  const T* ip = inner + plane * inner_plane;
  const long long start = (long long)tid * S;
  const double excess = plane_excess[plane];

#pragma unroll
  for (int o = 0; o < NOUT; ++o)
#pragma unroll
    for (int k = 0; k < S; ++k) acc[(o * S + k) * (P + 1) + tid] = T(0);
  if (tid == 0 && rho != 0) consts[0] = toeplitz_constants<T, S>(excess, tasks[chunk.first].shift, rho);
  __syncthreads();

  for (int c = 0; c < chunk.count; ++c) {
    const BcrTask& tk = tasks[chunk.first + c];
    T v[S];
    // 1. Right-hand side: sum_k cin[k] row_k over this thread's rows.
#pragma unroll
    for (int k = 0; k < S; ++k) v[k] = T(0);
    for (int q = 0; q < tk.nin; ++q) {
      const long long r = tk.in_row[q];
      const T* row = r >= 0 ? gp + r * L : ip + (-r - 1) * L;
      const T w = T(tk.cin[q]);
#pragma unroll
      for (int k = 0; k < S; ++k)
        if (start + k < L) v[k] += w * row[start + k];
    }
    if (rho == 0) {  // no coupling along x (1D problems): a diagonal solve
      const T inv = T(1 / (excess + tk.shift));
#pragma unroll
      for (int k = 0; k < S; ++k) v[k] *= inv;
    } else {
      // 2. The constants, a_{start+1} and the powers mu^(S 2^b) the scans need.
      const ToeplitzConstants<T> tc = consts[c & 1];
      if (tid == 0 && c + 1 < chunk.count)
        consts[(c + 1) & 1] = toeplitz_constants<T, S>(excess, tasks[chunk.first + c + 1].shift, rho);
      const T mu = tc.mu, mu2 = tc.mu2, t2 = tc.t2;
      const T a_first = T(1) - exp(T(2 * (start + 1)) * tc.log_mu);
      T pw[6];
      pw[0] = tc.mu_s;
#pragma unroll
      for (int b = 1; b < 6; ++b) pw[b] = pw[b - 1] * pw[b - 1];
      // 3. Forward recurrence: local pass, block scan of the segment ends, carry-in, and the
      //    backward recurrence's input w_i / (a_{i+1} a_{i+2}).
      T w = 0, a = a_first;
#pragma unroll
      for (int k = 0; k < S; ++k) {
        v[k] = w = mu * (a * v[k] + w);
        a = t2 + mu2 * a;
      }
      const T C = block_scan<T, true>(w, pw, tot_f, lane, warp, nwarps);
      // Past the first rows a_k rounds to one (mu^(2k) below the rounding): no division there.
      const bool unit = a_first == T(1);
      T m = mu;
      if (unit) {
#pragma unroll
        for (int k = 0; k < S; ++k) {
          v[k] += m * C;
          m *= mu;
        }
      } else {
        a = a_first;
#pragma unroll
        for (int k = 0; k < S; ++k) {
          const T next = t2 + mu2 * a;
          v[k] = (v[k] + m * C) / (a * next);
          m *= mu;
          a = next;
        }
      }
      // 4. Backward recurrence (s_L = 0: rows past the end stay zero), then x_i = a_{i+1} s_i / rho.
      T z = 0;
#pragma unroll
      for (int k = S - 1; k >= 0; --k) v[k] = z = start + k < L ? v[k] + mu * z : T(0);
      const T D = block_scan<T, false>(z, pw, tot_b, lane, warp, nwarps);
      m = mu;
#pragma unroll
      for (int k = S - 1; k >= 0; --k) {
        v[k] += m * D;
        m *= mu;
      }
      const T inv_rho = T(1 / rho);
      a = unit ? T(1) : a_first;
#pragma unroll
      for (int k = 0; k < S; ++k) {
        v[k] *= a * inv_rho;
        a = unit ? T(1) : t2 + mu2 * a;
      }
    }
    // 6. Weighted sums into this block's accumulators (each thread its own rows: no race).
#pragma unroll
    for (int o = 0; o < NOUT; ++o) {
      const T w = o < tk.nout ? T(tk.cout[o]) : T(0);
#pragma unroll
      for (int k = 0; k < S; ++k) acc[(o * S + k) * (P + 1) + tid] += w * v[k];
    }
  }
  __syncthreads();
  // 7. Flush: consecutive threads, consecutive rows.
  const BcrTask& t0 = tasks[chunk.first];
  for (int o = 0; o < t0.nout; ++o) {
    T* out = gp + t0.out_row[o] * L;
    for (long long i = tid; i < L; i += P) atomicAdd(out + i, acc[(o * S + int(i % S)) * (P + 1) + int(i / S)]);
  }
}

}  // namespace tridsim::cr::detail
