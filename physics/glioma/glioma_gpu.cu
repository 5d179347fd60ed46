// CUDA implementation of the glioma module's steps (see glioma.cpp for the schemes). Same
// discretization and order of operations as the CPU path, laid out like the heat module's
// Douglas sweeps (physics/heat/heat_gpu.cu):
//  - lines along x: a block stages up to 32 lines in shared memory (coalesced loads and stores),
//    one thread per line for the recurrence;
//  - lines along y or z: a block stages up to 32 x-adjacent lines, loading and storing row by
//    row (coalesced), one thread per line.
// The line matrices are generated from D: the load phase also stores each row's right face
// diffusivity (harmonic mean) in the shared-memory slot that the recurrence then overwrites with
// c', so the recurrence reads nothing from global memory. Both half steps of the exact logistic
// reaction are fused into the sweeps: the x-sweep's load forms dt A L(c) with L(c) evaluated on
// the fly, and the last sweep's store writes c = L(L(c) + dc); a Strang step makes three sweeps.
#include "physics/glioma/glioma_gpu.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/cuda_support.cuh"
#include "core/errors.hpp"

namespace tridsim {

namespace {

using cuda::DeviceArray;

// What every kernel needs: grid, D, and the coefficients of the current step.
template <class T>
struct View {
  int dim;
  index_t n[3], sy, sz;
  const T* D;
  T w[3];     // dt/2 / h^2: line matrices I - w A
  T coef[3];  // dt / h^2: the explicit operator
  T e, em1;   // the logistic flow over dt/2: c -> c e / (1 + c em1)
  T dt, rho;

