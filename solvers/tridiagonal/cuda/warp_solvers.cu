// Thomas–PCR hybrid and PCR line solvers (see warp_solvers.hpp).
//
// Thomas–PCR, per lane (segment of rows k = 0 .. L-1, L >= 3, unknowns x_k):
//   forward   rows k >= 1 are brought to the form  a'_k x_0 + x_k + c'_k x_{k+1} = d'_k;
//   backward  rows 1 .. L-2 to the form            x_k = d''_k - a''_k x_0 - c''_k x_{L-1};
//   reduced   row 0 (with x_1 eliminated) couples (last of the previous segment, x_0, x_{L-1}),
//             row L-1 couples (x_0, x_{L-1}, first of the next segment): two rows per lane of a
//             tridiagonal system of 64 unknowns ordered (first, last) by lane;
//   PCR       on it, 6 steps, neighbours fetched with __shfl_up/down_sync;
//   back      x_k from x_0 and x_{L-1}.
// Segments have n / P or n / P + 1 rows with P = min(32, n / 3) segments, so every segment has at
// least 3 rows; lanes >= P carry identity rows. M (a template parameter) bounds L, so the
// segment arrays are unrolled into registers.
#include "solvers/tridiagonal/cuda/warp_solvers.hpp"

#include <algorithm>
#include <string>

#include "solvers/tridiagonal/cuda/kernel_support.cuh"
#include "solvers/tridiagonal/cuda/thomas_pcr.cuh"

namespace tridsim::tridiag::detail {

namespace {

constexpr int kWarpsPerBlock = 4;  // lines per block of the hybrid

// Copy a line (n elements, stride s from src) into padded shared memory, cooperatively.
template <class T>
__device__ __forceinline__ void stage(T* dst, const T* __restrict__ src, index_t base, index_t s, int n, int lane,
                                      int width) {
  for (int r = lane; r < n; r += width) dst[pad(r)] = src[base + index_t(r) * s];
}

// Thomas–PCR for coefficient arrays (a factored uniform matrix runs uniform_scan_kernel).
template <class T, int M>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    thomas_pcr_kernel(Geometry g, RowSource<T> src, T* __restrict__ d) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
  const index_t q = index_t(blockIdx.x) * kWarpsPerBlock + warp;
  if (q >= g.count) return;  // (whole warps)
  const int n = int(g.n), np = pad(n) + 1;
  const index_t base = line_base(g, q), s = g.s;
  T* const sd = reinterpret_cast<T*>(smem_raw) + warp * 4 * np;  // d, a, b, c of the warp's line
  T* const sa = sd + np;
  T* const sb = sa + np;
  T* const sc = sb + np;
  stage(sd, d, base, s, n, lane, 32);
  stage(sa, src.a, base, s, n, lane, 32);
  stage(sb, src.b, base, s, n, lane, 32);
  stage(sc, src.c, base, s, n, lane, 32);
  __syncwarp();
  thomas_pcr_warp<T, M>(lane, n, sd, [&](int r, T& a, T& b, T& c) {
    a = sa[pad(r)];
    b = sb[pad(r)];
    c = sc[pad(r)];
  });
  __syncwarp();
  for (int r = lane; r < n; r += 32) d[base + index_t(r) * s] = sd[pad(r)];
}

// Thomas–PCR for a factored uniform matrix: segments and two warp scans (thomas_pcr.cuh).
template <class T, int M>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    uniform_scan_kernel(Geometry g, RowSource<T> src, T* __restrict__ d) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
  const index_t q = index_t(blockIdx.x) * kWarpsPerBlock + warp;
  if (q >= g.count) return;  // (whole warps)
  const int n = int(g.n);
  const index_t base = line_base(g, q), s = g.s;
  T* const sd = reinterpret_cast<T*>(smem_raw) + warp * (pad(n) + 1);
  stage(sd, d, base, s, n, lane, 32);
  __syncwarp();
  uniform_scan_warp<T, M>(lane, n, sd, src.scan);
  __syncwarp();
  for (int r = lane; r < n; r += 32) d[base + index_t(r) * s] = sd[pad(r)];
}

