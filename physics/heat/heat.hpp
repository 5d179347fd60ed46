#pragma once
// Heat module (namespace tridsim): du/dt = div(kappa grad u) + f on a box in 1, 2 or 3 dimensions,
// second order in space (vertex-centred differences, half cells at Neumann faces; periodic faces
// wrap the stencil and the lines around, core/grid.hpp) and time:
//   crank-nicolson (1D: tridiagonal lines; 2D, 3D: unsplit, one sparse system per step),
//   peaceman-rachford (2D), douglas (delta form, theta = 1/2; 2D and 3D).
// Every implicit stage of the line schemes is a batch of tridiagonal line solves whose
// right-hand side is formed inside the solver's load and whose result is applied inside its
// store, so a Douglas step in 3D makes three sweeps over memory and no separate explicit or
// update pass. The unsplit Crank-Nicolson step factors I - dt/2 L once (multifrontal Cholesky,
// solvers/sparse_direct/) and solves with it every step: no splitting error anywhere.
#include <array>
#include <memory>
#include <optional>

#include "core/aligned.hpp"
#include "core/module.hpp"
#include "core/boundary.hpp"
#include "physics/solver_choice.hpp"
#include "solvers/tridiagonal/coefficients.hpp"
#include "solvers/tridiagonal/cyclic.hpp"
#include "solvers/tridiagonal/line_set.hpp"
#include "solvers/tridiagonal/segment_reduction.hpp"

namespace tridsim {

template <class T>
class HeatGpu;
namespace tridiag {
template <class T>
class SplitRhsSums;
}

template <class T>
class HeatModule final : public Module {
 public:
  double arrays_per_point() const override { return 5; }  // u, its host copy, coefficients and line work space
  HeatModule();
  ~HeatModule() override;
  std::array<bool, 3> periodic_axes(const DeckNode& section, int dim) const override {
    return Boundary::periodic_axes(section, dim);
  }
  void setup(const Grid& grid, const DeckNode& section, const SetupContext& context, double t0) override;
  void step(double t, double dt) override;
  void wait() override;
  std::vector<FieldRef> fields() override;
  std::vector<Diagnostic> diagnostics(double t) override;
  std::optional<ErrorNorms> error_norms(double t) override;

  enum class Scheme { crank_nicolson, peaceman_rachford, douglas };
  static constexpr NameEntry<std::optional<Scheme>> kSchemeNames[] = {  // auto: by the grid's dimension
      {"auto", std::nullopt},
      {"crank-nicolson", Scheme::crank_nicolson, "1D lines; 2D, 3D unsplit (multifrontal)"},
      {"peaceman-rachford", Scheme::peaceman_rachford, "2D"},
      {"douglas", Scheme::douglas, "1D-3D"}};
  Scheme scheme() const { return scheme_; }
  // How the implicit systems are solved (`solver`): tridiagonal lines (the key may then also name
  // a line solver, or one per axis) or one sparse system per step. auto: multifrontal for a 2D or
  // 3D crank-nicolson, lines otherwise.
  enum class Solver { lines, multifrontal };
  static constexpr NameEntry<std::optional<Solver>> kSolverNames[] = {
      {"auto", std::nullopt},
      {"lines", Solver::lines, "tridiagonal line solves: ADI, 1D crank-nicolson"},
      {"multifrontal", Solver::multifrontal, "sparse Cholesky of the unsplit crank-nicolson step"}};
  Solver solver() const { return unsplit_ ? Solver::multifrontal : Solver::lines; }
  // Factorizations of the unsplit step's matrix so far (one per run while dt stays the same).
  int factorizations() const;
  // How many of the deck expressions the host evaluates at every step run compiled code (the
  // source, each face's data: core/native_code.hpp's NativeBatch).
  int compiled_expressions() const { return compiled_; }
  // The current u on the host (copied from the device with the cuda backend).
  const AlignedVector<T>& solution();
  std::vector<StateArray> state() override;
  void state_restored() override;
  // Douglas (1D-3D, and 1D crank-nicolson) and Peaceman-Rachford run with the grid split over ranks.
  bool distributes() const override { return true; }

