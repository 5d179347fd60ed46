#pragma once
// Poisson module (namespace tridsim): the steady problem -div(kappa grad u) = f on a rectangle /
// box, vertex-centred 5- / 7-point differences (3-point in 1D), solved once by a direct method:
//  - bcr (radix-2 block cyclic reduction), bcr4 (radix-4), fft (sine transforms): the fast
//    methods of solvers/cyclic_reduction/poisson.hpp, for a constant kappa and Dirichlet values on
//    every face;
//  - fft-tridiagonal (solvers/cyclic_reduction/transform_poisson.hpp): a constant kappa and each
//    axis's faces Dirichlet, Neumann or periodic (both faces); real transforms along every axis but
//    the last, tridiagonal lines along it, which may be stretched (Grid::nodes); cpu backend;
//  - multifrontal (solvers/sparse_direct/, through poisson_sparse.hpp): any positive kappa (face
//    values the harmonic mean of node values), Dirichlet or Neumann faces (the outward normal
//    derivative du/dn, as for the heat module), at least one face Dirichlet;
//  - auto: multifrontal when kappa varies, fft-tridiagonal for a constant kappa with a face that
//    is not Dirichlet (multifrontal on the cuda backend) or a stretched grid, else the fast
//    methods' choice. Only fft-tridiagonal takes a stretched axis; the others refuse it.
// With no Dirichlet face u is fixed up to a constant: f and the Neumann fluxes must balance
// (`compatibility: require`, the default) or are made to (`project`); u has mean 0.
// kappa (`conductivity`, default 1) and f (`source`) are numbers, expressions of x, y, z or
// datasets of an HDF5 file over the grid's nodes. With `exact:` the run reports the error norms
// and writes the error field next to u.
#include <memory>
#include <optional>
#include <vector>

#include "core/aligned.hpp"
#include "core/module.hpp"
#include "core/boundary.hpp"
#include "solvers/cyclic_reduction/poisson.hpp"
#include "solvers/cyclic_reduction/transform_poisson.hpp"

namespace tridsim {

// The module's `method` choice: the fast methods of cr::PoissonMethod, and the sparse direct one.
enum class PoissonModuleMethod { automatic, bcr, bcr4, fft, fft_tridiagonal, multifrontal };
inline constexpr NameEntry<PoissonModuleMethod> kPoissonModuleMethodNames[] = {
    {"auto", PoissonModuleMethod::automatic,
     "multifrontal for a variable kappa, fft-tridiagonal for a face that is not dirichlet (multifrontal on cuda), "
     "else a fast method by size and backend"},
    {"bcr", PoissonModuleMethod::bcr, "radix-2 block cyclic reduction (constant kappa, Dirichlet faces)"},
    {"bcr4", PoissonModuleMethod::bcr4, "radix-4 block cyclic reduction (constant kappa, Dirichlet faces)"},
    {"fft", PoissonModuleMethod::fft, "sine transforms (constant kappa, Dirichlet faces)"},
    {"fft-tridiagonal", PoissonModuleMethod::fft_tridiagonal,
     "sine, cosine or Fourier transforms and tridiagonal lines (constant kappa, any faces; cpu)"},
    {"multifrontal", PoissonModuleMethod::multifrontal,
     "sparse direct: nested dissection, multifrontal Cholesky (any kappa, Neumann faces)"}};

// With no Dirichlet face: f and the boundary fluxes must balance, or are made to.
enum class PoissonCompatibility { require, project };
inline constexpr NameEntry<PoissonCompatibility> kPoissonCompatibilityNames[] = {
    {"require", PoissonCompatibility::require, "refuse a source that the Neumann fluxes do not balance"},
    {"project", PoissonCompatibility::project, "subtract the mean imbalance from the source"}};

template <class T>
class PoissonGpu;
template <class T>
class PoissonSparse;

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
  std::array<bool, 3> periodic_axes(const DeckNode& section, int dim) const override {
    return Boundary::periodic_axes(section, dim);
  }
  std::string stretched_axis_refusal(int axis, int dim) const override {
    return axis == dim - 1 ? "" : "takes a stretched axis only as the last one (x in 1D, y in 2D, z in 3D): its "
                                  "fast transforms run along the others";
  }
  // u, f, the exact solution and the fast methods' right-hand side and work space; the multifrontal factor's own
  // memory is checked at setup, when its size is known.
  double arrays_per_point() const override { return 8; }

  const AlignedVector<T>& solution() const { return u_; }
  // The method solving (auto resolved at setup).
  PoissonModuleMethod method() const { return method_; }
  // The relative residual ||f - A u||_2 / ||f||_2 of the system solved, after step(): over the
  // interior nodes for the fast methods (boundary data moved into f), over the nodes not on a
  // Dirichlet face for fft-tridiagonal (Neumann fluxes moved in too), over the rows that are not
  // Dirichlet for multifrontal (its symmetric, row-weighted system).
  double relative_residual() const { return residual_; }
  int refinement_steps() const { return refinement_steps_; }  // multifrontal's
  // fft-tridiagonal with no Dirichlet face: the weighted mean of f and the fluxes that `project`
  // removed (0 otherwise).
  double projected_mean() const { return projected_mean_; }

 private:
  void read_conductivity(const DeckNode& s, const Grid& grid, const SetupContext& ctx);
  void choose_method(const DeckNode& s, Backend backend);
  void require_matrix_range(const DeckNode& s) const;
  void solve_fast();
  void solve_sparse();
  void setup_transform(const DeckNode& s);
  void solve_transform();
  void form_rhs(T* rhs) const;  // f / kappa at the interior nodes plus the Dirichlet neighbours / h^2
  cr::PoissonBox interior_box() const;
  cr::TransformPoissonBox transform_box() const;

  Grid g_;
  Boundary bc_;
  PoissonModuleMethod method_ = PoissonModuleMethod::automatic;
  cr::PoissonMethod fast_method_ = cr::PoissonMethod::automatic;
  cr::Refine refine_ = cr::Refine::automatic;
  std::optional<Expression> exact_;
  double t0_ = 0, residual_ = 0, projected_mean_ = 0;
  int refinement_steps_ = 0;
  bool solved_ = false;
  // kappa: kappa0_ when constant; else node values (x-fastest, double for the matrix), also written.
  double kappa0_ = 1;
  std::vector<double> kappa_;
  std::vector<std::vector<double>> neumann_;  // per face: du/dn at its nodes (empty if Dirichlet)
  AlignedVector<T> u_, f_, err_;  // over all nodes; for the fast methods only f_ at interior nodes matters
  std::unique_ptr<cr::PoissonSolver<T>> cpu_;
  std::unique_ptr<PoissonGpu<T>> gpu_;
  std::unique_ptr<PoissonSparse<T>> sparse_;
  std::unique_ptr<cr::TransformPoisson<T>> transform_;
  AlignedVector<T> rhs_;  // fft-tridiagonal: the right-hand side over its unknowns, formed at setup
};

}  // namespace tridsim
