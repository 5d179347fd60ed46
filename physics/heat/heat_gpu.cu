// CUDA implementation of the heat module's ADI steps (see heat.cpp for the schemes). Same
// discretization, boundary treatment and fusion as the CPU path:
//  - lines along x, solver thomas: a block stages a tile of lines in shared memory (coalesced
//    loads and stores, one thread per line for the recurrence: local transposition);
//  - lines along x, solver thomas-pcr: one warp per line, the Thomas–PCR hybrid
//    (solvers/tridiagonal/cuda/thomas_pcr.cuh) on the line staged in shared memory;
//  - lines along y or z: a block stages up to 32 x-adjacent lines in shared memory, loading
//    and storing row by row (coalesced), one thread per line for the recurrence.
// The explicit right-hand side is formed while loading the x-sweep and the update applied while
// storing the last sweep, as on the CPU. Lines along y/z too long for a shared-memory tile fall
// back to one thread per line with d' in a device scratch array, as does solver thomas-naive.
#include "physics/heat/heat_gpu.hpp"

#include <cuda_runtime.h>
#include <thrust/device_ptr.h>
#include <thrust/extrema.h>
#include <thrust/reduce.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda_support.cuh"
#include "core/errors.hpp"
#include "solvers/tridiagonal/cuda/thomas_pcr.cuh"
#include "solvers/tridiagonal/cuda/thomas_smem.cuh"
#include "solvers/tridiagonal/line_set.hpp"
#include "solvers/tridiagonal/cuda/warp_solvers.hpp"

namespace tridsim {

namespace {

using cuda::DeviceArray;

// Everything a kernel needs to know about the grid, coefficients and boundary data.
template <class T>
struct View {
  int dim;
  index_t n[3], sy, sz;  // sizes; strides of y and z (x-fastest, dense)
  T ih2[3], ih[3];       // 1/h^2, 1/h
  T kappa0;
  const T* kappa;  // null: constant kappa0
  const T* f;      // null: no source
  int dir[3][2];   // Dirichlet face?
  const T* flux[3][2];
  const T* stage[3][2];
  const T* a[3];  // factored uniform matrices (constant kappa)
  const T* m[3];
  const T* cp[3];
  const T* scan;   // the x matrix's table for thomas-pcr's warp-scan form (thomas_pcr.cuh)
  T w[3];   // dt/2 / h^2 of the current step
  T ck[3];  // dt / h^2 * kappa0 of the current step

