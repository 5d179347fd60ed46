#include "physics/poisson/poisson_gpu.hpp"

#include <cuda_runtime_api.h>

#include <string>

#include "core/errors.hpp"
#include "solvers/cyclic_reduction/cuda/poisson_cuda.hpp"

namespace tridsim {

namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("poisson (cuda): ") + what + ": " + cudaGetErrorString(e));
}
}  // namespace

template <class T>
struct PoissonGpu<T>::Impl {
  cr::PoissonCuda<T> solver;
  T* d = nullptr;
  index_t size = 0;
  Impl(const cr::PoissonBox& b, cr::PoissonMethod method, cr::Refine refine)
      : solver(b, method, refine), size(b.size()) {
    check(cudaMalloc(reinterpret_cast<void**>(&d), sizeof(T) * size), "cudaMalloc");
  }
  ~Impl() { cudaFree(d); }
};

template <class T>
PoissonGpu<T>::PoissonGpu(const cr::PoissonBox& box, cr::PoissonMethod method, cr::Refine refine) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
    throw Error("backend cuda: no CUDA device is present (use backend: cpu)");
  impl_ = std::make_unique<Impl>(box, method, refine);
}
template <class T>
PoissonGpu<T>::~PoissonGpu() = default;
template <class T>
cr::PoissonMethod PoissonGpu<T>::method() const {
  return impl_->solver.method();
}
template <class T>
void PoissonGpu<T>::solve(T* f) {
  Impl& s = *impl_;
  check(cudaMemcpy(s.d, f, sizeof(T) * s.size, cudaMemcpyHostToDevice), "upload");
  s.solver.solve(s.d);
  check(cudaMemcpy(f, s.d, sizeof(T) * s.size, cudaMemcpyDeviceToHost), "download");
}

template class PoissonGpu<float>;
template class PoissonGpu<double>;

}  // namespace tridsim