  __device__ index_t stride(int a) const { return a == 0 ? 1 : a == 1 ? sy : sz; }
  __device__ static T face(T a, T b) {  // as tridiag::DiffusionCoeffs<T, harmonic>::face
    const T s = a + b;
    return s > T(0) ? T(2) * a * b / s : T(0);
  }
  __device__ T logistic(T c) const { return c * e / (T(1) + c * em1); }
  __device__ T value(const T* u, index_t o, bool react) const { return react ? logistic(u[o]) : u[o]; }
  // dt (A f(u)) at node o = (i, j, k), f = L (react) or the identity; no flux through the box
  // faces (missing neighbours mirrored), summed axis by axis as on the CPU.
  __device__ T op(const T* u, index_t o, const index_t ijk[3], bool react) const {
    T out = T(0);
    const T uo = value(u, o, react);
    for (int a = 0; a < dim; ++a) {
      const index_t s = stride(a), p = ijk[a];
      const index_t sm = p > 0 ? -s : s, sp = p < n[a] - 1 ? s : -s;
      const T kp = face(D[o], D[o + sp]), km = face(D[o], D[o + sm]);
      out += coef[a] * (kp * (value(u, o + sp, react) - uo) - km * (uo - value(u, o + sm, react)));
    }
    return out;
  }
  // Row r of I - w A along axis (no-flux ends): kl, kr the faces left and right of the row.
  __device__ void row(int axis, index_t r, index_t nn, T kl, T kr, T& A, T& B, T& C) const {
    const T ww = w[axis];
    if (r == 0) {
      A = 0;
      B = 1 + 2 * ww * kr;
      C = -2 * ww * kr;
    } else if (r == nn - 1) {
      A = -2 * ww * kl;
      B = 1 + 2 * ww * kl;
      C = 0;
    } else {
      A = -ww * kl;
      C = -ww * kr;
      B = 1 + ww * (kl + kr);
    }
  }
  // Thomas on one line held in shared memory: x (right-hand side in, solution out) and k
  // (right faces in, c' out), element r at offset r * step.
  __device__ void solve(int axis, index_t nn, T* x, T* k, index_t step) const {
    T kl = 0, cprev = 0, prev = 0, A, B, C;
    for (index_t r = 0; r < nn; ++r) {
      const T kr = k[r * step];
      row(axis, r, nn, kl, kr, A, B, C);
      const T inv = T(1) / (B - A * cprev);
      cprev = k[r * step] = C * inv;
      prev = x[r * step] = (x[r * step] - A * prev) * inv;
      kl = kr;
    }
    for (index_t r = nn - 2; r >= 0; --r) prev = x[r * step] -= k[r * step] * prev;
  }
};

// ---- right-hand sides (loads) and updates (stores) ------------------------------------------

template <class T>
struct StrangRhs {  // dt A L(c): the first half reaction evaluated on the fly
  const T* u;
  __device__ T operator()(const View<T>& v, index_t o, const index_t ijk[3]) const { return v.op(u, o, ijk, true); }
};
template <class T>
struct LoadArray {
  const T* p;
  __device__ T operator()(const View<T>&, index_t o, const index_t*) const { return p[o]; }
};
template <class T>
struct StoreArray {
  T* p;
  __device__ void operator()(const View<T>&, index_t o, T x) const { p[o] = x; }
};
template <class T>
struct Finish {  // c = L(L(c) + dc): the second half reaction
  T* u;
  __device__ void operator()(const View<T>& v, index_t o, T x) const { u[o] = v.logistic(v.logistic(u[o]) + x); }
};

// ---- line sweeps ----------------------------------------------------------------------------

// Lines along x: `lines` lines per block in shared memory (row stride n + 1 against bank conflicts).
template <class T, class Load, class Store>
__global__ void sweep_x(View<T> v, int lines, Load load, Store store) {
  extern __shared__ unsigned char smem[];
  const index_t n = v.n[0], ld = n + 1, total = v.n[1] * v.n[2];
  T* d = reinterpret_cast<T*>(smem);
  T* k = d + lines * ld;
  const index_t q0 = index_t(blockIdx.x) * lines;
  const index_t nl = total - q0 < lines ? total - q0 : index_t(lines);
  for (index_t l = 0; l < nl; ++l) {
    const index_t q = q0 + l;
    const index_t ijk0[3] = {0, q % v.n[1], q / v.n[1]};
    for (index_t i = threadIdx.x; i < n; i += blockDim.x) {
      const index_t o = q * n + i, ijk[3] = {i, ijk0[1], ijk0[2]};
      d[l * ld + i] = load(v, o, ijk);
      k[l * ld + i] = i + 1 < n ? View<T>::face(v.D[o], v.D[o + 1]) : T(0);
    }
  }
  __syncthreads();
  if (threadIdx.x < nl) v.solve(0, n, d + threadIdx.x * ld, k + threadIdx.x * ld, 1);
  __syncthreads();
  for (index_t l = 0; l < nl; ++l)
    for (index_t i = threadIdx.x; i < n; i += blockDim.x) store(v, (q0 + l) * n + i, d[l * ld + i]);
}

// Lines along y or z: `lines` x-adjacent lines per block, loaded and stored row by row.
template <class T, class Load, class Store>
__global__ void sweep_yz(View<T> v, int axis, int lines, Load load, Store store) {
  extern __shared__ unsigned char smem[];
  const int other = axis == 1 ? 2 : 1;
  const index_t nx = v.n[0], n = v.n[axis], s = v.stride(axis);
  T* d = reinterpret_cast<T*>(smem);
  T* k = d + n * lines;
  const index_t chunks = (nx + lines - 1) / lines;
  const index_t i0 = (index_t(blockIdx.x) % chunks) * lines, p = index_t(blockIdx.x) / chunks;
  const index_t nl = nx - i0 < lines ? nx - i0 : index_t(lines);
  const index_t base = i0 + p * v.stride(other);
  const int l = threadIdx.x % lines, rows_per_pass = blockDim.x / lines;
  const bool active = l < nl && threadIdx.x < rows_per_pass * lines;
  if (active)
    for (index_t r = threadIdx.x / lines; r < n; r += rows_per_pass) {
      const index_t o = base + l + r * s;
      index_t ijk[3];
      ijk[0] = i0 + l;
      ijk[axis] = r;
      ijk[other] = p;
      d[r * lines + l] = load(v, o, ijk);
      k[r * lines + l] = r + 1 < n ? View<T>::face(v.D[o], v.D[o + s]) : T(0);
    }
  __syncthreads();
  if (threadIdx.x < nl) v.solve(axis, n, d + threadIdx.x, k + threadIdx.x, lines);
  __syncthreads();
  if (active)
    for (index_t r = threadIdx.x / lines; r < n; r += rows_per_pass) store(v, base + l + r * s, d[r * lines + l]);
}

// Forward Euler: out = c + (dt A c + dt rho c (1 - c)).
template <class T>
__global__ void explicit_step(View<T> v, const T* u, T* out) {
  const index_t N = v.n[0] * v.n[1] * v.n[2];
  for (index_t o = index_t(blockIdx.x) * blockDim.x + threadIdx.x; o < N; o += index_t(gridDim.x) * blockDim.x) {
    const index_t ijk[3] = {o % v.n[0], (o / v.n[0]) % v.n[1], o / (v.n[0] * v.n[1])};
    const T c = u[o];
    out[o] = c + (v.op(u, o, ijk, false) + v.dt * v.rho * c * (T(1) - c));
  }
}

// Per-block min, max, integral of c and measures of {c >= t1}, {c >= t2} (trapezoidal weights).
template <class T>
__global__ void reduce_kernel(View<T> v, const T* u, double h0, double h1, double h2, T t1, T t2, double* partial) {
  __shared__ double sh[5][256];
  const index_t N = v.n[0] * v.n[1] * v.n[2];
  const double h[3] = {h0, h1, h2};
  double lo = INFINITY, hi = -INFINITY, sum = 0, v1 = 0, v2 = 0;
  for (index_t o = index_t(blockIdx.x) * blockDim.x + threadIdx.x; o < N; o += index_t(gridDim.x) * blockDim.x) {
    const index_t ijk[3] = {o % v.n[0], (o / v.n[0]) % v.n[1], o / (v.n[0] * v.n[1])};
    double aw[3];
    for (int a = 0; a < 3; ++a)
      aw[a] = a < v.dim ? h[a] * (ijk[a] == 0 || ijk[a] == v.n[a] - 1 ? 0.5 : 1.0) : 1.0;
    const double wt = aw[1] * aw[2] * aw[0];
    const T c = u[o];
    const double x = double(c);
    lo = fmin(lo, x);  // (a NaN makes the sum NaN; the host reports it as min and max)
    hi = fmax(hi, x);
    sum += wt * x;
    if (c >= t1) v1 += wt;
    if (c >= t2) v2 += wt;
  }
  const int t = threadIdx.x;
  sh[0][t] = lo, sh[1][t] = hi, sh[2][t] = sum, sh[3][t] = v1, sh[4][t] = v2;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (t < half) {
      sh[0][t] = fmin(sh[0][t], sh[0][t + half]);
      sh[1][t] = fmax(sh[1][t], sh[1][t + half]);
      for (int q = 2; q < 5; ++q) sh[q][t] += sh[q][t + half];
    }
    __syncthreads();
  }
  if (t == 0)
    for (int q = 0; q < 5; ++q) partial[5 * blockIdx.x + q] = sh[q][0];
}

constexpr std::size_t smem_budget = 96u << 10;  // two blocks per SM, as the heat sweeps
constexpr std::size_t smem_max = 227u << 10;    // H100's largest opt-in per block

// Lines per block for lines of `length` elements (d and k per element).
template <class T>
int tile_lines(index_t length) {
  const std::size_t per_line = 2 * sizeof(T) * std::size_t(length);
  if (per_line > smem_max)
    throw Error("backend cuda: glioma lines of " + std::to_string(length) +
                " points do not fit in shared memory; use the cpu backend or fewer points per axis");
  return int(std::max<std::size_t>(1, std::min<std::size_t>(32, smem_budget / per_line)));
}

template <class Kernel>
void allow_smem(Kernel kernel, std::size_t bytes) {
  if (bytes > (48u << 10)) TRIDSIM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

}  // namespace

// ---- host side -----------------------------------------------------------------------------

template <class T>
struct GliomaGpu<T>::Impl {
  View<T> view{};
  Grid grid;
  double rho = 0;
  DeviceArray<T> u, du, D;
  mutable DeviceArray<double> partial;

