#pragma once
// The heat module's fields and ADI sweeps on a CUDA device (namespace tridsim). HeatModule keeps
// the host-side logic (deck, matrices) and hands the arrays over; the fields, sources and boundary
// data of each step are made in device memory, and cross to the host only for output and error
// norms.
#include <array>
#include <memory>
#include <vector>

#include "core/aligned.hpp"
#include "core/boundary.hpp"
#include "core/expression.hpp"
#include "core/field_stats.hpp"
#include "core/domain.hpp"
#include "core/grid.hpp"
#include "solvers/tridiagonal/coefficients.hpp"
#include "solvers/tridiagonal/line_solvers.hpp"

namespace tridsim {

template <class T>
class HeatGpu {
 public:
  struct Config {
    Grid grid;
    T kappa0 = 1;
    const T* kappa = nullptr;  // host node values, or null for constant kappa0
    bool has_source = false;
    std::array<std::array<bool, 2>, 3> dirichlet{};  // per axis and side (active axes only)
    // Line solver per axis (read_solver_choice: supported by the GPU contract).
    std::array<tridiag::GpuAlgorithm, 3> solver{};
    // Several ranks: grid is this rank's local box; lines along split axes are solved across the
    // ranks (rows of the whole line, ending as the deck's faces: deck_kind), and the halos
    // of u are exchanged before each step.
    const Domain* domain = nullptr;
    std::array<std::array<BoundaryKind, 2>, 3> deck_kind{};
  };
  explicit HeatGpu(const Config& config);
  ~HeatGpu();
  HeatGpu(const HeatGpu&) = delete;
  HeatGpu& operator=(const HeatGpu&) = delete;

  void upload_u(const T* u);
  void download_u(T* u) const;
  void upload_source(const T* f);
  // A time-dependent source evaluated on the device (compiled with NVRTC) instead of uploaded.
  void use_source_expression(const Expression& source);
  void evaluate_source(double t);
  // The boundary (kept): the expressions of faces whose data move compiled for the device, and
  // the face data of the first step (per face, as HeatModule's flux_ and face_data_).
  void use_boundary(const Boundary& bc, bool peaceman_rachford, const std::vector<AlignedVector<T>>& flux,
                    const std::vector<AlignedVector<T>>& stage);
  // The boundary data of the step from t to t + dt, prepared on the device (face_data.hpp).
  void prepare_faces(double t, double dt);
  // u = g(t) on every Dirichlet face (faces of later axes win where faces meet).
  void impose_dirichlet(double t);
  // The factored constant-coefficient line matrix of an axis.
  void upload_matrix(int axis, const tridiag::UniformMatrix<T>& M);

  // The steps are queued on the default stream; synchronize() waits for them (and reports
  // their errors).
  void step_douglas(double dt);
  void step_peaceman_rachford(double dt);
  void synchronize();
  // Statistics of u, reduced on the device (core/field_stats.hpp).
  FieldStats stats(const StatsSpec& s) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tridsim
