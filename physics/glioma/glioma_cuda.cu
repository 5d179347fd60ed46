// The glioma module's schemes (scheme.hpp) on the cuda backend: the CUDA executor.
#include "physics/glioma/scheme.hpp"
#include "solvers/exec/cuda.cuh"

namespace tridsim::glioma {

template <class T>
std::unique_ptr<Stepper<T>> make_cuda_stepper(const Grid& grid, const Domain* domain,
                                              const std::array<tridiag::GpuAlgorithm, 3>& alg, const T* D, double rho) {
  return std::make_unique<Scheme<T, exec::CudaExec<T>>>(grid, domain, alg, D, rho);
}
template std::unique_ptr<Stepper<float>> make_cuda_stepper(const Grid&, const Domain*,
                                                           const std::array<tridiag::GpuAlgorithm, 3>&, const float*,
                                                           double);
template std::unique_ptr<Stepper<double>> make_cuda_stepper(const Grid&, const Domain*,
                                                            const std::array<tridiag::GpuAlgorithm, 3>&,
                                                            const double*, double);

}  // namespace tridsim::glioma
