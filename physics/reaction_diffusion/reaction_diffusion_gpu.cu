// CUDA side of the reaction-diffusion module's steps (reaction_diffusion.cpp has the schemes and
// the same stages on the CPU): the right-hand side formed in one parallel pass, the increment and
// the update as load/store functors of the block-tridiagonal GPU solvers (solvers/block_tridiagonal/cuda/block_solve.cuh),
// the block rows from rd_stencil.hpp (constant D with douglas: one factored matrix per axis), and
// the reactions as the NVRTC kernels rd_react / rd_linearize compiled from the deck's expressions.
#include "physics/reaction_diffusion/reaction_diffusion_gpu.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "core/cuda_support.cuh"
#include "core/device_expression.hpp"
#include "core/device_halos.cuh"
#include "solvers/block_tridiagonal/cuda/block_solve.cuh"
#include "solvers/block_tridiagonal/cuda/distributed_block_cuda.cuh"
#include "solvers/block_tridiagonal/uniform_blocks.hpp"

namespace tridsim {

namespace {

using cuda::DeviceArray;

// Where a sweep's solution goes: the increment array, or u += x in the last sweep.
template <class T>
struct StageStore {
  T* target;
  int m;
  bool add;
  __device__ void operator()(index_t o, index_t, index_t, int s, T x) const {
    if (add) target[o * m + s] += x;
    else target[o * m + s] = x;
  }
};

// The first sweep's right-hand side at every node and species, in parallel: inside the sweep it
// would run on the lines' sequential chains, one thread (or M) per line.
template <class T>
__global__ void right_hand_side(rd::RightHandSide<T> f, index_t n, T* __restrict__ out) {
  const int m = f.D.m;
  for (index_t e = index_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n * m; e += index_t(gridDim.x) * blockDim.x)
    out[e] = f(e / m, int(e % m));
}

template <class T>
__global__ void species_plane(const T* __restrict__ u, int m, int k, index_t n, T* __restrict__ out) {
  for (index_t o = index_t(blockIdx.x) * blockDim.x + threadIdx.x; o < n; o += index_t(gridDim.x) * blockDim.x)
    out[o] = u[o * m + k];
}

unsigned blocks_for(index_t n) { return unsigned(std::min<index_t>((n + 255) / 256, 65535 * 8)); }

}  // namespace

template <class T>
struct ReactionDiffusionGpu<T>::Impl {
  Setup s;
  index_t N = 0;
  rd::DiffusionMatrix<T> D;  // with a device node pointer
  DeviceArray<T> u, w, Dn, b, R, J;
  mutable DeviceArray<T> plane;
  DeviceArray<unsigned char> fixed;
  DeviceArray<double> coords;  // x of every node index, then y, then z
  cudaKernel_t react = nullptr, linearize = nullptr;
  std::array<blocktri::UniformBlocksDevice<T>, 3> uniform;
  double matrix_dt = -1;
  std::unique_ptr<cuda::DeviceHalos<T>> halos;  // several ranks
  blocktri::gpu::SplitBlockScratch<T> split_scratch;

  bool split(int axis) const { return s.domain && s.domain->layout().split(axis); }

  void launch(cudaKernel_t k, void** args) const {
    TRIDSIM_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(k), dim3(blocks_for(N)), dim3(256), args, 0, nullptr));
  }
  void run_react(double t, double tau) {
    if (!react) return;
    T* up = u.p;
    const unsigned char* fx = fixed.p;
    long long n = N, nx = s.grid.n[0], ny = s.grid.n[1];
    const double *cx = coords.p, *cy = cx + s.grid.n[0], *cz = cy + s.grid.n[1];
    int sub = s.substeps;
    void* args[] = {&up, &fx, &n, &nx, &ny, &cx, &cy, &cz, &t, &tau, &sub};
    launch(react, args);
  }
  void run_linearize(double t) {
    T *up = u.p, *Rp = R.p, *Jp = J.p;
    const unsigned char* fx = fixed.p;
    long long n = N, nx = s.grid.n[0], ny = s.grid.n[1];
    const double *cx = coords.p, *cy = cx + s.grid.n[0], *cz = cy + s.grid.n[1];
    void* args[] = {&up, &Rp, &Jp, &fx, &n, &nx, &ny, &cx, &cy, &cz, &t};
    launch(linearize, args);
  }

  // One ADI step of the increment: the right-hand side into w, the sweeps in place in w, u += du
  // in the last sweep's store.
  void sweeps(double dt, bool li) {
    const int d = s.grid.dim, m = s.m;
    // Constant D with douglas: one factored matrix per axis, except where the hybrid splits
    // few long lines into segments (it takes generated blocks).
    const bool constant = !li && D.node == nullptr;
    auto uniform_rows = [&](int a) {
      return constant && !split(a) && s.solver[std::size_t(a)] != blocktri::BlockGpuAlgorithm::block_pcr;
    };
    if (constant && dt != matrix_dt) {
      for (int a = 0; a < d; ++a) {
        if (!uniform_rows(a)) continue;
        const rd::CoupledRows<T> r = rd::coupled_rows<T>(s.lattice, D, a, dt, nullptr);
        uniform[std::size_t(a)] = blocktri::UniformBlocksDevice<T>(blocktri::UniformBlockMatrix<T>(
            m, s.grid.n[std::size_t(a)], [&](index_t row, int i, int j, T& A, T& B, T& C) { r.entry(0, row, i, j, A, B, C); }));
      }
      matrix_dt = dt;
    }
    if (halos) halos->exchange(u.p);  // the operator reads the neighbours' nodes
    const rd::RightHandSide<T> rhs{s.lattice, D, u.p, b.p, li ? R.p : nullptr, T(dt)};
    right_hand_side<T><<<blocks_for(N * m), 256>>>(rhs, N, w.p);
    TRIDSIM_CUDA_LAUNCH();
    const blocktri::InterleavedAccess<T> load{w.p, m};
    const StageStore<T> to_w{w.p, m, false}, update{u.p, m, true};
    for (int a = 0; a < d; ++a) {
      const tridiag::LineSet L = tridiag::LineSet::dense(s.grid, a);
      const StageStore<T>& store = a == d - 1 ? update : to_w;
      const rd::CoupledRows<T> rows = rd::coupled_rows<T>(s.lattice, D, a, dt, li ? J.p : nullptr);
      if (split(a)) {  // the whole line's rows, across the ranks of the axis
        const AxisSplit& part = s.domain->layout().axes[std::size_t(a)];
        blocktri::gpu::solve_split_lines<T>(
            m, L, tridiag::segment_of(part),
            rd::whole_line_rows(rows, part.global_n, s.deck_dirichlet[a][0], s.deck_dirichlet[a][1]), load, store,
            s.domain->line_comm(a), split_scratch, s.pivoting);
      } else if (uniform_rows(a))
        blocktri::gpu::solve_lines<T>(m, L, uniform[std::size_t(a)], load, store, s.solver[std::size_t(a)], s.pivoting);
      else
        blocktri::gpu::solve_lines<T>(m, L, rows, load, store, s.solver[std::size_t(a)], s.pivoting);
    }
  }
};