  __device__ T kap(index_t o) const { return kappa ? kappa[o] : kappa0; }
  __device__ index_t face_index(int axis, index_t i, index_t j, index_t k) const {
    return axis == 0 ? j + n[1] * k : axis == 1 ? i + n[0] * k : i + n[0] * j;
  }
  // Is the line through (j, k) on a Dirichlet face of y or z other than `skip`?
  __device__ bool on_dirichlet_line(index_t j, index_t k, int skip) const {
    if (dim > 1 && skip != 1 && ((j == 0 && dir[1][0]) || (j == n[1] - 1 && dir[1][1]))) return true;
    if (dim > 2 && skip != 2 && ((k == 0 && dir[2][0]) || (k == n[2] - 1 && dir[2][1]))) return true;
    return false;
  }
  __device__ index_t stride(int axis) const { return axis == 0 ? 1 : axis == 1 ? sy : sz; }
  // (A_axis src) at node o (position pos along axis); 0 on a Dirichlet face of that axis.
  __device__ T op(int axis, const T* src, index_t o, index_t pos) const {
    const index_t s = stride(axis), nn = n[axis];
    index_t sm = -s, sp = s;
    if (pos == 0) {
      if (dir[axis][0]) return T(0);
      sm = s;
    }
    if (pos == nn - 1) {
      if (dir[axis][1]) return T(0);
      sp = -s;
    }
    T val;
    if (kappa) {
      const T kp = T(0.5) * (kappa[o] + kappa[o + sp]), km = T(0.5) * (kappa[o] + kappa[o + sm]);
      val = kp * (src[o + sp] - src[o]) - km * (src[o] - src[o + sm]);
    } else {
      val = kappa0 * (src[o + sm] - T(2) * src[o] + src[o + sp]);
    }
    return val * ih2[axis];
  }
  // 2 kappa g / h at a Neumann-face node of `axis`.
  __device__ T flux_term(int axis, index_t o, index_t i, index_t j, index_t k) const {
    const index_t pos = axis == 0 ? i : axis == 1 ? j : k;
    const int side = pos == 0 ? 0 : pos == n[axis] - 1 ? 1 : -1;
    if (side < 0 || dir[axis][side]) return T(0);
    return T(2) * kap(o) * flux[axis][side][face_index(axis, i, j, k)] * ih[axis];
  }
  __device__ T all_fluxes(index_t o, index_t i, index_t j, index_t k) const {
    T sum = f ? f[o] : T(0);
    for (int a = 0; a < dim; ++a) sum += flux_term(a, o, i, j, k);
    return sum;
  }
  // Row r of (I - w A) along `axis` for the line through node o.
  __device__ void row(int axis, index_t o, index_t r, T& A, T& B, T& C) const {
    const index_t s = stride(axis), nn = n[axis];
    const T kl = r > 0 ? (kappa ? T(0.5) * (kappa[o] + kappa[o - s]) : kappa0) : T(0);
    const T kr = r < nn - 1 ? (kappa ? T(0.5) * (kappa[o] + kappa[o + s]) : kappa0) : T(0);
    const T ww = w[axis];
    if (r == 0) {
      A = 0;
      if (dir[axis][0]) { B = 1; C = 0; } else { B = 1 + 2 * ww * kr; C = -2 * ww * kr; }
    } else if (r == nn - 1) {
      C = 0;
      if (dir[axis][1]) { A = 0; B = 1; } else { A = -2 * ww * kl; B = 1 + 2 * ww * kl; }
    } else {
      A = -ww * kl; C = -ww * kr; B = 1 + ww * (kl + kr);
    }
  }
};

// ---- right-hand sides (loads) and updates (stores) ------------------------------------------

template <class T>
struct DouglasRhs {  // dt (A u + b) with Dirichlet stage values on x faces
  const T* u;
  T dt;
  __device__ T operator()(const View<T>& v, index_t o, index_t i, index_t j, index_t k) const {
    const bool interior = i > 0 && i < v.n[0] - 1 && (v.dim < 2 || (j > 0 && j < v.n[1] - 1)) &&
                          (v.dim < 3 || (k > 0 && k < v.n[2] - 1));
    if (interior && !v.kappa) {  // the common case, without the boundary branches; the
      // terms are summed in the CPU's order so both backends round alike
      T out = v.f ? dt * v.f[o] : T(0);
      out += v.ck[0] * (u[o - 1] - T(2) * u[o] + u[o + 1]);
      if (v.dim > 1) out += v.ck[1] * (u[o - v.sy] - T(2) * u[o] + u[o + v.sy]);
      if (v.dim > 2) out += v.ck[2] * (u[o - v.sz] - T(2) * u[o] + u[o + v.sz]);
      return out;
    }
    if (v.on_dirichlet_line(j, k, 0)) return T(0);
    for (int side = 0; side < 2; ++side)
      if (v.dir[0][side] && i == (side ? v.n[0] - 1 : 0)) return v.stage[0][side][j + v.n[1] * k];
    T sum = v.all_fluxes(o, i, j, k);
    sum += v.op(0, u, o, i);
    if (v.dim > 1) sum += v.op(1, u, o, j);
    if (v.dim > 2) sum += v.op(2, u, o, k);
    return dt * sum;
  }
};
template <class T>
struct LoadArray {
  const T* p;
  __device__ T operator()(const View<T>&, index_t o, index_t, index_t, index_t) const { return p[o]; }
};
template <class T>
struct StoreArray {
  T* p;
  __device__ void operator()(const View<T>&, index_t o, index_t, index_t, index_t, T x) const { p[o] = x; }
};
template <class T>
struct AddToU {  // last Douglas stage: u += du, except on Dirichlet faces of other axes
  T* u;
  int last;
  __device__ void operator()(const View<T>& v, index_t o, index_t i, index_t j, index_t k, T x) const {
    if (last > 0) {
      if (v.on_dirichlet_line(j, k, last)) return;
      if ((i == 0 && v.dir[0][0]) || (i == v.n[0] - 1 && v.dir[0][1])) return;
    }
    u[o] += x;
  }
};
template <class T>
struct PrStage1 {  // u + dt/2 (A_y u + b), Dirichlet stage values on x faces
  const T* u;
  T half;
  __device__ T operator()(const View<T>& v, index_t o, index_t i, index_t j, index_t k) const {
    if (v.on_dirichlet_line(j, k, 0)) return u[o];
    for (int side = 0; side < 2; ++side)
      if (v.dir[0][side] && i == (side ? v.n[0] - 1 : 0)) return v.stage[0][side][j];
    return u[o] + half * (v.op(1, u, o, j) + v.all_fluxes(o, i, j, k));
  }
};
template <class T>
struct PrStage2 {  // v + dt/2 (A_x v + b); y-face rows take u^{n+1}
  const T* w;
  T half;
  __device__ T operator()(const View<T>& v, index_t o, index_t i, index_t j, index_t k) const {
    for (int side = 0; side < 2; ++side)
      if (v.dir[1][side] && j == (side ? v.n[1] - 1 : 0)) return v.stage[1][side][i];
    return w[o] + half * (v.op(0, w, o, i) + v.all_fluxes(o, i, j, k));
  }
};
template <class T>
struct StoreU {  // PR: u = x, except on Dirichlet x faces
  T* u;
  __device__ void operator()(const View<T>& v, index_t o, index_t i, index_t, index_t, T x) const {
    if ((i == 0 && v.dir[0][0]) || (i == v.n[0] - 1 && v.dir[0][1])) return;
    u[o] = x;
  }
};

// The line solvers' store interface (offset, line q of a dense LineSet along y or z, row r) for
// the heat stores.
template <class T>
struct AddToUAt {
  View<T> v;
  AddToU<T> add;
  int axis;
  __device__ void operator()(index_t o, index_t q, int r, T x) const {
    const index_t i = q % v.n[0], p = q / v.n[0];
    add(v, o, i, axis == 1 ? index_t(r) : p, axis == 1 ? p : index_t(r), x);
  }
};
template <class T>
tridiag::detail::AssignStore<T> at_offset(const View<T>&, int, const StoreArray<T>& s) {
  return {s.p};
}
template <class T>
AddToUAt<T> at_offset(const View<T>& v, int axis, const AddToU<T>& s) {
  return {v, s, axis};
}

// ---- line sweeps ----------------------------------------------------------------------------

// Lines along x: `lines` lines per block in shared memory (row stride n+1 against bank
// conflicts); loads and stores walk the tile with consecutive threads on consecutive x.
template <class T, class Load, class Store>
__global__ void sweep_x(View<T> v, int lines, Load load, Store store) {
  extern __shared__ unsigned char smem[];
  T* d = reinterpret_cast<T*>(smem);
  const index_t n = v.n[0], ld = n + 1, total = v.n[1] * v.n[2];
  const index_t q0 = index_t(blockIdx.x) * lines;
  const index_t nl = total - q0 < lines ? total - q0 : index_t(lines);
  T* c = d + lines * ld;  // c' (variable kappa only)
  // Loads are unrolled so that several are in flight per thread (the phase is latency-bound).
#pragma unroll 8
  for (index_t l = 0; l < nl; ++l) {  // one line at a time: no division per element
    const index_t q = q0 + l;
    const index_t j = unsigned(q) % unsigned(v.n[1]), k = unsigned(q) / unsigned(v.n[1]);  // lines < 2^32
    for (index_t i = threadIdx.x; i < n; i += blockDim.x) d[l * ld + i] = load(v, q * n + i, i, j, k);
  }
  __syncthreads();
  if (threadIdx.x < nl) {
    T* x = d + threadIdx.x * ld;
    T prev = 0;  // the running value stays in a register
    if (!v.kappa) {
      const T *a = v.a[0], *m = v.m[0], *cp = v.cp[0];
      for (index_t i = 0; i < n; ++i) prev = x[i] = (x[i] - a[i] * prev) * m[i];
      for (index_t i = n - 2; i >= 0; --i) prev = x[i] -= cp[i] * prev;
    } else {
      T* cc = c + threadIdx.x * ld;
      const index_t base = (q0 + threadIdx.x) * n;
      T cprev = 0, A, B, C;
      for (index_t i = 0; i < n; ++i) {
        v.row(0, base + i, i, A, B, C);
        const T inv = T(1) / (B - A * cprev);
        cprev = cc[i] = C * inv;
        prev = x[i] = (x[i] - A * prev) * inv;
      }
      for (index_t i = n - 2; i >= 0; --i) prev = x[i] -= cc[i] * prev;
    }
  }
  __syncthreads();
#pragma unroll 8
  for (index_t l = 0; l < nl; ++l) {
    const index_t q = q0 + l;
    const index_t j = unsigned(q) % unsigned(v.n[1]), k = unsigned(q) / unsigned(v.n[1]);
    for (index_t i = threadIdx.x; i < n; i += blockDim.x) store(v, q * n + i, i, j, k, d[l * ld + i]);
  }
}

// Lines along x by the Thomas–PCR hybrid: one warp per line (kPcrWarps lines per block), the
// line staged in shared memory with coalesced loads and stores.
constexpr int kPcrWarps = 4;
template <class T, int M, bool Scan, class Load, class Store>
__global__ void __launch_bounds__(kPcrWarps * 32) sweep_x_pcr(View<T> v, Load load, Store store) {
  extern __shared__ unsigned char smem[];
  const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
  const index_t q = index_t(blockIdx.x) * kPcrWarps + warp;
  if (q >= v.n[1] * v.n[2]) return;  // (whole warps)
  const int n = int(v.n[0]);
  T* const d = reinterpret_cast<T*>(smem) + warp * (tridiag::detail::pad(n) + 1);
  const index_t j = q % v.n[1], k = q / v.n[1], base = q * n;
  using tridiag::detail::pad;
  for (int i = lane; i < n; i += 32) d[pad(i)] = load(v, base + i, i, j, k);
  __syncwarp();
  if constexpr (Scan)  // the factored constant-coefficient matrix: two warp scans
    tridiag::detail::uniform_scan_warp<T, M>(lane, n, d, v.scan);
  else
    tridiag::detail::thomas_pcr_warp<T, M>(lane, n, d, [&](int r, T& A, T& B, T& C) { v.row(0, base + r, r, A, B, C); });
  __syncwarp();
  for (int i = lane; i < n; i += 32) store(v, base + i, i, j, k, d[pad(i)]);
}

// Lines along y or z, staged in shared memory: a block takes `lines` x-adjacent lines (one
// tile column each), loads the tile row by row (coalesced), solves one line per thread and
// stores row by row, so each element is read once and written once.
template <class T, class Load, class Store>
__global__ void sweep_yz_tiled(View<T> v, int axis, int lines, Load load, Store store) {
  extern __shared__ unsigned char smem[];
  T* d = reinterpret_cast<T*>(smem);
  const int other = axis == 1 ? 2 : 1;
  const index_t nx = v.n[0], n = v.n[axis], s = v.stride(axis);
  const index_t chunks = (nx + lines - 1) / lines;
  const index_t i0 = (index_t(blockIdx.x) % chunks) * lines, p = index_t(blockIdx.x) / chunks;
  const index_t nl = nx - i0 < lines ? nx - i0 : index_t(lines);
  const index_t base = i0 + p * v.stride(other);
  T* c = d + n * lines;  // c' (variable kappa only)
  const int l = threadIdx.x % lines, rows_per_pass = blockDim.x / lines;
  auto jk = [&](index_t r, index_t& j, index_t& k) {
    j = axis == 1 ? r : p;
    k = axis == 1 ? p : r;
  };
  if (l < nl && threadIdx.x < rows_per_pass * lines)
#pragma unroll 8
    for (index_t r = threadIdx.x / lines; r < n; r += rows_per_pass) {  // several loads in flight
      index_t j, k;
      jk(r, j, k);
      d[r * lines + l] = load(v, base + l + r * s, i0 + l, j, k);
    }
  __syncthreads();
  if (threadIdx.x < nl) {
    const int t = threadIdx.x;
    // The running value stays in a register: the dependent chain is arithmetic only.
    T prev = 0;
    if (!v.kappa) {
      const T *a = v.a[axis], *m = v.m[axis], *cp = v.cp[axis];
      for (index_t r = 0; r < n; ++r) prev = d[r * lines + t] = (d[r * lines + t] - a[r] * prev) * m[r];
      for (index_t r = n - 2; r >= 0; --r) prev = d[r * lines + t] -= cp[r] * prev;
    } else {
      T cprev = 0, A, B, C;
      for (index_t r = 0; r < n; ++r) {
        v.row(axis, base + t + r * s, r, A, B, C);
        const T inv = T(1) / (B - A * cprev);
        cprev = c[r * lines + t] = C * inv;
        prev = d[r * lines + t] = (d[r * lines + t] - A * prev) * inv;
      }
      for (index_t r = n - 2; r >= 0; --r) prev = d[r * lines + t] -= c[r * lines + t] * prev;
    }
  }
  __syncthreads();
  if (l < nl && threadIdx.x < rows_per_pass * lines)
#pragma unroll 8
    for (index_t r = threadIdx.x / lines; r < n; r += rows_per_pass) {
      index_t j, k;
      jk(r, j, k);
      store(v, base + l + r * s, i0 + l, j, k, d[r * lines + l]);
    }
}

// Lines along y or z: one thread per line (lines too long for a shared-memory tile); d' (and c' for variable kappa) in scratch arrays.
template <class T, class Load, class Store>
__global__ void sweep_yz(View<T> v, int axis, T* dscr, T* cscr, Load load, Store store) {
  const int other = axis == 1 ? 2 : 1;
  const index_t nx = v.n[0], lines = nx * v.n[other];
  const index_t t = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= lines) return;
  const index_t i = t % nx, p = t / nx, s = v.stride(axis), n = v.n[axis];
  const index_t base = i + p * v.stride(other);
  auto jk = [&](index_t r, index_t& j, index_t& k) {
    j = axis == 1 ? r : p;
    k = axis == 1 ? p : r;
  };
  T dprev = 0, cprev = 0;
  for (index_t r = 0; r < n; ++r) {
    const index_t o = base + r * s;
    index_t j, k;
    jk(r, j, k);
    const T rhs = load(v, o, i, j, k);
    if (!v.kappa) {
      dprev = (rhs - v.a[axis][r] * dprev) * v.m[axis][r];
    } else {
      T A, B, C;
      v.row(axis, o, r, A, B, C);
      const T inv = T(1) / (B - A * cprev);
      cprev = cscr[o] = C * inv;
      dprev = (rhs - A * dprev) * inv;
    }
    dscr[o] = dprev;
  }
  T x = 0;
  for (index_t r = n - 1; r >= 0; --r) {
    const index_t o = base + r * s;
    const T cr = v.kappa ? cscr[o] : v.cp[axis][r];
    x = r == n - 1 ? dscr[o] : dscr[o] - cr * x;
    index_t j, k;
    jk(r, j, k);
    store(v, o, i, j, k, x);
  }
}

template <class T>
__global__ void scatter_face(View<T> v, int axis, int side, const T* values, T* field) {
  const int p = axis == 0 ? 1 : 0, q = axis == 2 ? 1 : 2;
  const index_t np = v.n[p], count = np * v.n[q];
  const index_t e = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= count) return;
  index_t ijk[3];
  ijk[axis] = side ? v.n[axis] - 1 : 0;
  ijk[p] = e % np;
  ijk[q] = e / np;
  field[ijk[0] + v.sy * ijk[1] + v.sz * ijk[2]] = values[e];
}

}  // namespace

