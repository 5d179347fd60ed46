#pragma once
// The CUDA executor of the backend-generic layer (points.hpp; namespace tridsim::exec): fields in
// device memory, points one thread each, lines by the GPU line solvers (tridiagonal/cuda/
// line_solve.cuh) and, along axes split over ranks, the distributed ones (distributed_cuda.cuh).
// Their contract calls load(o, q, r) and store(o, q, r, x) per element; a point functor gets the
// node's neighbours from (q, r). Work is queued on the default stream; wait() waits for it (and
// reports its errors). Include from .cu files only.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <memory>

#include "core/cuda_support.cuh"
#include "core/device_halos.cuh"
#include "core/errors.hpp"
#include "core/field_stats.hpp"
#include "solvers/exec/points.hpp"
#include "solvers/tridiagonal/cuda/distributed_cuda.cuh"
#include "solvers/tridiagonal/cuda/line_solve.cuh"

namespace tridsim::exec {

// The box's sizes and strides, as the kernels and device functors read them.
struct BoxShape {
  int dim;
  index_t n[3], s[3];
  __device__ Neighbours at(const index_t (&ijk)[3]) const { return neighbours_at(ijk, n, s, dim); }
};

template <class F>
__global__ void for_each_point_kernel(BoxShape b, F f) {
  const index_t N = b.n[0] * b.n[1] * b.n[2];
  for (index_t o = index_t(blockIdx.x) * blockDim.x + threadIdx.x; o < N; o += index_t(gridDim.x) * blockDim.x) {
    const index_t ijk[3] = {o % b.n[0], (o / b.n[0]) % b.n[1], o / (b.n[0] * b.n[1])};
    f(o, b.at(ijk), b.dim);
  }
}

// A point load or store as the line solvers call it.
template <class T, class F>
struct LinePointLoad {
  F f;
  BoxShape b;
  int axis;
  __device__ T operator()(index_t o, index_t q, int r) const {
    index_t ijk[3];
    tridiag::line_node(axis, b.n[0], b.n[1], q, r, ijk[0], ijk[1], ijk[2]);
    return f(o, b.at(ijk), b.dim);
  }
};
template <class T, class F>
struct LinePointStore {
  F f;
  __device__ void operator()(index_t o, index_t, int, T x) const { f(o, x); }
};

template <class T>
class CudaExec {
 public:
  template <class U>
  using Buffer = cuda::DeviceArray<U>;

  // As HostExec's; throws when no device is present.
  CudaExec(const Grid& grid, const Domain* domain, const std::array<tridiag::GpuAlgorithm, 3>& alg)
      : g_(grid), domain_(domain && domain->distributed() ? domain : nullptr), alg_(alg) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) throw Error("backend cuda: no CUDA device is present");
    if (domain_) halos_ = std::make_unique<cuda::DeviceHalos<T>>(*domain_, 1);
    shape_.dim = grid.dim;
    for (int a = 0; a < 3; ++a) shape_.n[a] = grid.n[a], shape_.s[a] = grid.strides()[a];
  }

  const Grid& grid() const { return g_; }
  const Domain* domain() const { return domain_; }

  void allocate(Buffer<T>& b, index_t n) const { b.allocate(n); }
  static T* data(Buffer<T>& b) { return b.p; }
  static const T* data(const Buffer<T>& b) { return b.p; }
  void upload(Buffer<T>& b, const T* host) const {
    TRIDSIM_CUDA(cudaMemcpy(b.p, host, sizeof(T) * std::size_t(b.n), cudaMemcpyHostToDevice));
  }
  void download(const Buffer<T>& b, T* host) const {
    TRIDSIM_CUDA(cudaMemcpy(host, b.p, sizeof(T) * std::size_t(b.n), cudaMemcpyDeviceToHost));
  }
  void exchange_halos(T* u) {
    if (halos_) halos_->exchange(u);
  }
  void wait() const { TRIDSIM_CUDA(cudaDeviceSynchronize()); }
  FieldStats stats(const StatsSpec& s, const T* u) const { return field_stats_cuda(s, u); }

  template <class F>
  void for_each_point(const F& f) const {
    const unsigned blocks = unsigned(std::min<index_t>((g_.size() + 255) / 256, 65536));
    for_each_point_kernel<<<blocks, 256>>>(shape_, f);
    TRIDSIM_CUDA_LAUNCH();
  }

  template <class Rows, class Load, class Store>
  void solve(const tridiag::LineSet& L, const Rows& rows, const Load& load, const Store& store) const {
    tridiag::gpu::solve_lines<T>(L, rows, line_load(load, L.axis), line_store(store), alg_[std::size_t(L.axis)]);
  }
  template <class Rows, class Load, class Store>
  void solve_split(const tridiag::LineSet& L, const tridiag::Segment& seg, const Rows& rows, const Load& load,
                   const Store& store, LineComm& comm) {
    tridiag::gpu::solve_split_lines<T>(L, seg, rows, line_load(load, L.axis), line_store(store), comm, scratch_);
  }

 private:
  // The solvers' functors from the layer's loads and stores (their array forms for plain copies,
  // which the solvers recognise).
  template <class Load>
  auto line_load(const Load& load, int axis) const {
    if constexpr (is_array_v<Load>) return tridiag::gpu::ArrayLoad<T>{load.p};
    else return LinePointLoad<T, Load>{load, shape_, axis};
  }
  template <class Store>
  static auto line_store(const Store& store) {
    if constexpr (is_array_v<Store>) return tridiag::gpu::ArrayStore<T>{store.p};
    else return LinePointStore<T, Store>{store};
  }

  Grid g_;
  const Domain* domain_;
  std::array<tridiag::GpuAlgorithm, 3> alg_;
  BoxShape shape_{};
  std::unique_ptr<cuda::DeviceHalos<T>> halos_;
  tridiag::gpu::SplitScratch<T> scratch_;
};

}  // namespace tridsim::exec
