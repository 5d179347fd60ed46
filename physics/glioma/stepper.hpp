#pragma once
// The glioma module's fields and steps on the backend that holds them (namespace tridsim::glioma):
// GliomaModule keeps the deck, tissue maps and outputs, a Stepper the density c, the diffusivity and
// the schemes (scheme.hpp, written once). make_host_stepper (glioma.cpp) runs them on the CPU,
// make_cuda_stepper (glioma_cuda.cu, CUDA builds) on a device, where c crosses to the host only
// for output and checkpoints.
#include <array>
#include <memory>

#include "core/domain.hpp"
#include "core/field_stats.hpp"
#include "core/grid.hpp"
#include "solvers/tridiagonal/line_set.hpp"
#include "solvers/tridiagonal/line_solvers.hpp"

namespace tridsim::glioma {

template <class T>
class Stepper {
 public:
  virtual ~Stepper() = default;
  virtual void set_density(const T* c) = 0;  // from the host (grid.size() values, x fastest)
  virtual void get_density(T* c) = 0;        // to the host
  // Strang splitting with Douglas ADI, and forward Euler (scheme.hpp). Queued on a device; wait()
  // waits for them (and reports their errors).
  virtual void step_adi(double dt) = 0;
  virtual void step_explicit(double dt) = 0;
  virtual void wait() = 0;
  virtual FieldStats stats(const StatsSpec& s) = 0;  // of c
};

// grid: this process's box; domain: set when it is split over ranks (lines along split axes are
// solved across them, the halos of c exchanged before each step); alg: each axis's line solver;
// D: the node diffusivities on the host; rho: the proliferation rate.
template <class T>
std::unique_ptr<Stepper<T>> make_host_stepper(const Grid& grid, const Domain* domain,
                                              const std::array<tridiag::Algorithm, 3>& alg, const T* D, double rho);
template <class T>
std::unique_ptr<Stepper<T>> make_cuda_stepper(const Grid& grid, const Domain* domain,
                                              const std::array<tridiag::GpuAlgorithm, 3>& alg, const T* D, double rho);

}  // namespace tridsim::glioma
