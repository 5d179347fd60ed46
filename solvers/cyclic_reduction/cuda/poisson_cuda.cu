// CUDA fast Poisson solvers: see poisson_cuda.hpp.
#include "solvers/cyclic_reduction/cuda/poisson_cuda.hpp"

#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/cuda_support.cuh"
#include "core/errors.hpp"
#include "solvers/cyclic_reduction/bcr_levels.hpp"
#include "solvers/cyclic_reduction/cuda/bcr_kernel.cuh"
#include "solvers/cyclic_reduction/poisson_stencil.hpp"

namespace tridsim::cr {

namespace {

using cuda::DeviceArray;

void check_cufft(cufftResult r, const char* what, const char* file, int line) {
  if (r != CUFFT_SUCCESS)
    throw Error(std::string("cuFFT error ") + std::to_string(int(r)) + " at " + file + ":" + std::to_string(line) +
                " in " + what);
}
#define POISSON_CUFFT(call) check_cufft((call), #call, __FILE__, __LINE__)

template <class T>
void upload(DeviceArray<T>& a, const std::vector<T>& v) {
  a.upload(v.data(), index_t(v.size()));
}

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
      POISSON_CUFFT(cufftPlanMany(&plan, 1, &n, &inembed, lines, 1, &onembed, lines, 1, Cufft<T>::type, lines));
    else
      POISSON_CUFFT(cufftPlanMany(&plan, 1, &n, &inembed, 1, int(g.N), &onembed, 1, int(g.N / 2 + 1), Cufft<T>::type,
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
    TRIDSIM_CUDA_LAUNCH();
    POISSON_CUFFT(cufftSetStream(plan, s));
    POISSON_CUFFT(Cufft<T>::exec(plan, ext, out));
    dst_unpack<T><<<blocks_for(g.lines * g.m), 256, 0, s>>>(out, x, g);
    TRIDSIM_CUDA_LAUNCH();
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

// r = f - (-Lap_h + sigma) u (zero values outside the box), then the refinement's u += r.
template <class T>
__global__ void residual(const T* __restrict__ u, const T* __restrict__ f, T* __restrict__ r, long long mx,
                         long long my, long long mz, double ix, double iy, double iz, double sigma) {
  const long long total = mx * my * mz;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
       t += (long long)gridDim.x * blockDim.x) {
    const long long i = t % mx, j = (t / mx) % my, k = t / (mx * my);  // x-fastest
    r[t] = T(double(f[t]) - apply_poisson(u, i, j, k, mx, my, mz, ix, iy, iz, sigma));
  }
}
template <class T>
__global__ void add_to(T* __restrict__ u, const T* __restrict__ r, long long n) {
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n; t += (long long)gridDim.x * blockDim.x)
    u[t] += r[t];
}

template <class T>
using LevelKernel = void (*)(const detail::BcrTask*, const detail::BcrChunk*, T*, const T*, long long, long long,
                             long long, double, const double*);

// The instantiation of bcr_level_kernel for S rows per thread and nout output rows per task.
template <class T, int S>
LevelKernel<T> level_kernel_for(int nout) {
  if (nout == 1) return detail::bcr_level_kernel<T, S, 1>;
  if (nout == 2) return detail::bcr_level_kernel<T, S, 2>;
  return detail::bcr_level_kernel<T, S, 3>;
}
template <class T>
LevelKernel<T> level_kernel(int S, int nout) {
  if (S == 4) return level_kernel_for<T, 4>(nout);
  if (S == 8) return level_kernel_for<T, 8>(nout);
  return level_kernel_for<T, 16>(nout);
}

// One level of the reduction or back substitution: its tasks (grouped by interval), the chunks
// of them that the blocks take, and its kernel with the shared memory it is launched with.
template <class T>
struct Pass {
  bool back = false;
  int nout = 0, npairs = 0, nchunks = 0;
  DeviceArray<detail::BcrTask> tasks;
  DeviceArray<detail::BcrChunk> chunks;
  DeviceArray<long long> pairs;
  LevelKernel<T> kernel = nullptr;
  std::size_t smem = 0;
};

// The kernel's rows per thread S (a power of two, at least 4) and threads per block P (a
// multiple of 32, at most 512) for lines of length L.
struct LineSplit {
  int S = 4, P = 32;
};
LineSplit split_line(long long L) {
  LineSplit s;
  while ((L + s.S - 1) / s.S > 512) s.S *= 2;
  s.P = int(std::max<long long>(32, ((L + s.S - 1) / s.S + 31) / 32 * 32));
  return s;
}
std::size_t level_smem(const LineSplit& s, int nout, std::size_t value_size) {
  return value_size * (std::size_t(nout) * s.S * (s.P + 1) + 64) + 2 * sizeof(detail::ToeplitzConstants<double>);
}

// `auto` on the GPU: BCR where bench_gpu_poisson finds it faster than cuFFT (docs/performance.md:
// from 1023^2 in 2D and 127^3 in 3D, double and float) and its x lines fit the kernel, fft
// otherwise. bcr4, but bcr for x lines over 4096 nodes (16 rows per thread, where bcr4's three-row
// back substitution spills registers and bcr is the faster, docs/performance.md).
PoissonMethod automatic_method(const PoissonBox& b) {
  const bool large = (b.dim == 2 && b.size() >= 1023LL * 1023) || (b.dim == 3 && b.size() >= 127LL * 127 * 127);
  if (!large || b.m[0] > 8192) return PoissonMethod::fft;
  return b.m[0] > 4096 ? PoissonMethod::bcr : PoissonMethod::bcr4;
}

}  // namespace

template <class T>
struct PoissonCuda<T>::Impl {
  PoissonBox box;
  PoissonMethod method = PoissonMethod::fft;
  bool refine = false;
  std::array<long long, 3> m{1, 1, 1};
  // fft
  std::vector<std::unique_ptr<AxisDst<T>>> axes;  // every axis (fft) or z only (3D bcr)
  DeviceArray<T> ext, ex, ey, ez;
  DeviceArray<typename Cufft<T>::complex> spectrum;
  T norm = 1;
  // bcr
  long long mx = 1, my = 1, nplanes = 1, inner_slots = 0;
  double rho = 0;
  T pre_scale = 1;
  LineSplit line;
  std::vector<Pass<T>> passes;
  DeviceArray<double> plane_excess;
  DeviceArray<T> inner;
  // refinement
  DeviceArray<T> rhs, res;