// ---- host side -----------------------------------------------------------------------------

template <class T>
struct HeatGpu<T>::Impl {
  View<T> view{};
  Grid grid;
  DeviceArray<T> u, du, extra, cscr, kappa, f;
  DeviceArray<T> flux[6], stage[6], a[3], m[3], cp[3], scan;
  int x_lines = 1;
  std::size_t x_smem = 0;
  std::array<tridiag::GpuAlgorithm, 3> solver{};

  template <class Load, class Store>
  void x_sweep(const Load& load, const Store& store) {
    const index_t total = grid.n[1] * grid.n[2];
    if (solver[0] == tridiag::GpuAlgorithm::thomas_pcr) {
      const unsigned blocks = unsigned((total + kPcrWarps - 1) / kPcrWarps);
      const std::size_t smem = kPcrWarps * sizeof(T) * std::size_t(tridiag::detail::pad(int(grid.n[0])) + 1);
      const index_t n = grid.n[0];
      if (!view.kappa && tridiag::detail::uniform_scan_segment_bound(n) <= 8)
        sweep_x_pcr<T, 8, true, Load, Store><<<blocks, kPcrWarps * 32, smem>>>(view, load, store);
      else if (!view.kappa)
        sweep_x_pcr<T, 16, true, Load, Store><<<blocks, kPcrWarps * 32, smem>>>(view, load, store);
      else if (tridiag::detail::thomas_pcr_segment_bound(n) <= 8)
        sweep_x_pcr<T, 8, false, Load, Store><<<blocks, kPcrWarps * 32, smem>>>(view, load, store);
      else
        sweep_x_pcr<T, 16, false, Load, Store><<<blocks, kPcrWarps * 32, smem>>>(view, load, store);
    } else {
      sweep_x<T, Load, Store><<<unsigned((total + x_lines - 1) / x_lines), 256, x_smem>>>(view, x_lines, load, store);
    }
    TRIDSIM_CUDA_LAUNCH();
  }
  template <class Load, class Store>
  void yz_sweep(int axis, T* dscr, const Load& load, const Store& store) {
    // Constant kappa, solved in place (a middle Douglas stage): the line solvers' pipelined
    // shared-memory kernel. (The last stage's fused update of u, a read-modify-write on the
    // back substitution's path, runs faster in the tile kernel below: 340 vs 650 us at 256^3.)
    // thomas-pcr: segments of the lines across warps, every right-hand side in registers before
    // the recurrences start (thomas_pcr.cuh), the store (also the update of u) fused.
    if constexpr (std::is_same_v<Load, LoadArray<T>>)
      if (!view.kappa && solver[axis] == tridiag::GpuAlgorithm::thomas_pcr &&
          tridiag::detail::launch_uniform_scan_strided<T>(tridiag::LineSet::dense(grid, axis), view.a[axis],
                                                          view.m[axis], view.cp[axis], load.p,
                                                          at_offset(view, axis, store), cudaStream_t(0)))
        return;
    if constexpr (std::is_same_v<Load, LoadArray<T>> && std::is_same_v<Store, StoreArray<T>>)
      if (!view.kappa && solver[axis] == tridiag::GpuAlgorithm::thomas && load.p == store.p &&
          tridiag::detail::launch_uniform_smem<T>(tridiag::LineSet::dense(grid, axis), view.a[axis], view.m[axis],
                                                  view.cp[axis], load.p, tridiag::detail::AssignStore<T>{store.p},
                                                  cudaStream_t(0)))
        return;
    const index_t other_lines = grid.n[axis == 1 ? 2 : 1];
    const std::size_t per_line = (view.kappa ? 2 : 1) * sizeof(T) * std::size_t(grid.n[axis]);
    const int tile = int(std::min<std::size_t>(32, (96u << 10) / per_line));
    if (tile >= 8 && solver[axis] != tridiag::GpuAlgorithm::thomas_naive) {  // staged in shared memory: each element read once and written once
      const std::size_t smem = per_line * std::size_t(tile);
      auto kernel = sweep_yz_tiled<T, Load, Store>;
      if (smem > (48u << 10))
        TRIDSIM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
      const index_t chunks = (grid.n[0] + tile - 1) / tile;
      kernel<<<unsigned(chunks * other_lines), 256, smem>>>(view, axis, tile, load, store);
    } else {  // very long lines: d' (and c') in device scratch arrays
      const index_t lines = grid.n[0] * other_lines;
      sweep_yz<T, Load, Store><<<unsigned((lines + 127) / 128), 128>>>(view, axis, dscr, ensure_cscr(), load, store);
    }
    TRIDSIM_CUDA_LAUNCH();
  }
  T* ensure_cscr() {
    if (view.kappa && cscr.n == 0) cscr.allocate(grid.size());
    return cscr.p;
  }
  void set_faces(int axis, T* field) {  // Dirichlet stage values of `axis` into field
    for (int side = 0; side < 2; ++side) {
      if (!view.dir[axis][side]) continue;
      const index_t count = stage[2 * axis + side].n;
      scatter_face<T><<<unsigned((count + 255) / 256), 256>>>(view, axis, side, stage[2 * axis + side].p, field);
      TRIDSIM_CUDA_LAUNCH();
    }
  }
};

