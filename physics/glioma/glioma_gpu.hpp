#pragma once
// The glioma module's density and steps on a CUDA device (namespace tridsim). GliomaModule keeps
// the deck, tissue maps and output logic; the density c and the diffusivity D stay in device memory
// and c crosses to the host only for output. Same discretization and order of operations as the
// CPU path (glioma.cpp), so both backends agree to rounding.
#include <array>
#include <memory>

#include "core/domain.hpp"
#include "core/field_stats.hpp"
#include "core/grid.hpp"
#include "solvers/tridiagonal/line_solvers.hpp"

namespace tridsim {

template <class T>
class GliomaGpu {
 public:
  // D: host node diffusivities (grid.size() values, x fastest); rho: proliferation rate; the
  // line solver of each axis. Several ranks (`domain`): grid is this rank's local box, lines along
  // split axes are solved across the ranks and the halos of c exchanged before each step.
  GliomaGpu(const Grid& grid, const T* D, double rho, const std::array<tridiag::GpuAlgorithm, 3>& solver,
            const Domain* domain = nullptr);
  ~GliomaGpu();
  GliomaGpu(const GliomaGpu&) = delete;
  GliomaGpu& operator=(const GliomaGpu&) = delete;

  void upload_c(const T* c);
  void download_c(T* c) const;
  // Strang step: both half reactions are fused into the ADI sweeps (no separate pass).
  // The steps are queued on the default stream; synchronize() waits for them (and reports
  // their errors).
  void step_adi(double dt);
  void step_explicit(double dt);
  void synchronize();
  // Statistics of c, reduced on the device (core/field_stats.hpp).
  FieldStats stats(const StatsSpec& s) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tridsim
