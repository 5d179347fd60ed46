// CUDA fast Poisson solvers: see poisson_cuda.hpp.
#include "solvers/cyclic_reduction/cuda/poisson_cuda.hpp"

#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "solvers/cyclic_reduction/bcr_levels.hpp"

namespace tridsim::cr {

namespace {

void check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess)
    throw Error(std::string("CUDA error at ") + file + ":" + std::to_string(line) + " in " + what + ": " +
                cudaGetErrorString(e));
}
void check(cufftResult r, const char* what, const char* file, int line) {
  if (r != CUFFT_SUCCESS)
    throw Error(std::string("cuFFT error ") + std::to_string(int(r)) + " at " + file + ":" + std::to_string(line) +
                " in " + what);
}
#define POISSON_CUDA(call) check((call), #call, __FILE__, __LINE__)
#define POISSON_LAUNCH(name) check(cudaGetLastError(), "launch of " name, __FILE__, __LINE__)

template <class T>
struct DeviceArray {
  T* p = nullptr;
  std::size_t n = 0;
  DeviceArray() = default;
  explicit DeviceArray(std::size_t count) : n(count) {
    if (count) POISSON_CUDA(cudaMalloc(&p, count * sizeof(T)));
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : p(o.p), n(o.n) { o.p = nullptr; o.n = 0; }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(p, o.p);
    std::swap(n, o.n);
    return *this;
  }
  ~DeviceArray() {
    if (p) cudaFree(p);
  }
  void upload(const std::vector<T>& v) {
    *this = DeviceArray(v.size());
    if (!v.empty()) POISSON_CUDA(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
};

int blocks_for(long long work, int threads = 256) {
  return int(std::min<long long>((work + threads - 1) / threads, 65535LL * 16));
}

// ---- DST-I through real-to-complex FFTs ----------------------------------------------------
// For x_1..x_m along a line, the odd extension y = (0, x_1..x_m, 0, -x_m..-x_1) of length
// N = 2(m+1) has FFT Y_k = -2i sum_n x_n sin(pi k n/(m+1)), so DST-I (FFTW's RODFT00, which is
// its own inverse up to 2(m+1)) is X_k = -Im Y_k, k = 1..m.
// Layouts of the extended lines: along x, line-major (ext[l*N + p]); along y or z, interleaved
// (ext[p*lines + l]), so that consecutive threads touch consecutive nodes in both kernels.

template <class T>
struct Cufft;
template <>
struct Cufft<double> {
  using complex = cufftDoubleComplex;
  static constexpr cufftType type = CUFFT_D2Z;
  static cufftResult exec(cufftHandle p, double* in, complex* out) { return cufftExecD2Z(p, in, out); }
};
template <>
struct Cufft<float> {
  using complex = cufftComplex;
  static constexpr cufftType type = CUFFT_R2C;
  static cufftResult exec(cufftHandle p, float* in, complex* out) { return cufftExecR2C(p, in, out); }
};

struct LineGeom {
  long long m = 0, N = 0, lines = 0, stride = 1;  // line length, extended length, count, node stride
  long long nA = 1, sA = 0, sB = 0;               // line l starts at (l % nA)*sA + (l / nA)*sB
  bool interleaved = false;
};

template <class T>
__global__ void dst_pack(const T* __restrict__ x, T* __restrict__ ext, LineGeom g) {
  const long long total = g.lines * g.N;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
       t += (long long)gridDim.x * blockDim.x) {
    const long long l = g.interleaved ? t % g.lines : t / g.N, p = g.interleaved ? t / g.lines : t % g.N;
    const long long base = (l % g.nA) * g.sA + (l / g.nA) * g.sB;
    T v = 0;
    if (p >= 1 && p <= g.m) v = x[base + (p - 1) * g.stride];
    else if (p >= g.m + 2) v = -x[base + (g.N - p - 1) * g.stride];
    ext[t] = v;
  }
}

template <class T, class C>
__global__ void dst_unpack(const C* __restrict__ y, T* __restrict__ x, LineGeom g) {
  const long long nc = g.N / 2 + 1, total = g.lines * g.m;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
       t += (long long)gridDim.x * blockDim.x) {
    const long long l = g.interleaved ? t % g.lines : t / g.m, k = (g.interleaved ? t / g.lines : t % g.m) + 1;
    const long long base = (l % g.nA) * g.sA + (l / g.nA) * g.sB;
    const C c = g.interleaved ? y[k * g.lines + l] : y[l * nc + k];
    x[base + (k - 1) * g.stride] = -c.y;
  }
}

