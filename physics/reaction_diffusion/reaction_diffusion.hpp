#pragma once
// Reaction-diffusion module (namespace tridsim): M species u = (u_1..u_M) on a box in 1, 2 or
// 3 dimensions,
//   du/dt = sum_axes d/dx_a (D d/dx_a u) + R(u, x, t),
// D an M x M diffusion matrix (constant, or entries given as expressions of x, y, z: coupled or
// cross diffusion), R the deck's reaction expressions. Vertex-centred second differences,
// half cells at Neumann / no-flux faces, Dirichlet faces fixed (rd_stencil.hpp). Each implicit
// stage is a batch of block-tridiagonal line solves (solvers/block_tridiagonal) with M x M blocks.
// Schemes (both second order in space and time):
//   douglas            Strang splitting: half a step of reaction (RK4 sub-steps, or the deck's
//                      exact flow), one Douglas ADI step (delta form, theta = 1/2) of the coupled
//                      diffusion, half a step of reaction;
//   linearly-implicit  one Douglas ADI step of diffusion and reaction together, the x lines'
//                      blocks also carrying the reaction Jacobian at their nodes
//                      ((I - dt/2 (A_x + J)) (I - dt/2 A_y) (I - dt/2 A_z) du = dt (A u + R)),
//                      so stiff reactions do not limit dt.
// Species are stored interleaved per node (u[o*M + s]); with the cuda backend they live on the
// device (ReactionDiffusionGpu) and the reactions run as device code compiled from the deck.
// On several ranks (cpu backend) every array covers the rank's local box (owned nodes and halos)
// and the lines of split axes are solved by blocktri::solve_split_lines.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/aligned.hpp"
#include "core/module.hpp"
#include "core/native_code.hpp"
#include "physics/reaction_diffusion/rd_stencil.hpp"
#include "physics/reaction_diffusion/reactions.hpp"
#include "solvers/block_tridiagonal/block_gpu_algorithm.hpp"
#include "solvers/block_tridiagonal/block_rows.hpp"
#include "solvers/block_tridiagonal/uniform_blocks.hpp"

namespace tridsim {

template <class T>
class ReactionDiffusionGpu;

template <class T>
class ReactionDiffusionModule final : public Module {
 public:
  // u (M), its host copies per species (M), work (M), reaction and Jacobian (M + M^2), D.
  double arrays_per_point() const override;
  ReactionDiffusionModule();
  ~ReactionDiffusionModule() override;
  void setup(const Grid& grid, const DeckNode& section, const SetupContext& context, double t0) override;
  void step(double t, double dt) override;
  void wait() override;
  std::vector<FieldRef> fields() override;
  std::vector<Diagnostic> diagnostics(double t) override;
  std::optional<ErrorNorms> error_norms(double t) override;
  std::vector<StateArray> state() override;
  void state_restored() override;
  bool distributes() const override { return true; }
  // linearly-implicit: dt lambda / 2 < 1 at the fastest growth rate lambda of the reactions.
  std::optional<double> max_stable_dt() const override;
  std::string max_stable_dt_reason() const override;

  enum class Scheme { douglas, linearly_implicit };
  static constexpr NameEntry<Scheme> kSchemeNames[] = {
      {"douglas", Scheme::douglas, "Strang-split reactions, Douglas ADI for the coupled diffusion"},
      {"linearly-implicit", Scheme::linearly_implicit, "ADI lines carry the reaction Jacobian (stiff reactions)"}};
  enum class BoundaryType { dirichlet, neumann, no_flux };
  static constexpr NameEntry<BoundaryType> kBoundaryNames[] = {
      {"dirichlet", BoundaryType::dirichlet, "values given per species (expressions of x, y, z)"},
      {"neumann", BoundaryType::neumann, "outward normal derivatives given per species"},
      {"no-flux", BoundaryType::no_flux, "zero normal derivative"}};