  void make_transforms(const std::vector<int>& which) {
    std::size_t next = 0, nout = 0;
    for (int a : which) {
      axes.push_back(std::make_unique<AxisDst<T>>(a, m));
      next = std::max(next, axes.back()->ext_size());
      nout = std::max(nout, axes.back()->out_size());
    }
    ext.allocate(index_t(next));
    spectrum.allocate(index_t(nout));
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
    rho = dim == 1 ? 0.0 : hb * hb / (box.h[0] * box.h[0]);
    // The diagonal of a sub-problem, less the 2 rho of the Laplacian along x, before its shift.
    std::vector<double> excess;
    if (dim == 3) {  // DST along z first: plane k carries the shift lambda_k^z / hz^2
      make_transforms({2});
      nplanes = m[2];
      const std::vector<double> lz = eigenvalues(m[2], box.h[2], true);
      for (long long k = 0; k < m[2]; ++k) excess.push_back(hb * hb * (box.sigma + lz[std::size_t(k)]));
      pre_scale = T(hb * hb / double(2 * (m[2] + 1)));  // h_y^2 and the DST's normalization
    } else {
      nplanes = 1;
      excess.push_back(hb * hb * box.sigma);
      pre_scale = T(hb * hb);
    }
    upload(plane_excess, excess);
    line = split_line(mx);
    int device = 0, smem_optin = 0, sms = 1;
    TRIDSIM_CUDA(cudaGetDevice(&device));
    TRIDSIM_CUDA(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    TRIDSIM_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    if (line.S > 16 || level_smem(line, q == 4 ? 3 : 2, sizeof(T)) > std::size_t(smem_optin))
      throw Error("CUDA Poisson solver: " + std::to_string(mx) + " interior nodes along x are too many for method " +
                  std::string(q == 4 ? "bcr4" : "bcr") + " (at most 8192); use method fft");
    const int R = detail::top_level(n, q);
    auto build = [&](int r, bool back) {
      const std::vector<detail::Interval> ivs = detail::level_intervals(n, q, r);
      Pass<T> p;
      p.back = back;
      std::vector<detail::BcrTask> tasks;
      std::vector<int> interval_start;
      std::vector<long long> pairs;
      for (const detail::Interval& iv : ivs) {
        const bool has_a = iv.a >= 1, has_b = iv.b <= n;
        const long long slot0 = (long long)pairs.size() / 2;  // this interval's inner rows: slots slot0 + s
        for (int s = 0; s < iv.nsub && back; ++s) {
          pairs.push_back(iv.sub[s] - 1);
          pairs.push_back(slot0 + s);
        }
        interval_start.push_back(int(tasks.size()));
        for (long long j = 1; j <= iv.m; ++j) {
          bool used = false;
          for (int s = 0; s < iv.nsub; ++s) used |= (j * (iv.sub[s] - iv.a)) % (iv.m + 1) != 0;
          if (!used) continue;
          detail::BcrTask k{};
          k.shift = detail::k_eigenvalue(iv.m, j);
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
          p.nout = std::max(p.nout, k.nout);
          tasks.push_back(k);
        }
      }
      if (tasks.empty() || p.nout == 0) return;
      interval_start.push_back(int(tasks.size()));
      // Chunks: enough blocks to fill the device about twice over; the tasks of an interval
      // beyond that share a block (fewer atomic adds to its output rows). Of 2, 4, 8 and 16
      // times over, twice is the fastest in bench_gpu_poisson (bcr4 at 4095^2).
      const long long target = 2LL * sms * std::max(1, 1024 / line.P);
      const int per_chunk = int(std::max<long long>(1, (long long)tasks.size() * nplanes / target));
      std::vector<detail::BcrChunk> chunks;
      for (std::size_t t = 0; t + 1 < interval_start.size(); ++t)
        for (int b = interval_start[t]; b < interval_start[t + 1]; b += per_chunk)
          chunks.push_back({b, std::min(per_chunk, interval_start[t + 1] - b)});
      p.npairs = int(pairs.size() / 2);
      p.nchunks = int(chunks.size());
      p.tasks.upload(tasks.data(), index_t(tasks.size()));
      p.chunks.upload(chunks.data(), index_t(chunks.size()));
      p.kernel = level_kernel<T>(line.S, p.nout);
      p.smem = level_smem(line, p.nout, sizeof(T));
      TRIDSIM_CUDA(cudaFuncSetAttribute(p.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(p.smem)));
      upload(p.pairs, pairs);
      inner_slots = std::max(inner_slots, (long long)p.npairs);
      passes.push_back(std::move(p));
    };
    for (int r = 1; r <= R; ++r) build(r, false);
    for (int r = R + 1; r >= 1; --r) build(r, true);
    inner.allocate(index_t(inner_slots * mx * nplanes));
  }

  void run_bcr(T* g, cudaStream_t s) {
    const long long size = m[0] * m[1] * m[2];
    if (box.dim == 3) transforms(g, s);
    scale_array<T><<<blocks_for(size), 256, 0, s>>>(g, size, pre_scale);
    TRIDSIM_CUDA_LAUNCH();
    const long long plane_size = mx * my, inner_plane = inner_slots * mx;
    for (const Pass<T>& p : passes) {
      if (p.back) {
        take_inner<T><<<blocks_for((long long)p.npairs * nplanes * mx), 256, 0, s>>>(
            p.pairs.p, p.npairs, int(nplanes), g, inner.p, mx, plane_size, inner_plane);
        TRIDSIM_CUDA_LAUNCH();
      }
      p.kernel<<<dim3(unsigned(p.nchunks), unsigned(nplanes)), unsigned(line.P), p.smem, s>>>(
          p.tasks.p, p.chunks.p, g, inner.p, mx, plane_size, inner_plane, rho, plane_excess.p);
      TRIDSIM_CUDA_LAUNCH();
    }
    if (box.dim == 3) transforms(g, s);
  }

  void run_fft(T* f, cudaStream_t s) {
    transforms(f, s);
    divide_eigen<T><<<blocks_for(m[0] * m[1] * m[2]), 256, 0, s>>>(f, ex.p, ey.p, ez.p, m[0], m[1], m[2],
                                                                   T(box.sigma), norm);
    TRIDSIM_CUDA_LAUNCH();
    transforms(f, s);
  }
  void solve_once(T* f, cudaStream_t s) {
    if (method == PoissonMethod::fft) run_fft(f, s);
    else run_bcr(f, s);
  }
};

template <class T>
PoissonCuda<T>::PoissonCuda(const PoissonBox& box, PoissonMethod method, Refine refine)
    : impl_(std::make_unique<Impl>()) {
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
  s.method = method == PoissonMethod::automatic ? automatic_method(s.box) : method;
  // The GPU's BCR (Thomas in scan form) meets the 1e-12 residual at 8191^2 without refinement
  // (test_gpu_poisson), so `automatic` does not refine here.
  s.refine = refine == Refine::on;
  if (s.method == PoissonMethod::fft) {
    std::vector<int> which;
    for (int a = 0; a < box.dim; ++a) which.push_back(a);
    s.make_transforms(which);
    upload(s.ex, cast<T>(eigenvalues(s.m[0], box.h[0], true)));
    upload(s.ey, cast<T>(eigenvalues(s.m[1], box.h[1], box.dim > 1)));
    upload(s.ez, cast<T>(eigenvalues(s.m[2], box.h[2], box.dim > 2)));
    double norm = 1;
    for (int a = 0; a < box.dim; ++a) norm *= 2.0 * double(s.m[a] + 1);
    s.norm = T(1 / norm);
  } else {
    s.make_bcr(s.method == PoissonMethod::bcr4 ? 4 : 2);
  }
  if (s.refine) {
    s.rhs.allocate(s.box.size());
    s.res.allocate(s.box.size());
  }
}

template <class T>
PoissonCuda<T>::~PoissonCuda() = default;

template <class T>
PoissonMethod PoissonCuda<T>::method() const {
  return impl_->method;
}
template <class T>
bool PoissonCuda<T>::refines() const {
  return impl_->refine;
}

template <class T>
void PoissonCuda<T>::solve(T* f, cudaStream_t stream) {
  Impl& s = *impl_;
  if (!s.refine) return s.solve_once(f, stream);
  // One step of iterative refinement: u = A^{-1} f; u += A^{-1} (f - A u).
  const long long n = s.box.size();
  const auto& h = s.box.h;
  TRIDSIM_CUDA(cudaMemcpyAsync(s.rhs.p, f, sizeof(T) * n, cudaMemcpyDeviceToDevice, stream));
  s.solve_once(f, stream);
  residual<T><<<blocks_for(n), 256, 0, stream>>>(f, s.rhs.p, s.res.p, s.m[0], s.m[1], s.m[2], 1 / (h[0] * h[0]),
                                                 s.box.dim > 1 ? 1 / (h[1] * h[1]) : 0.0,
                                                 s.box.dim > 2 ? 1 / (h[2] * h[2]) : 0.0, s.box.sigma);
  TRIDSIM_CUDA_LAUNCH();
  s.solve_once(s.res.p, stream);
  add_to<T><<<blocks_for(n), 256, 0, stream>>>(f, s.res.p, n);
  TRIDSIM_CUDA_LAUNCH();
}

template class PoissonCuda<float>;
template class PoissonCuda<double>;

}  // namespace tridsim::cr