// u *= norm / (ex_i + ey_j + ez_k + sigma)
template <class T>
__global__ void divide_eigen(T* __restrict__ u, const T* __restrict__ ex, const T* __restrict__ ey,
                             const T* __restrict__ ez, long long mx, long long my, long long mz, T sigma, T norm) {
  const long long total = mx * my * mz;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
       t += (long long)gridDim.x * blockDim.x) {
    const long long i = t % mx, j = (t / mx) % my, k = t / (mx * my);  // x-fastest
    u[t] *= norm / (ex[i] + ey[j] + ez[k] + sigma);
  }
}

template <class T>
__global__ void scale_array(T* u, long long n, T s) {
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n; t += (long long)gridDim.x * blockDim.x)
    u[t] *= s;
}

// One axis of DST-I: plan and geometry.
template <class T>
struct AxisDst {
  LineGeom g;
  cufftHandle plan = 0;
  AxisDst(int axis, const std::array<long long, 3>& m) {
    const std::array<long long, 3> st{1, m[0], m[0] * m[1]};
    g.m = m[axis];
    g.N = 2 * (m[axis] + 1);
    g.lines = m[0] * m[1] * m[2] / m[axis];
    g.stride = st[axis];
    g.interleaved = axis != 0;
    if (axis == 0) { g.nA = m[1]; g.sA = st[1]; g.sB = st[2]; }
    else if (axis == 1) { g.nA = m[0]; g.sA = 1; g.sB = st[2]; }
    else { g.nA = m[0]; g.sA = 1; g.sB = st[1]; }
    int n = int(g.N), inembed = int(g.N), onembed = int(g.N / 2 + 1);
    const int lines = int(g.lines);
    if (g.interleaved)
      POISSON_CUDA(cufftPlanMany(&plan, 1, &n, &inembed, lines, 1, &onembed, lines, 1, Cufft<T>::type, lines));
    else
      POISSON_CUDA(cufftPlanMany(&plan, 1, &n, &inembed, 1, int(g.N), &onembed, 1, int(g.N / 2 + 1), Cufft<T>::type,
                                 lines));
  }
  AxisDst(const AxisDst&) = delete;
  AxisDst& operator=(const AxisDst&) = delete;
  ~AxisDst() {
    if (plan) cufftDestroy(plan);
  }
  std::size_t ext_size() const { return std::size_t(g.lines * g.N); }
  std::size_t out_size() const { return std::size_t(g.lines * (g.N / 2 + 1)); }
  // x (device) <- DST-I of x along this axis (unnormalized).
  void run(T* x, T* ext, typename Cufft<T>::complex* out, cudaStream_t s) const {
    dst_pack<T><<<blocks_for(g.lines * g.N), 256, 0, s>>>(x, ext, g);
    POISSON_LAUNCH("dst_pack");
    POISSON_CUDA(cufftSetStream(plan, s));
    POISSON_CUDA(Cufft<T>::exec(plan, ext, out));
    dst_unpack<T><<<blocks_for(g.lines * g.m), 256, 0, s>>>(out, x, g);
    POISSON_LAUNCH("dst_unpack");
  }
};

std::vector<double> eigenvalues(long long m, double h, bool active) {
  std::vector<double> e(std::size_t(m), 0.0);
  if (!active) return e;
  for (long long k = 1; k <= m; ++k) {
    const double s = std::sin(0.5 * M_PI * double(k) / double(m + 1));
    e[std::size_t(k - 1)] = 4 * s * s / (h * h);
  }
  return e;
}