template <class T>
HeatGpu<T>::HeatGpu(const Config& c) : impl_(std::make_unique<Impl>()) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) throw Error("backend cuda: no CUDA device is present");
  auto& I = *impl_;
  I.grid = c.grid;
  I.solver = c.solver;
  if (c.solver[0] == tridiag::GpuAlgorithm::thomas_pcr && c.grid.n[0] > tridiag::detail::kThomasPcrMax)
    throw Error("heat (cuda): thomas-pcr solves lines of at most " + std::to_string(tridiag::detail::kThomasPcrMax) +
                " points along x");
  View<T>& v = I.view;
  v.dim = c.grid.dim;
  for (int a = 0; a < 3; ++a) {
    v.n[a] = c.grid.n[a];
    const double h = c.grid.h(a);
    v.ih2[a] = h > 0 ? T(1.0 / (h * h)) : T(0);
    v.ih[a] = h > 0 ? T(1.0 / h) : T(0);
    for (int s = 0; s < 2; ++s) v.dir[a][s] = c.dirichlet[a][s] ? 1 : 0;
  }
  v.sy = c.grid.n[0];
  v.sz = c.grid.n[0] * c.grid.n[1];
  v.kappa0 = c.kappa0;
  const index_t N = c.grid.size();
  I.u.allocate(N);
  I.du.allocate(N);
  if (c.kappa) {
    I.kappa.upload(c.kappa, N);
    v.kappa = I.kappa.p;
  }
  if (c.has_source) I.f.allocate(N);
  v.f = c.has_source ? I.f.p : nullptr;
  // x tile: as many lines as fit in 96 KiB of shared memory (two blocks per SM), at most 32.
  const std::size_t per_line = (c.kappa ? 2 : 1) * sizeof(T) * std::size_t(c.grid.n[0] + 1);
  I.x_lines = int(std::max<std::size_t>(1, std::min<std::size_t>(32, (96 << 10) / per_line)));
  I.x_smem = per_line * std::size_t(I.x_lines);
  if (I.x_smem > (48u << 10)) {
    auto allow = [&](auto kernel) {
      TRIDSIM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(I.x_smem)));
    };
    allow(sweep_x<T, DouglasRhs<T>, StoreArray<T>>);
    allow(sweep_x<T, DouglasRhs<T>, AddToU<T>>);
    allow(sweep_x<T, PrStage1<T>, StoreArray<T>>);
  }
}