 private:
  struct Run;  // a run of x-adjacent nodes: first node (i0, j, k), width w
  struct HostFaceOps;
  void step_douglas(double t, double dt);
  void step_peaceman_rachford(double t, double dt);
  void prepare_step(double t, double dt);
  template <class Load, class Store>
  void sweep(int axis, double dt, const Load& load, const Store& store,
             const tridiag::SplitRhsSums<T>* summed = nullptr);
  tridiag::SplitRhsSums<T>* start_rhs_sums(int axis, double dt);
  T stage_weight(int axis, double dt) const;  // dt/2 / h^2 of the implicit stage along axis
  tridiag::ConstantDiffusionRows<T> constant_split_rows(int axis, double dt) const;
  Run run_at(index_t offset, index_t w) const;
  bool on_dirichlet_line(const Run& r, int skip_axis) const;
  bool holds_x_end(const Run& r, int side) const;
  void add_operator(int axis, const T* src, const Run& r, T scale, T* out) const;
  void add_flux(int axis, const Run& r, T scale, const std::vector<AlignedVector<T>>& data, T* out) const;
  void add_source(const Run& r, T scale, T* out) const;
  void set_face_rows(int axis, double dt, T* field) const;
  void step_gpu(double t, double dt);
  void read_solver(const DeckNode& s, const SetupContext& ctx, const KeyTable& keys);
  void require_periodic_runs(const DeckNode& s, const SetupContext& ctx, const std::array<bool, 3>& periodic) const;
  void require_neumann_headroom(const DeckNode& s, const std::vector<double>& times, double kappa_max, double dt,
                                double gain2) const;
  struct Unsplit;  // the unsplit Crank-Nicolson step's matrix, solver and data (heat.cpp)
  void setup_unsplit(const DeckNode& s, const SetupContext& ctx, double t0);
  void factor_unsplit(double dt);
  void step_unsplit(double t, double dt);

  Grid g_;                          // the grid this process holds: the whole grid, or its local box under MPI
  const Domain* domain_ = nullptr;  // set when the grid is split over ranks
  bool split(int axis) const;
  Scheme scheme_ = Scheme::douglas;
  SolverChoice solvers_;  // line solver per axis and backend
  Boundary bc_;
  T kappa0_ = 1;
  bool variable_kappa_ = false, has_source_ = false, source_moves_ = false;
  Expression source_;
  std::optional<Expression> exact_;
  AlignedVector<T> u_, work_, kappa_, f_;
  // Per face, for the step from t to t + dt (g: the face's data; see prepare_step).
  //   flux_ (Neumann faces): g of the explicit part: g(t + dt/2) on x faces, g(t) on y, z faces.
  //   face_data_ (Neumann faces of y, z): Douglas: g(t+dt) - g(t), whose flux increment
  //     dt kappa/h (g(t+dt) - g(t)) the face's own implicit stage adds to its right-hand side;
  //     Peaceman-Rachford (y faces): g(t+dt), the flux of stage 2.
  //   face_data_ (Dirichlet faces): the value the face's own implicit stage must produce.
  std::vector<AlignedVector<T>> flux_, face_data_;
  std::vector<AlignedVector<T>> face_scratch_;  // per face: dflux, g0, g1 (face_data.hpp)
  double matrix_dt_ = -1;
  bool matrices_changed_ = false;
  std::array<tridiag::UniformMatrix<T>, 3> uniform_;
  std::array<tridiag::CyclicUniformMatrix<T>, 3> cyclic_;  // (periodic axes)
  // Split axes with constant kappa: their reduced right-hand sides, summed by the sweep before.
  std::array<std::unique_ptr<tridiag::SplitRhsSums<T>>, 3> rhs_sums_;
  std::unique_ptr<HeatGpu<T>> gpu_;  // set when the backend is cuda: fields live on the device
  bool unsplit_ = false;             // crank-nicolson by the sparse direct solver
  std::unique_ptr<Unsplit> cn_;
  int compiled_ = 0;
};

}  // namespace tridsim
