// CUDA side of the glioma module's steps (see glioma.cpp for the schemes): the right-hand side
// and update as load/store functors for the shared GPU line solvers
// (solvers/tridiagonal/cuda/line_solve.cuh), the rows of I - dt/2 A generated from D with
// harmonic face means and no-flux ends (DiffusionRows, core/diffusion.hpp). Both half steps of
// the exact logistic reaction are fused into the sweeps: the x-sweep's load forms dt A L(c)
// with L(c) evaluated on the fly, and the last sweep's store writes c = L(L(c) + dc); a Strang
// step makes three sweeps.
#include "physics/glioma/glioma_gpu.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/cuda_support.cuh"
#include "core/device_halos.cuh"
#include "core/diffusion.hpp"
#include "core/errors.hpp"
#include "physics/glioma/reaction.hpp"
#include "solvers/tridiagonal/cuda/distributed_cuda.cuh"
#include "solvers/tridiagonal/cuda/line_solve.cuh"

namespace tridsim {

namespace {

using cuda::DeviceArray;

// What every kernel needs: grid, D, and the coefficients of the current step.
template <class T>
struct View {
  int dim;
  index_t n[3], sy, sz;
  const T* D;
  T coef[3];  // dt / h^2: the explicit operator
  Logistic<T> logistic;  // the reaction's exact flow over dt/2
  T dt, rho;

  __device__ index_t stride(int a) const { return a == 0 ? 1 : a == 1 ? sy : sz; }
  __device__ T value(const T* u, index_t o, bool react) const { return react ? logistic(u[o]) : u[o]; }
  // dt (A f(u)) at node o = (i, j, k), f = L (react) or the identity; no flux through the box
  // faces (missing neighbours mirrored), summed axis by axis as on the CPU.
  __device__ T op(const T* u, index_t o, const index_t ijk[3], bool react) const {
    T out = T(0);
    const T uo = value(u, o, react);
    for (int a = 0; a < dim; ++a) {
      index_t sm, sp;
      mirrored_neighbours(ijk[a], n[a], stride(a), sm, sp);
      const T kp = face_mean<FaceMean::harmonic>(D[o], D[o + sp]), km = face_mean<FaceMean::harmonic>(D[o], D[o + sm]);
      out += coef[a] * diffusion_difference(km, kp, value(u, o + sm, react), uo, value(u, o + sp, react));
    }
    return out;
  }
};

// ---- right-hand sides (loads) and updates (stores) ------------------------------------------

template <class T>
struct StrangRhs {  // dt A L(c): the first half reaction evaluated on the fly
  View<T> v;
  int axis;
  const T* u;
  __device__ T operator()(index_t o, index_t q, int r) const {
    index_t ijk[3];
    tridiag::line_node(axis, v.n[0], v.n[1], q, r, ijk[0], ijk[1], ijk[2]);
    return v.op(u, o, ijk, true);
  }
};
template <class T>
struct Finish {  // c = L(L(c) + dc): the second half reaction
  View<T> v;
  T* u;
  __device__ void operator()(index_t o, index_t, int, T x) const { u[o] = v.logistic(v.logistic(u[o]) + x); }
};

// Forward Euler: out = c + (dt A c + dt rho c (1 - c)).
template <class T>
__global__ void explicit_step(View<T> v, const T* u, T* out) {
  const index_t N = v.n[0] * v.n[1] * v.n[2];
  for (index_t o = index_t(blockIdx.x) * blockDim.x + threadIdx.x; o < N; o += index_t(gridDim.x) * blockDim.x) {
    const index_t ijk[3] = {o % v.n[0], (o / v.n[0]) % v.n[1], o / (v.n[0] * v.n[1])};
    const T c = u[o];
    out[o] = c + (v.op(u, o, ijk, false) + logistic_increment(v.dt, v.rho, c));
  }
}

}  // namespace

// ---- host side -----------------------------------------------------------------------------

template <class T>
struct GliomaGpu<T>::Impl {
  View<T> view{};
  Grid grid;
  double rho = 0;
  DeviceArray<T> u, du, D;