template <class T>
ReactionDiffusionGpu<T>::ReactionDiffusionGpu(const Setup& s) : impl_(std::make_unique<Impl>()) {
  Impl& I = *impl_;
  I.s = s;
  I.N = s.grid.size();
  const index_t N = I.N, m = s.m;
  I.u.allocate(N * m);
  I.w.allocate(N * m);
  I.D = s.D;
  I.D.node = nullptr;
  if (s.D_node) {
    I.Dn.upload(s.D_node, N * m * m);
    I.D.node = I.Dn.p;
  }
  if (s.domain && s.domain->distributed()) I.halos = std::make_unique<cuda::DeviceHalos<T>>(*s.domain, int(m));
  if (s.boundary_source) I.b.upload(s.boundary_source, N * m);
  if (s.fixed) I.fixed.upload(s.fixed, N);
  std::vector<double> c;
  for (int a = 0; a < 3; ++a)
    for (index_t i = 0; i < s.grid.n[std::size_t(a)]; ++i) c.push_back(s.grid.coord(a, i));
  I.coords.upload(c.data(), index_t(c.size()));
  if (!s.reaction_source.empty()) {
    const std::string what = "the reactions of reaction_diffusion";
    I.react = reinterpret_cast<cudaKernel_t>(compiled_kernel(s.reaction_source, "rd_react", what));
    I.linearize = reinterpret_cast<cudaKernel_t>(compiled_kernel(s.reaction_source, "rd_linearize", what));
  }
  if (s.linearly_implicit) {
    I.R.allocate(N * m);
    I.J.allocate(N * m * m);
    if (!I.linearize) {  // no reactions: R = J = 0
      TRIDSIM_CUDA(cudaMemset(I.R.p, 0, sizeof(T) * std::size_t(N * m)));
      TRIDSIM_CUDA(cudaMemset(I.J.p, 0, sizeof(T) * std::size_t(N * m * m)));
    }
  }
}

template <class T>
ReactionDiffusionGpu<T>::~ReactionDiffusionGpu() = default;

template <class T>
void ReactionDiffusionGpu<T>::upload_u(const T* u) {
  impl_->u.upload(u, impl_->N * impl_->s.m);
}

template <class T>
void ReactionDiffusionGpu<T>::download_u(T* u) const {
  TRIDSIM_CUDA(cudaMemcpy(u, impl_->u.p, sizeof(T) * std::size_t(impl_->N * impl_->s.m), cudaMemcpyDeviceToHost));
}

template <class T>
void ReactionDiffusionGpu<T>::step_douglas(double t, double dt) {
  impl_->run_react(t, 0.5 * dt);
  impl_->sweeps(dt, false);
  impl_->run_react(t + 0.5 * dt, 0.5 * dt);
}

template <class T>
void ReactionDiffusionGpu<T>::step_linearly_implicit(double t, double dt) {
  if (impl_->linearize) impl_->run_linearize(t + 0.5 * dt);
  impl_->sweeps(dt, true);
}

template <class T>
void ReactionDiffusionGpu<T>::synchronize() {
  TRIDSIM_CUDA(cudaDeviceSynchronize());
}

template <class T>
FieldStats ReactionDiffusionGpu<T>::stats(const StatsSpec& spec, int k) const {
  const Impl& I = *impl_;
  if (I.plane.n != I.N) I.plane.allocate(I.N);
  species_plane<T><<<blocks_for(I.N), 256>>>(I.u.p, I.s.m, k, I.N, I.plane.p);
  TRIDSIM_CUDA_LAUNCH();
  return field_stats_cuda(spec, I.plane.p);
}

template class ReactionDiffusionGpu<float>;
template class ReactionDiffusionGpu<double>;

}  // namespace tridsim
