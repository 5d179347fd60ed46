#include "physics/poisson/poisson_gpu.hpp"

#include <cuda_runtime_api.h>

#include <string>

#include "core/aligned.hpp"
#include "core/errors.hpp"
#include "solvers/cyclic_reduction/cuda/poisson_cuda.hpp"
#include "solvers/cyclic_reduction/poisson.hpp"

namespace tridsim {

namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("poisson (cuda): ") + what + ": " + cudaGetErrorString(e));
}
}  // namespace

template <class T>
struct PoissonGpu<T>::Impl {
  cr::PoissonCuda<T> solver;
  cr::PoissonBox box;
  bool refine = false;
  T* d = nullptr;
  index_t size = 0;
  Impl(const cr::PoissonBox& b, cr::PoissonMethod method) : solver(b, method), box(b), size(b.size()) {
    check(cudaMalloc(reinterpret_cast<void**>(&d), sizeof(T) * size), "cudaMalloc");
  }
  ~Impl() { cudaFree(d); }
};

template <class T>
PoissonGpu<T>::PoissonGpu(const cr::PoissonBox& box, cr::PoissonMethod method, cr::Refine refine) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
    throw Error("backend cuda: no CUDA device is present (use backend: cpu)");
  impl_ = std::make_unique<Impl>(box, method);
  const cr::PoissonMethod m = impl_->solver.method();
  impl_->refine = refine == cr::Refine::on || (refine == cr::Refine::automatic && m != cr::PoissonMethod::fft &&
                                               box.dim == 2 && box.size() >= index_t(2048) * 2048);
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
  auto device_solve = [&](T* v) {
    check(cudaMemcpy(s.d, v, sizeof(T) * s.size, cudaMemcpyHostToDevice), "upload");
    s.solver.solve(s.d);
    check(cudaMemcpy(v, s.d, sizeof(T) * s.size, cudaMemcpyDeviceToHost), "download");
  };
  if (!s.refine) return device_solve(f);
  AlignedVector<T> rhs(f, f + s.size), r(s.size);
  device_solve(f);
  cr::poisson_residual<T>(s.box, f, rhs.data(), r.data());
  device_solve(r.data());
  for (index_t i = 0; i < s.size; ++i) f[i] += r[i];
}

template class PoissonGpu<float>;
template class PoissonGpu<double>;

}  // namespace tridsim