  std::array<tridiag::GpuAlgorithm, 3> solver{};
  T w[3] = {};  // dt/2 / h^2: line matrices I - w A
  const Domain* domain = nullptr;  // several ranks (null: one)
  std::unique_ptr<cuda::DeviceHalos<T>> halos;
  tridiag::gpu::SplitScratch<T> split_scratch;

  template <class Load, class Store>
  void sweep(int axis, const Load& load, const Store& store) {
    const auto lines = tridiag::LineSet::dense(grid, axis);
    if (domain && domain->layout().split(axis)) {  // the whole line's rows, across the ranks of the axis
      const AxisSplit& part = domain->layout().axes[std::size_t(axis)];
      const DiffusionRows<T, FaceMean::harmonic> rows{view.D, grid.strides()[axis], part.global_n, w[axis], false, false};
      tridiag::gpu::solve_split_lines<T>(lines, tridiag::segment_of(part), rows, load, store,
                                         domain->line_comm(axis), split_scratch);
      return;
    }
    const DiffusionRows<T, FaceMean::harmonic> rows{view.D, grid.strides()[axis], grid.n[axis], w[axis], false, false};
    tridiag::gpu::solve_lines<T>(lines, rows, load, store, solver[axis]);
  }
  void exchange_halos() {  // the operator reads the neighbours' nodes
    if (halos) halos->exchange(u.p);
  }
  void set_step(double dt) {
    for (int a = 0; a < 3; ++a) {
      const double h = grid.h(a);
      w[a] = a < grid.dim ? T(0.5 * dt / (h * h)) : T(0);
      view.coef[a] = a < grid.dim ? T(dt) / T(h * h) : T(0);
    }
    view.logistic = Logistic<T>(rho, 0.5 * dt);
    view.dt = T(dt);
  }
};

template <class T>
GliomaGpu<T>::GliomaGpu(const Grid& grid, const T* D, double rho, const std::array<tridiag::GpuAlgorithm, 3>& solver,
                        const Domain* domain)
    : impl_(std::make_unique<Impl>()) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) throw Error("backend cuda: no CUDA device is present");
  auto& I = *impl_;
  I.grid = grid;
  I.rho = rho;
  I.solver = solver;
  I.domain = domain && domain->distributed() ? domain : nullptr;
  if (I.domain) I.halos = std::make_unique<cuda::DeviceHalos<T>>(*I.domain, 1);
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
  I.exchange_halos();
  const int d = I.grid.dim;
  const StrangRhs<T> rhs{I.view, 0, I.u.p};
  const Finish<T> finish{I.view, I.u.p};
  const tridiag::gpu::ArrayLoad<T> load_du{I.du.p};
  const tridiag::gpu::ArrayStore<T> store_du{I.du.p};
  if (d == 1) {
    I.sweep(0, rhs, finish);
  } else {
    I.sweep(0, rhs, store_du);
    for (int a = 1; a < d; ++a) {
      if (a < d - 1) I.sweep(a, load_du, store_du);
      else I.sweep(a, load_du, finish);
    }
  }
}

template <class T>
void GliomaGpu<T>::synchronize() {
  TRIDSIM_CUDA(cudaDeviceSynchronize());
}

template <class T>
void GliomaGpu<T>::step_explicit(double dt) {
  auto& I = *impl_;
  I.set_step(dt);
  I.exchange_halos();
  const index_t N = I.grid.size();
  const unsigned blocks = unsigned(std::min<index_t>((N + 255) / 256, 65536));
  explicit_step<T><<<blocks, 256>>>(I.view, I.u.p, I.du.p);
  TRIDSIM_CUDA_LAUNCH();
  std::swap(I.u.p, I.du.p);
}

template <class T>
FieldStats GliomaGpu<T>::stats(const StatsSpec& s) const {
  return field_stats_cuda(s, impl_->u.p);
}

template class GliomaGpu<float>;
template class GliomaGpu<double>;

}  // namespace tridsim