template <class T>
std::vector<T> cast(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// ---- block cyclic reduction ----------------------------------------------------------------
// One sub-problem of a level: the shift lambda_j of its interval, where its right-hand side comes
// from (rows of g, >= 0, or slots of the copied inner rows, < 0 as -(slot+1)) with which weights,
// and which rows its weighted solution is added to. `key` numbers the interval within the level.
struct Task {
  double shift;
  int nin, nout, key;
  long long in_row[5];
  double cin[5];
  long long out_row[3];
  double cout[3];
};

constexpr unsigned kFull = 0xffffffffu;

// Every thread: one task on one plane. Thomas along x with e = -c', d = d' in `scratch`
// (element i of thread t at i*total + t: coalesced), then the back substitution, whose
// weighted values are summed over the threads of a warp that share an interval (segmented
// suffix sum; tasks of one interval are consecutive) and added to the rows by the first
// thread of each segment.
template <class T>
__global__ void bcr_level(const Task* __restrict__ tasks, int ntasks, int nplanes, int nint, T* __restrict__ g,
                          const T* __restrict__ inner, long long mx, long long plane_size, long long inner_plane,
                          T rho, const T* __restrict__ plane_base, T* __restrict__ scratch) {
  const long long total = (long long)ntasks * nplanes;
  const long long tid = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const bool live = tid < total;
  const int lane = threadIdx.x & 31;
  const long long task_id = live ? tid % ntasks : 0, plane = live ? tid / ntasks : 0;
  const Task& tk = tasks[task_id];
  const long long key = live ? plane * nint + tk.key : -1 - (tid - total);  // idle threads: own segments
  T* gp = g + plane * plane_size;
  const T* ip = inner + plane * inner_plane;
  const T* in[5];
  T cin[5];
  const int nin = live ? tk.nin : 0;
  for (int k = 0; k < 5; ++k) {
    in[k] = nullptr;
    cin[k] = 0;
    if (k < nin) {
      const long long r = tk.in_row[k];
      in[k] = r >= 0 ? gp + r * mx : ip + (-r - 1) * mx;
      cin[k] = T(tk.cin[k]);
    }
  }
  const T diag = live ? plane_base[plane] + T(tk.shift) : T(1) + 2 * rho;
  T* e = scratch;
  T* d = scratch + mx * total;
  T eprev = 0, dprev = 0;
  for (long long i = 0; i < mx; ++i) {
    T rhs = 0;
    for (int k = 0; k < nin; ++k) rhs += cin[k] * in[k][i];
    const T inv = T(1) / (diag - rho * eprev);
    eprev = rho * inv;
    dprev = (rhs + rho * dprev) * inv;
    if (live) {
      e[i * total + tid] = eprev;
      d[i * total + tid] = dprev;
    }
  }
  const int nout = live ? tk.nout : 0;
  T* out[3];
  T cout[3];
  for (int o = 0; o < 3; ++o) {
    out[o] = o < nout ? gp + tk.out_row[o] * mx : nullptr;
    cout[o] = o < nout ? T(tk.cout[o]) : T(0);
  }
  const long long key_before = __shfl_up_sync(kFull, key, 1);
  const bool head = lane == 0 || key_before != key;
  T x = 0;
  for (long long i = mx - 1; i >= 0; --i) {
    if (live) x = d[i * total + tid] + e[i * total + tid] * x;
    for (int o = 0; o < 3; ++o) {
      T v = cout[o] * x;
      for (int off = 1; off < 32; off <<= 1) {
        const T other = __shfl_down_sync(kFull, v, off);
        const long long okey = __shfl_down_sync(kFull, key, off);
        if (lane + off < 32 && okey == key) v += other;
      }
      if (head && o < nout) atomicAdd(out[o] + i, v);
    }
  }
}

// Back substitution: copy the inner rows of a level to their slots and zero them (they receive
// the sums). pairs[2q] = row, pairs[2q+1] = slot.
template <class T>
__global__ void take_inner(const long long* __restrict__ pairs, int npairs, int nplanes, T* g, T* inner, long long mx,
                           long long plane_size, long long inner_plane) {
  const long long total = (long long)npairs * nplanes * mx;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
       t += (long long)gridDim.x * blockDim.x) {
    const long long i = t % mx, q = (t / mx) % npairs, plane = t / (mx * npairs);
    T* row = g + plane * plane_size + pairs[2 * q] * mx;
    inner[plane * inner_plane + pairs[2 * q + 1] * mx + i] = row[i];
    row[i] = 0;
  }
}

struct Pass {
  bool back = false;
  int ntasks = 0, nint = 0, npairs = 0;
  DeviceArray<Task> tasks;
  DeviceArray<long long> pairs;
};

}  // namespace

template <class T>
struct PoissonCuda<T>::Impl {
  PoissonBox box;
  PoissonMethod method = PoissonMethod::fft;
  std::array<long long, 3> m{1, 1, 1};
  // fft
  std::vector<std::unique_ptr<AxisDst<T>>> axes;  // every axis (fft) or z only (3D bcr)
  DeviceArray<T> ext, ex, ey, ez;
  DeviceArray<typename Cufft<T>::complex> spectrum;
  T norm = 1;
  // bcr
  long long mx = 1, my = 1, nplanes = 1, inner_slots = 0, max_threads = 0;
  T rho = 0, pre_scale = 1;
  std::vector<Pass> passes;
  DeviceArray<T> plane_base, inner, scratch;