  template <class Load, class Store>
  void x_sweep(const Load& load, const Store& store) {
    const index_t n = grid.n[0], total = grid.n[1] * grid.n[2];
    const int lines = tile_lines<T>(n + 1);
    const std::size_t smem = 2 * sizeof(T) * std::size_t(n + 1) * std::size_t(lines);
    auto kernel = sweep_x<T, Load, Store>;
    allow_smem(kernel, smem);
    kernel<<<unsigned((total + lines - 1) / lines), 256, smem>>>(view, lines, load, store);
    TRIDSIM_CUDA_LAUNCH();
  }
  template <class Load, class Store>
  void yz_sweep(int axis, const Load& load, const Store& store) {
    const index_t n = grid.n[axis], other = grid.n[axis == 1 ? 2 : 1];
    const int lines = tile_lines<T>(n);
    const std::size_t smem = 2 * sizeof(T) * std::size_t(n) * std::size_t(lines);
    auto kernel = sweep_yz<T, Load, Store>;
    allow_smem(kernel, smem);
    const index_t chunks = (grid.n[0] + lines - 1) / lines;
    kernel<<<unsigned(chunks * other), 256, smem>>>(view, axis, lines, load, store);
    TRIDSIM_CUDA_LAUNCH();
  }
  void set_step(double dt) {
    for (int a = 0; a < 3; ++a) {
      const double h = grid.h(a);
      view.w[a] = a < grid.dim ? T(0.5 * dt / (h * h)) : T(0);
      view.coef[a] = a < grid.dim ? T(dt) / T(h * h) : T(0);
    }
    view.e = T(std::exp(rho * 0.5 * dt));
    view.em1 = T(std::expm1(rho * 0.5 * dt));
    view.dt = T(dt);
  }
};

template <class T>
GliomaGpu<T>::GliomaGpu(const Grid& grid, const T* D, double rho) : impl_(std::make_unique<Impl>()) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) throw Error("backend cuda: no CUDA device is present");
  auto& I = *impl_;
  I.grid = grid;
  I.rho = rho;
  View<T>& v = I.view;
  v.dim = grid.dim;
  for (int a = 0; a < 3; ++a) v.n[a] = grid.n[a];
  v.sy = grid.n[0];
  v.sz = grid.n[0] * grid.n[1];
  v.rho = T(rho);
  const index_t N = grid.size();
  I.u.allocate(N);
  I.du.allocate(N);
  I.D.allocate(N);
  TRIDSIM_CUDA(cudaMemcpy(I.D.p, D, sizeof(T) * std::size_t(N), cudaMemcpyHostToDevice));
  v.D = I.D.p;
  tile_lines<T>(grid.n[0] + 1);  // refuse lines too long for shared memory now, not mid-run
  for (int a = 1; a < grid.dim; ++a) tile_lines<T>(grid.n[a]);
}