  int species() const { return m_; }
  const std::vector<std::string>& species_names() const { return names_; }
  Scheme scheme() const { return scheme_; }
  blocktri::Pivoting pivoting() const { return pivoting_; }
  // Do the CPU steps run the reaction kernels compiled from the deck (else muparser's bytecode)?
  bool reactions_compiled() const { return native_react_ != nullptr; }
  // The state on the host, interleaved per node (copied from the device with the cuda backend).
  const AlignedVector<T>& solution();

 private:
  double read_species(const DeckNode& s, const SetupContext& ctx, double t0, const KeyTable& keys);
  void read_diffusion(const DeckNode& s, const SetupContext& ctx);
  void require_forward_diffusion(const DeckNode& s) const;
  void read_boundary(const DeckNode& s, const SetupContext& ctx);
  void require_finite_reactions(const DeckNode& s, const std::vector<double>& times, double tau) const;
  void measure_reaction_growth(const std::vector<double>& times);
  void require_reaction_headroom(const DeckNode& s, double t0, double dt, double gain2);
  std::string node_state(index_t o) const;  // "at node (i, j, k) (x = ..) with u = .., v = .."
  void react(double t, double tau);
  void linearize(double t);
  void step_cpu(double t, double dt);
  void factor_uniform(double dt);
  rd::CoupledRows<T> rows(int axis, double dt) const;
  bool split(int axis) const;                 // are this axis's lines split over ranks?
  bool interface(int axis, int side) const;   // does a neighbour rank hold the nodes beyond this side?
  index_t global_node(index_t o) const;       // the whole grid's index of local node o

  Grid g_;                      // this rank's local box (the whole grid on one rank)
  const Domain* domain_ = nullptr;  // set when the grid is split over ranks
  int m_ = 1;
  std::vector<std::string> names_;
  Scheme scheme_ = Scheme::douglas;
  blocktri::Pivoting pivoting_ = blocktri::Pivoting::partial;
  std::array<blocktri::BlockGpuAlgorithm, 3> gpu_solver_{};
  rd::Reactions reactions_;
  // One copy per OpenMP thread (muparser evaluates through variables of its own), made once: a
  // copy parses every expression again, which every step would otherwise pay per thread.
  mutable std::vector<rd::Reactions> thread_reactions_;
  const std::vector<rd::Reactions>& thread_reactions() const;  // (call outside parallel regions)
  int substeps_ = 1;
  // The reaction kernels compiled at run time (CPU), or null: muparser's bytecode over blocks.
  std::shared_ptr<const NativeCode> native_;
  rd::Reactions::NativeReact native_react_ = nullptr;
  rd::Reactions::NativeLinearize native_linearize_ = nullptr;
  std::vector<double> coord_x_;  // the x coordinates of the local box, for those kernels
  void react_native(double t, double tau);
  void linearize_native(double t);
  rd::Lattice<T> lattice_;         // the local box; Dirichlet flags only on faces of the whole grid
  bool deck_dirichlet_[3][2] = {};  // the deck's Dirichlet faces (the ends of lines split over ranks)
  rd::DiffusionMatrix<T> D_;       // D_.node points into Dnode_ when D varies
  AlignedVector<T> Dnode_;         // D per node (interleaved), or empty
  AlignedVector<T> u_, work_, R_, J_;
  AlignedVector<T> boundary_source_;      // 2 D g / h at Neumann nodes (per node and species), or empty
  std::vector<unsigned char> fixed_;      // 1 at nodes of Dirichlet faces, or empty
  std::vector<std::pair<index_t, std::vector<double>>> dirichlet_values_;  // (node, values) on Dirichlet faces
  std::vector<AlignedVector<T>> planes_;  // per species, for output
  std::vector<Expression> exact_;         // per species, or empty
  struct Growth {                         // the reactions' fastest local growth at the initial state
    double rate = 0;                      // the largest real part of their Jacobian's eigenvalues
    index_t node = -1;                    // where (-1: on another rank, or nowhere positive)
    double t = 0;
  } growth_;
  double matrix_dt_ = -1;
  double perturbation_ = 0;  // the perturbation's amplitude (0: none)
  std::array<blocktri::UniformBlockMatrix<T>, 3> uniform_;
  std::unique_ptr<ReactionDiffusionGpu<T>> gpu_;
};

}  // namespace tridsim