  void make_transforms(const std::vector<int>& which) {
    std::size_t next = 0, nout = 0;
    for (int a : which) {
      axes.push_back(std::make_unique<AxisDst<T>>(a, m));
      next = std::max(next, axes.back()->ext_size());
      nout = std::max(nout, axes.back()->out_size());
    }
    ext = DeviceArray<T>(next);
    spectrum = DeviceArray<typename Cufft<T>::complex>(nout);
  }
  void transforms(T* f, cudaStream_t s) {
    for (const auto& ax : axes) ax->run(f, ext.p, spectrum.p, s);
  }

  void make_bcr(int q) {
    // Block rows along y (2D, 3D) or x (1D: one node per block, no coupling along the block).
    const int dim = box.dim;
    const int block_axis = dim == 1 ? 0 : 1;
    const long long n = m[block_axis];
    mx = dim == 1 ? 1 : m[0];
    my = n;
    const double hb = box.h[block_axis];
    rho = dim == 1 ? T(0) : T(hb * hb / (box.h[0] * box.h[0]));
    std::vector<double> base;
    if (dim == 3) {  // DST along z first: plane k carries the shift lambda_k^z / hz^2
      make_transforms({2});
      nplanes = m[2];
      const std::vector<double> lz = eigenvalues(m[2], box.h[2], true);
      for (long long k = 0; k < m[2]; ++k) base.push_back(2 * double(rho) + hb * hb * (box.sigma + lz[std::size_t(k)]));
      pre_scale = T(hb * hb / double(2 * (m[2] + 1)));  // h_y^2 and the DST's normalization
    } else {
      nplanes = 1;
      base.push_back(2 * double(rho) + hb * hb * box.sigma);
      pre_scale = T(hb * hb);
    }
    plane_base.upload(cast<T>(base));
    const int R = detail::top_level(n, q);
    auto build = [&](int r, bool back) {
      const std::vector<detail::Interval> ivs = detail::level_intervals(n, q, r);
      Pass p;
      p.back = back;
      p.nint = int(ivs.size());
      std::vector<Task> tasks;
      std::vector<long long> pairs;
      for (std::size_t t = 0; t < ivs.size(); ++t) {
        const detail::Interval& iv = ivs[t];
        const bool has_a = iv.a >= 1, has_b = iv.b <= n;
        const long long slot0 = (long long)pairs.size() / 2;  // this interval's inner rows: slots slot0 + s
        for (int s = 0; s < iv.nsub && back; ++s) {
          pairs.push_back(iv.sub[s] - 1);
          pairs.push_back(slot0 + s);
        }
        for (long long j = 1; j <= iv.m; ++j) {
          bool used = false;
          for (int s = 0; s < iv.nsub; ++s) used |= (j * (iv.sub[s] - iv.a)) % (iv.m + 1) != 0;
          if (!used) continue;
          Task k{};
          k.shift = detail::k_eigenvalue(iv.m, j);
          k.key = int(t);
          for (int s = 0; s < iv.nsub; ++s) {
            k.in_row[k.nin] = back ? -(slot0 + s) - 1 : iv.sub[s] - 1;
            k.cin[k.nin++] = detail::sine_weight(iv.m, j, iv.sub[s] - iv.a);
          }
          if (back) {
            if (has_a) { k.in_row[k.nin] = iv.a - 1; k.cin[k.nin++] = detail::sine_weight(iv.m, j, 1); }
            if (has_b) { k.in_row[k.nin] = iv.b - 1; k.cin[k.nin++] = detail::sine_weight(iv.m, j, iv.m); }
            for (int s = 0; s < iv.nsub; ++s) {
              k.out_row[k.nout] = iv.sub[s] - 1;
              k.cout[k.nout++] = detail::sine_weight(iv.m, j, iv.sub[s] - iv.a);
            }
          } else {
            if (has_a) { k.out_row[k.nout] = iv.a - 1; k.cout[k.nout++] = detail::sine_weight(iv.m, j, 1); }
            if (has_b) { k.out_row[k.nout] = iv.b - 1; k.cout[k.nout++] = detail::sine_weight(iv.m, j, iv.m); }
          }
          tasks.push_back(k);
        }
      }
      if (tasks.empty()) return;
      p.ntasks = int(tasks.size());
      p.npairs = int(pairs.size() / 2);
      p.tasks = DeviceArray<Task>(tasks.size());
      POISSON_CUDA(cudaMemcpy(p.tasks.p, tasks.data(), tasks.size() * sizeof(Task), cudaMemcpyHostToDevice));
      p.pairs.upload(pairs);
      inner_slots = std::max(inner_slots, (long long)p.npairs);
      max_threads = std::max(max_threads, (long long)p.ntasks * nplanes);
      passes.push_back(std::move(p));
    };
    for (int r = 1; r <= R; ++r) build(r, false);
    for (int r = R + 1; r >= 1; --r) build(r, true);
    inner = DeviceArray<T>(std::size_t(inner_slots * mx * nplanes));
    scratch = DeviceArray<T>(std::size_t(2 * mx * max_threads));
  }