template <class T>
HeatGpu<T>::~HeatGpu() = default;

template <class T>
void HeatGpu<T>::upload_u(const T* u) {
  impl_->u.upload(u, impl_->grid.size());
}

template <class T>
void HeatGpu<T>::download_u(T* u) const {
  TRIDSIM_CUDA(cudaMemcpy(u, impl_->u.p, sizeof(T) * impl_->grid.size(), cudaMemcpyDeviceToHost));
}

template <class T>
void HeatGpu<T>::upload_source(const T* f) {
  impl_->f.upload(f, impl_->grid.size());
}

template <class T>
void HeatGpu<T>::upload_faces(const std::vector<AlignedVector<T>>& flux, const std::vector<AlignedVector<T>>& stage) {
  auto& I = *impl_;
  for (std::size_t fi = 0; fi < flux.size(); ++fi) {
    I.flux[fi].upload(flux[fi].data(), index_t(flux[fi].size()));
    I.stage[fi].upload(stage[fi].data(), index_t(stage[fi].size()));
    I.view.flux[fi / 2][fi % 2] = I.flux[fi].p;
    I.view.stage[fi / 2][fi % 2] = I.stage[fi].p;
  }
}

template <class T>
void HeatGpu<T>::upload_matrix(int axis, const T* a, const T* m, const T* cp) {
  auto& I = *impl_;
  const index_t n = I.grid.n[axis];
  I.a[axis].upload(a, n);
  I.m[axis].upload(m, n);
  I.cp[axis].upload(cp, n);
  I.view.a[axis] = I.a[axis].p;
  I.view.m[axis] = I.m[axis].p;
  I.view.cp[axis] = I.cp[axis].p;
  if (axis == 0 && I.solver[0] == tridiag::GpuAlgorithm::thomas_pcr) {
    std::vector<T> table(5 * std::size_t(tridiag::detail::uniform_scan_plane(n)));
    tridiag::detail::uniform_scan_table<T>(n, a, m, cp, table.data());
    I.scan.upload(table.data(), index_t(table.size()));
    I.view.scan = I.scan.p;
  }
}

