#pragma once
// Poisson module (namespace tridsim): the steady problem -Lap u = f on a rectangle / box with
// Dirichlet values on every face (expressions of x, y, z), vertex-centred 5- / 7-point differences
// (3-point in 1D), solved once by a fast direct method (solvers/cyclic_reduction/poisson.hpp):
//   bcr (radix-2 block cyclic reduction), bcr4 (radix-4), fft (sine transforms), auto.
// f is an expression or a dataset of an HDF5 file over the grid's nodes. With `exact:` the
// run reports the error norms and writes the error field next to u.
#include <memory>
#include <optional>

#include "core/aligned.hpp"
#include "core/module.hpp"
#include "core/boundary.hpp"
#include "solvers/cyclic_reduction/poisson.hpp"

namespace tridsim {

template <class T>
class PoissonGpu;

template <class T>
class PoissonModule final : public Module {
 public:
  PoissonModule();
  ~PoissonModule() override;
  void setup(const Grid& grid, const DeckNode& section, const SetupContext& context, double t0) override;
  void step(double t, double dt) override;
  std::vector<FieldRef> fields() override;
  std::vector<Diagnostic> diagnostics(double t) override;
  std::optional<ErrorNorms> error_norms(double t) override;
  bool steady() const override { return true; }
  double arrays_per_point() const override { return 8; }  // u, f, the exact solution and the cyclic-reduction work space

  const AlignedVector<T>& solution() const { return u_; }
  cr::PoissonMethod method() const { return method_; }
  // ||f - A u||_2 / ||f||_2 over the interior nodes (boundary data moved into f), after step().
  double relative_residual() const { return residual_; }

 private:
  void form_rhs(T* rhs) const;  // f at the interior nodes plus the Dirichlet neighbours / h^2
  cr::PoissonBox interior_box() const;

  Grid g_;
  Boundary bc_;
  cr::PoissonMethod method_ = cr::PoissonMethod::automatic;
  cr::Refine refine_ = cr::Refine::automatic;
  std::optional<Expression> exact_;
  double t0_ = 0, residual_ = 0;
  bool solved_ = false;
  AlignedVector<T> u_, f_, err_;  // over all nodes; f_ only at interior nodes matters
  std::unique_ptr<cr::PoissonSolver<T>> cpu_;
  std::unique_ptr<PoissonGpu<T>> gpu_;
};

}  // namespace tridsim