  void run_bcr(T* g, cudaStream_t s) {
    const long long size = m[0] * m[1] * m[2];
    if (box.dim == 3) transforms(g, s);
    scale_array<T><<<blocks_for(size), 256, 0, s>>>(g, size, pre_scale);
    POISSON_LAUNCH("scale_array");
    const long long plane_size = mx * my, inner_plane = inner_slots * mx;
    for (const Pass& p : passes) {
      if (p.back) {
        take_inner<T><<<blocks_for((long long)p.npairs * nplanes * mx), 256, 0, s>>>(
            p.pairs.p, p.npairs, int(nplanes), g, inner.p, mx, plane_size, inner_plane);
        POISSON_LAUNCH("take_inner");
      }
      const long long threads = (long long)p.ntasks * nplanes;
      const int block = 128;
      bcr_level<T><<<int((threads + block - 1) / block), block, 0, s>>>(p.tasks.p, p.ntasks, int(nplanes), p.nint, g,
                                                                        inner.p, mx, plane_size, inner_plane, rho,
                                                                        plane_base.p, scratch.p);
      POISSON_LAUNCH("bcr_level");
    }
    if (box.dim == 3) transforms(g, s);
  }
};

template <class T>
PoissonCuda<T>::PoissonCuda(const PoissonBox& box, PoissonMethod method) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  if (box.dim < 1 || box.dim > 3) throw Error("CUDA Poisson solver: dim must be 1, 2 or 3");
  if (!(box.sigma >= 0)) throw Error("CUDA Poisson solver: the shift sigma must be >= 0");
  s.box = box;
  for (int a = 0; a < 3; ++a) {
    s.m[a] = a < box.dim ? box.m[a] : 1;
    s.box.m[a] = s.m[a];
    if (s.m[a] < 1) throw Error("CUDA Poisson solver: every axis needs at least one interior node");
  }
  if ((long long)s.m[0] * s.m[1] * s.m[2] * 4 > (1LL << 31))
    throw Error("CUDA Poisson solver: the box is too large for 32-bit cuFFT plans");
  s.method = method == PoissonMethod::automatic ? PoissonMethod::fft : method;
  if (s.method == PoissonMethod::fft) {
    std::vector<int> which;
    for (int a = 0; a < box.dim; ++a) which.push_back(a);
    s.make_transforms(which);
    s.ex.upload(cast<T>(eigenvalues(s.m[0], box.h[0], true)));
    s.ey.upload(cast<T>(eigenvalues(s.m[1], box.h[1], box.dim > 1)));
    s.ez.upload(cast<T>(eigenvalues(s.m[2], box.h[2], box.dim > 2)));
    double norm = 1;
    for (int a = 0; a < box.dim; ++a) norm *= 2.0 * double(s.m[a] + 1);
    s.norm = T(1 / norm);
  } else {
    s.make_bcr(s.method == PoissonMethod::bcr4 ? 4 : 2);
  }
}

template <class T>
PoissonCuda<T>::~PoissonCuda() = default;

template <class T>
PoissonMethod PoissonCuda<T>::method() const {
  return impl_->method;
}

template <class T>
void PoissonCuda<T>::solve(T* f, cudaStream_t stream) {
  Impl& s = *impl_;
  if (s.method != PoissonMethod::fft) return s.run_bcr(f, stream);
  s.transforms(f, stream);
  divide_eigen<T><<<blocks_for(s.m[0] * s.m[1] * s.m[2]), 256, 0, stream>>>(
      f, s.ex.p, s.ey.p, s.ez.p, s.m[0], s.m[1], s.m[2], T(s.box.sigma), s.norm);
  POISSON_LAUNCH("divide_eigen");
  s.transforms(f, stream);
}

template class PoissonCuda<float>;
template class PoissonCuda<double>;

}  // namespace tridsim::cr