template <class T>
void HeatGpu<T>::set_face_values(int face, const T* values) {
  auto& I = *impl_;
  const int axis = face / 2, side = face % 2;
  DeviceArray<T> tmp;
  tmp.upload(values, I.stage[face].n);
  scatter_face<T><<<unsigned((tmp.n + 255) / 256), 256>>>(I.view, axis, side, tmp.p, I.u.p);
  TRIDSIM_CUDA_LAUNCH();
  TRIDSIM_CUDA(cudaDeviceSynchronize());
}

template <class T>
void HeatGpu<T>::step_douglas(double dt) {
  auto& I = *impl_;
  for (int a = 0; a < 3; ++a) {
    I.view.w[a] = T(0.5 * dt) * I.view.ih2[a];
    const double h = I.grid.h(a);
    I.view.ck[a] = h > 0 ? T(dt) / T(h * h) * I.view.kappa0 : T(0);
  }
  const int d = I.grid.dim, last = d - 1;
  const DouglasRhs<T> rhs{I.u.p, T(dt)};
  if (d == 1) {
    I.x_sweep(rhs, AddToU<T>{I.u.p, 0});
  } else {
    I.x_sweep(rhs, StoreArray<T>{I.du.p});
    for (int a = 1; a < d; ++a) {
      I.set_faces(a, I.du.p);
      if (a < last) I.yz_sweep(a, I.du.p, LoadArray<T>{I.du.p}, StoreArray<T>{I.du.p});
      else I.yz_sweep(a, I.du.p, LoadArray<T>{I.du.p}, AddToU<T>{I.u.p, last});
    }
  }
  TRIDSIM_CUDA(cudaDeviceSynchronize());
}

template <class T>
void HeatGpu<T>::step_peaceman_rachford(double dt) {
  auto& I = *impl_;
  for (int a = 0; a < 3; ++a) I.view.w[a] = T(0.5 * dt) * I.view.ih2[a];
  const T half = T(0.5 * dt);
  if (I.extra.n == 0) I.extra.allocate(I.grid.size());  // u*, apart from the sweeps' scratch
  I.x_sweep(PrStage1<T>{I.u.p, half}, StoreArray<T>{I.extra.p});
  I.yz_sweep(1, I.du.p, PrStage2<T>{I.extra.p, half}, StoreU<T>{I.u.p});
  TRIDSIM_CUDA(cudaDeviceSynchronize());
}

template <class T>
std::array<double, 3> HeatGpu<T>::reduce_u() const {
  const auto& I = *impl_;
  thrust::device_ptr<const T> p(I.u.p);
  const auto mm = thrust::minmax_element(p, p + I.grid.size());
  const double sum = double(thrust::reduce(p, p + I.grid.size(), T(0)));
  return {double(*mm.first), double(*mm.second), sum};
}

template class HeatGpu<float>;
template class HeatGpu<double>;

}  // namespace tridsim
