#pragma once
// The poisson module's cuda backend (namespace tridsim): the right-hand side goes to the device
// once, is solved there (solvers/cyclic_reduction/cuda/poisson_cuda.hpp) and the solution comes
// back once. Refinement runs on the device, only with `refine: on` (cr::PoissonCuda). Built only
// with CUDA.
#include <memory>

#include "solvers/cyclic_reduction/poisson_box.hpp"

namespace tridsim {

template <class T>
class PoissonGpu {
 public:
  PoissonGpu(const cr::PoissonBox& box, cr::PoissonMethod method, cr::Refine refine = cr::Refine::automatic);
  ~PoissonGpu();
  cr::PoissonMethod method() const;
  // f (host, box.size() values) in, u out.
  void solve(T* f);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tridsim