// PCR: one block per line, one thread per row.
template <class T>
__global__ void pcr_kernel(Geometry g, RowSource<T> src, T* __restrict__ d) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int n = int(g.n), i = int(threadIdx.x);
  const index_t q = blockIdx.x;
  const index_t base = line_base(g, q), s = g.s;
  Row<T>* const rows = reinterpret_cast<Row<T>*>(smem_raw);
  Row<T> me = identity_row<T>();
  if (i < n) {
    const index_t o = base + index_t(i) * s;
    me.d = d[o];
    if (src.uniform) {
      me.a = __ldg(src.a + i); me.b = __ldg(src.b + i); me.c = __ldg(src.c + i);
    } else {
      me.a = src.a[o]; me.b = src.b[o]; me.c = src.c[o];
    }
    if (i == 0) me.a = T(0);
    if (i == n - 1) me.c = T(0);
  }
  for (int stride = 1; stride < n; stride *= 2) {
    if (i < n) rows[i] = me;
    __syncthreads();
    if (i < n) {
      const Row<T> lo = i >= stride ? rows[i - stride] : identity_row<T>();
      const Row<T> hi = i + stride < n ? rows[i + stride] : identity_row<T>();
      me = pcr_step(me, lo, hi);
    }
    __syncthreads();
  }
  if (i < n) d[base + index_t(i) * s] = me.d / me.b;
}

template <class T, int M>
void launch_hybrid(const Geometry& g, const RowSource<T>& rows, T* d, cudaStream_t stream) {
  const int dev = current_device();
  const Limits lim = device_limits(dev);
  const std::size_t np = std::size_t(pad(int(g.n)) + 1);
  const std::size_t smem = kWarpsPerBlock * (rows.uniform ? 1 : 4) * np * sizeof(T);
  if (smem > lim.optin) throw Error("tridiagonal solver (thomas-pcr): lines too long for shared memory");
  const unsigned blocks = grid_size((g.count + kWarpsPerBlock - 1) / kWarpsPerBlock);
  if (rows.uniform) {
    prepare_kernel(uniform_scan_kernel<T, M>, dev, lim);
    uniform_scan_kernel<T, M><<<blocks, kWarpsPerBlock * 32, smem, stream>>>(g, rows, d);
    TRIDIAG_LAUNCH("uniform_scan_kernel");
  } else {
    prepare_kernel(thomas_pcr_kernel<T, M>, dev, lim);
    thomas_pcr_kernel<T, M><<<blocks, kWarpsPerBlock * 32, smem, stream>>>(g, rows, d);
    TRIDIAG_LAUNCH("thomas_pcr_kernel");
  }
}

}  // namespace

template <class T>
void launch_thomas_pcr(const LineSet& L, const RowSource<T>& rows, T* d, cudaStream_t stream) {
  const Geometry g = geometry(L);
  if (g.n > kThomasPcrMax)
    throw Error("tridiagonal solver (thomas-pcr): lines of " + std::to_string(g.n) + " points; it handles at most " +
                std::to_string(kThomasPcrMax) + " (use thomas for longer lines)");
  const index_t longest = rows.uniform ? uniform_scan_segment_bound(g.n) : thomas_pcr_segment_bound(g.n);
  if (longest <= 8)
    launch_hybrid<T, 8>(g, rows, d, stream);
  else
    launch_hybrid<T, 16>(g, rows, d, stream);
}

template <class T>
void launch_pcr(const LineSet& L, const RowSource<T>& rows, T* d, cudaStream_t stream) {
  const Geometry g = geometry(L);
  if (g.n > kPcrMax)
    throw Error("tridiagonal solver (pcr): lines of " + std::to_string(g.n) + " points; it handles at most " +
                std::to_string(kPcrMax) + " (use thomas for longer lines)");
  const int threads = int((g.n + 31) / 32 * 32);
  const std::size_t smem = std::size_t(g.n) * sizeof(Row<T>);
  const int dev = current_device();
  prepare_kernel(pcr_kernel<T>, dev, device_limits(dev));
  pcr_kernel<T><<<grid_size(g.count), threads, smem, stream>>>(g, rows, d);
  TRIDIAG_LAUNCH("pcr_kernel");
}

template void launch_thomas_pcr<float>(const LineSet&, const RowSource<float>&, float*, cudaStream_t);
template void launch_thomas_pcr<double>(const LineSet&, const RowSource<double>&, double*, cudaStream_t);
template void launch_pcr<float>(const LineSet&, const RowSource<float>&, float*, cudaStream_t);
template void launch_pcr<double>(const LineSet&, const RowSource<double>&, double*, cudaStream_t);

}  // namespace tridsim::tridiag::detail
