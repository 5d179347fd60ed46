#pragma once
// Glioma module (namespace tridsim): the proliferation-invasion (Fisher-Kolmogorov) model of
// tumour growth
//   dc/dt = div(D(x) grad c) + rho c (1 - c)
// in the brain, no flux through its boundary. c is the normalized tumour cell density,
// D = D_white * white + D_grey * grey from the tissue fractions (zero in CSF and background),
// D at a face between two nodes is the harmonic mean of theirs, so a face next to a node
// outside the brain carries no flux and such nodes are decoupled (their rows are identity).
// Schemes:
//   strang-adi: half a step of the logistic reaction solved exactly, one Douglas ADI step of
//               the diffusion (delta form, theta = 1/2), half a step of reaction; second order,
//               unconditionally stable.
//   explicit:   forward Euler on the whole right-hand side (the usual reference), limited by
//               dt <= 1 / (max_i sum_faces D_f / h^2 + rho) (max_stable_dt).
// The schemes are written once (scheme.hpp) and run where the density lives (glioma::Stepper:
// host memory, or a device's with the cuda backend).
#include <memory>
#include <optional>

#include "core/aligned.hpp"
#include "core/module.hpp"
#include "physics/solver_choice.hpp"

namespace tridsim {

namespace glioma {
template <class T>
class Stepper;
}

template <class T>
class GliomaModule final : public Module {
 public:
  double arrays_per_point() const override { return 12; }  // c, tissue maps, diffusivity, reaction and line work space
  GliomaModule();
  ~GliomaModule() override;
  void setup(const Grid& grid, const DeckNode& section, const SetupContext& context, double t0) override;
  void step(double t, double dt) override;
  void wait() override;
  std::vector<FieldRef> fields() override;
  std::vector<Diagnostic> diagnostics(double t) override;
  std::optional<double> max_stable_dt() const override;

  enum class Scheme { strang_adi, explicit_euler };
  static constexpr NameEntry<Scheme> kSchemeNames[] = {
      {"strang-adi", Scheme::strang_adi, "Strang splitting, exact reaction, Douglas ADI"},
      {"explicit", Scheme::explicit_euler, "forward Euler"}};
  Scheme scheme() const { return scheme_; }
  // The current density on the host (copied from the device with the cuda backend).
  const AlignedVector<T>& density();
  std::vector<StateArray> state() override;
  void state_restored() override;
  // Strang-ADI and explicit steps run with the grid split over ranks (cpu backend).
  bool distributes() const override { return true; }
  const AlignedVector<T>& diffusivity() const { return D_; }
  // The explicit stability limit of this grid and D (also reported for strang-adi).
  double explicit_limit() const { return explicit_limit_; }

 private:
  Grid g_;                          // this process's grid: the whole grid, or its local box under MPI
  const Domain* domain_ = nullptr;  // set when the grid is split over ranks
  Scheme scheme_ = Scheme::strang_adi;
  SolverChoice solvers_;  // line solver per axis and backend
  double D_white_ = 0, D_grey_ = 0, rho_ = 0, t1_ = 0, flair_ = 0, explicit_limit_ = 0;
  AlignedVector<T> c_, D_, white_, grey_;    // on the host: c for output and checkpoints
  std::unique_ptr<glioma::Stepper<T>> stepper_;  // c and the steps, where c lives
};

}  // namespace tridsim