template <class T>
GliomaGpu<T>::~GliomaGpu() = default;

template <class T>
void GliomaGpu<T>::upload_c(const T* c) {
  TRIDSIM_CUDA(cudaMemcpy(impl_->u.p, c, sizeof(T) * std::size_t(impl_->grid.size()), cudaMemcpyHostToDevice));
}

template <class T>
void GliomaGpu<T>::download_c(T* c) const {
  TRIDSIM_CUDA(cudaMemcpy(c, impl_->u.p, sizeof(T) * std::size_t(impl_->grid.size()), cudaMemcpyDeviceToHost));
}

template <class T>
void GliomaGpu<T>::step_adi(double dt) {
  auto& I = *impl_;
  I.set_step(dt);
  const int d = I.grid.dim;
  const StrangRhs<T> rhs{I.u.p};
  if (d == 1) {
    I.x_sweep(rhs, Finish<T>{I.u.p});
  } else {
    I.x_sweep(rhs, StoreArray<T>{I.du.p});
    for (int a = 1; a < d; ++a) {
      if (a < d - 1) I.yz_sweep(a, LoadArray<T>{I.du.p}, StoreArray<T>{I.du.p});
      else I.yz_sweep(a, LoadArray<T>{I.du.p}, Finish<T>{I.u.p});
    }
  }
  TRIDSIM_CUDA(cudaDeviceSynchronize());
}

template <class T>
void GliomaGpu<T>::step_explicit(double dt) {
  auto& I = *impl_;
  I.set_step(dt);
  const index_t N = I.grid.size();
  const unsigned blocks = unsigned(std::min<index_t>((N + 255) / 256, 65536));
  explicit_step<T><<<blocks, 256>>>(I.view, I.u.p, I.du.p);
  TRIDSIM_CUDA_LAUNCH();
  std::swap(I.u.p, I.du.p);
  TRIDSIM_CUDA(cudaDeviceSynchronize());
}

template <class T>
std::array<double, 5> GliomaGpu<T>::reduce(double t1, double t2) const {
  auto& I = *impl_;
  const index_t N = I.grid.size();
  const unsigned blocks = unsigned(std::min<index_t>((N + 255) / 256, 1024));
  if (I.partial.n < 5 * index_t(blocks)) I.partial.allocate(5 * index_t(blocks));
  reduce_kernel<T><<<blocks, 256>>>(I.view, I.u.p, I.grid.h(0), I.grid.h(1), I.grid.h(2), T(t1), T(t2), I.partial.p);
  TRIDSIM_CUDA_LAUNCH();
  std::vector<double> host(5 * std::size_t(blocks));
  TRIDSIM_CUDA(cudaMemcpy(host.data(), I.partial.p, sizeof(double) * host.size(), cudaMemcpyDeviceToHost));
  std::array<double, 5> r{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), 0, 0, 0};
  for (unsigned b = 0; b < blocks; ++b) {
    const double* p = host.data() + 5 * b;
    r[0] = std::min(r[0], p[0]);
    r[1] = std::max(r[1], p[1]);
    for (int q = 2; q < 5; ++q) r[q] += p[q];
  }
  if (std::isnan(r[2])) r[0] = r[1] = r[2];  // min/max skip NaN; make it visible
  return r;
}

template class GliomaGpu<float>;
template class GliomaGpu<double>;

}  // namespace tridsim
