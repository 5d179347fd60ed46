#pragma once
// BVP module (namespace tridsim): the steady two-point problem -u'' = f on [lo, hi] (a 1D grid)
// with a Dirichlet or Neumann condition at each end, discretized by the 3-point difference
// (physics/bvp/discretization.hpp) and solved once as two linear recurrences
// (solvers/recurrence/):
//   algorithm:  sequential (the paper's A1) | divide-and-conquer (A2) | auto
//   arithmetic: double | float | mixed (A2SD) | compensated | auto
// u is stored in the deck's precision (double for arithmetic double, float for the others).
// With `exact:` the run reports the error norms and the relative error (14) of the paper.
// Under MPI the line is split over the ranks (divide-and-conquer, the carries crossing ranks:
// rec::solve_divide_conquer_part); every array covers this rank's local nodes.
#include <memory>
#include <optional>

#include "core/aligned.hpp"
#include "core/module.hpp"
#include "physics/bvp/discretization.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace tridsim {

template <class T>
class BvpGpu;

template <class T>
class BvpModule final : public Module {
 public:
  BvpModule();
  ~BvpModule() override;
  void setup(const Grid& grid, const DeckNode& section, const SetupContext& context, double t0) override;
  void step(double t, double dt) override;
  std::vector<FieldRef> fields() override;
  std::vector<Diagnostic> diagnostics(double t) override;
  std::optional<ErrorNorms> error_norms(double t) override;
  bool steady() const override { return true; }
  bool distributes() const override { return true; }
  double arrays_per_point() const override { return 3; }  // u, f and the recurrence work space

  const AlignedVector<T>& solution() const { return u_; }
  rec::Algorithm algorithm() const { return algorithm_; }
  rec::Arithmetic arithmetic() const { return arithmetic_; }
  // Relative error (14) over all nodes, after step(), when the deck gives an exact solution.
  std::optional<double> relative_error();

 private:
  void compute_errors();
  void solve_part();  // this rank's part of the split line

  Grid g_, local_;  // the whole grid; the nodes of u_ (the whole grid, or this rank's local box)
  const Domain* domain_ = nullptr;  // the ranks the line is split over (null: one process)
  bvp::Nodes held_;
  rec::Algorithm algorithm_ = rec::Algorithm::automatic;
  rec::Arithmetic arithmetic_ = rec::Arithmetic::automatic;
  index_t column_length_ = 0;  // 0: the solver's default
  bool gpu_ = false, gpu_host_carries_ = false;
  bvp::System system_;
  std::optional<Expression> exact_;
  double solve_s_ = 0, t0_ = 0;
  bool solved_ = false, errors_done_ = false;
  double err_l2_ = 0, err_max_ = 0, err_rel_ = 0;
  AlignedVector<T> u_, err_;
};

}  // namespace tridsim
