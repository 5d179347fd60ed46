#include "physics/reaction_diffusion/reaction_diffusion.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <omp.h>
#include <spdlog/spdlog.h>

#include "core/boundary.hpp"
#include "core/domain.hpp"
#include "core/expression_fill.hpp"
#include "physics/module_keys.hpp"
#include "physics/reaction_diffusion/reaction_diffusion_gpu.hpp"
#include "physics/reaction_diffusion/reaction_step.hpp"
#include "physics/reaction_diffusion/spectrum.hpp"
#include "physics/block_solver_choice.hpp"
#include "solvers/block_tridiagonal/batched.hpp"
#include "solvers/block_tridiagonal/distributed.hpp"
#include "tridsim_build_info.hpp"

namespace tridsim {

#if !TRIDSIM_HAVE_CUDA
template <class T>
struct ReactionDiffusionGpu<T>::Impl {};
template <class T>
ReactionDiffusionGpu<T>::~ReactionDiffusionGpu() = default;
#endif

static_assert(rd::kMaxSpecies == kMaxSpecies, "the reaction integrators hold as many species as the blocks");

namespace {

// A species name: an identifier that no expression already uses for something else.
void check_species_name(const DeckNode& s, const std::string& name, const Constants& constants) {
  const bool identifier = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_') &&
                          std::all_of(name.begin(), name.end(), [](char c) {
                            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                          });
  static const std::set<std::string> reserved = {"x", "y", "z", "t", "tau", "pi", "e", "_pi", "_e"};
  if (!identifier || reserved.count(name) || constants.count(name))
    s.fail("species", "'" + name + "' cannot name a species: use an identifier (letters, digits, _) other than " +
                          "x, y, z, t, tau, pi, e and the deck's constants");
}

// Uniform noise in [-1, 1] from (seed, node, species): the same on every backend and thread count.
double noise(std::uint64_t seed, std::uint64_t node, std::uint64_t species) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull ^ (node * 8 + species + 1) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * 0x1.0p-52 - 1.0;
}

// The nodes of [first, last) off the Dirichlet faces (fixed) into b, their indices into nodes, and
// their coordinates where the reactions use them; the rest of the block repeats its first node, so
// that every value evaluated is one of the deck's. (Node indices step from the first's, x fastest:
// no division per node; the grid is copied so that its spacings stay in registers; the values are
// read species by species, a loop that vectorizes.)
template <class T>
void gather_block(const rd::Reactions& reactions, const rd::Lattice<T>& lattice, const Grid& grid,
                  const std::vector<unsigned char>& fixed, const T* u, int m, index_t first, index_t last,
                  rd::NodeBlock& b, index_t* nodes) {
  const Grid g = grid;
  const bool coordinates = reactions.uses_space();
  index_t ijk[3];
  lattice.indices(first, ijk);
  b.n = 0;
  for (index_t o = first; o < last; ++o) {
    if (fixed.empty() || !fixed[std::size_t(o)]) {
      const int p = b.n++;
      nodes[p] = o;
      if (coordinates) {
        b.x.at[p] = g.coord(0, ijk[0]);
        b.y.at[p] = g.coord(1, ijk[1]);
        b.z.at[p] = g.coord(2, ijk[2]);
      }
    }
    if (++ijk[0] == lattice.n[0]) {
      ijk[0] = 0;
      if (++ijk[1] == lattice.n[1]) ijk[1] = 0, ++ijk[2];
    }
  }
  for (int k = 0; k < m; ++k)
    for (int p = 0; p < b.n; ++p) b.v[k].at[p] = double(u[nodes[p] * m + k]);
  for (int p = b.n; p < rd::kBlock && b.n > 0; ++p) {
    if (coordinates)
      for (rd::Lanes* l : {&b.x, &b.y, &b.z}) l->at[p] = l->at[0];
    for (int k = 0; k < m; ++k) b.v[k].at[p] = b.v[k].at[0];
  }
}

}  // namespace

template <class T>
ReactionDiffusionModule<T>::ReactionDiffusionModule() = default;
template <class T>
ReactionDiffusionModule<T>::~ReactionDiffusionModule() = default;

template <class T>
double ReactionDiffusionModule<T>::arrays_per_point() const {
  return 4.0 * m_ + (scheme_ == Scheme::linearly_implicit ? double(m_) * m_ + m_ : 0.0) + (Dnode_.empty() ? 0 : m_ * m_);
}

// ---- setup ---------------------------------------------------------------------------------

template <class T>
bool ReactionDiffusionModule<T>::split(int axis) const {
  return domain_ && domain_->layout().split(axis);
}

template <class T>
bool ReactionDiffusionModule<T>::interface(int axis, int side) const {
  if (!domain_) return false;
  const AxisSplit& a = domain_->layout().axes[std::size_t(axis)];
  return (side ? a.halo_hi : a.halo_lo) == 1;
}

template <class T>
index_t ReactionDiffusionModule<T>::global_node(index_t o) const {
  if (!domain_) return o;
  index_t ijk[3];
  lattice_.indices(o, ijk);
  const auto& axes = domain_->layout().axes;
  return domain_->global().index(ijk[0] + axes[0].local_first(), ijk[1] + axes[1].local_first(),
                                 ijk[2] + axes[2].local_first());
}

template <class T>
void ReactionDiffusionModule<T>::setup(const Grid& whole, const DeckNode& s, const SetupContext& ctx, double t0) {
  // Under MPI every array below covers this rank's local box (owned nodes and halos).
  domain_ = ctx.domain && ctx.domain->distributed() ? ctx.domain : nullptr;
  const Grid grid = domain_ ? domain_->local() : whole;
  g_ = grid;
  // 1. Species, scheme and reactions.
  names_ = s.get<std::vector<std::string>>("species");
  m_ = int(names_.size());
  if (m_ < 1 || m_ > kMaxSpecies)
    s.fail("species", "expected 1 to " + std::to_string(kMaxSpecies) + " species names, got " + std::to_string(m_));
  for (std::size_t k = 0; k < names_.size(); ++k) {
    check_species_name(s, names_[k], ctx.constants);
    for (std::size_t l = 0; l < k; ++l)
      if (names_[l] == names_[k]) s.fail("species", "'" + names_[k] + "' is named twice");
  }
  const KeyTable keys = reaction_diffusion_keys();
  scheme_ = s.get_enum_or_default("scheme", kSchemeNames, keys);
  reactions_.read(s, names_, ctx.constants, ctx.backend == Backend::cuda);
  thread_reactions_.clear();  // (copies of what was read before, if setup runs again)
  substeps_ = s.get_or_default<int>("reaction_substeps", keys);
  s.require(substeps_ >= 1 && substeps_ <= 1000, "reaction_substeps", substeps_, "an integer in [1, 1000]");
  if (scheme_ == Scheme::linearly_implicit && (s.has("exact_flow") || s.has("reaction_substeps")))
    s.fail(s.has("exact_flow") ? "exact_flow" : "reaction_substeps",
           "belongs to the douglas scheme's reaction half steps; linearly-implicit treats the reactions in its lines");
  if (scheme_ == Scheme::douglas && s.has("jacobian"))
    s.fail("jacobian", "is used by scheme linearly-implicit only (douglas integrates the reactions by RK4 or exact_flow)");

  // 2. The grid as the stencils see it, the diffusion matrix and the boundary.
  lattice_.dim = grid.dim;
  for (int a = 0; a < 3; ++a) {
    lattice_.n[a] = grid.n[a];
    lattice_.stride[a] = grid.strides()[std::size_t(a)];
    lattice_.inv_h2[a] = a < grid.dim ? T(1.0 / (grid.h(a) * grid.h(a))) : T(0);
  }
  read_diffusion(s, ctx);
  read_boundary(s, ctx);

  // 3. Initial state, exact solution, line solvers. What moves with t is checked over the run.
  const std::vector<double> times = ctx.check_times(t0);
  const double gain2 = read_species(s, ctx, t0, keys);
  // (the exact flow, where given, over the half step that the Strang steps take)
  require_finite_reactions(s, times, 0.5 * ctx.dt.value_or(0.0));
  measure_reaction_growth(times);
  require_reaction_headroom(s, t0, ctx.dt.value_or(0.0), gain2);
  const std::string pivot = s.get_or_default<std::string>("pivoting", keys);
  if (pivot == "auto") {
    pivoting_ = blocktri::Pivoting::partial;  // generated blocks carry no dominance guarantee
  } else if (auto p = parse_name(blocktri::kPivotingNames, pivot)) {
    pivoting_ = *p;
  } else {
    s.fail("pivoting", unknown_name_message(pivot, {"auto", "none", "partial"}));
  }
  if (auto e = s.maybe_child("exact")) {
    for (const auto& name : names_) {
      exact_.push_back(Expression::from_deck(*e, name, ctx.constants));
      require_finite_expression(*e, name, exact_.back(), g_, times);
    }
  }
  gpu_solver_ = read_block_solver(s, grid, m_, ctx.backend, keys);

  if (ctx.backend == Backend::cuda) {
#if TRIDSIM_HAVE_CUDA
    typename ReactionDiffusionGpu<T>::Setup gs;
    gs.grid = grid;
    gs.m = m_;
    gs.lattice = lattice_;
    gs.D = D_;
    gs.D_node = Dnode_.empty() ? nullptr : Dnode_.data();
    gs.boundary_source = boundary_source_.empty() ? nullptr : boundary_source_.data();
    gs.fixed = fixed_.empty() ? nullptr : fixed_.data();
    gs.linearly_implicit = scheme_ == Scheme::linearly_implicit;
    gs.substeps = substeps_;
    gs.reaction_source = reactions_.zero() ? std::string() : reactions_.device_source(std::is_same_v<T, float> ? "float" : "double");
    gs.solver = gpu_solver_;
    gs.pivoting = pivoting_;
    gs.domain = domain_;
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) gs.deck_dirichlet[a][side] = deck_dirichlet_[a][side];
    gpu_ = std::make_unique<ReactionDiffusionGpu<T>>(gs);
    gpu_->upload_u(u_.data());
#else
    throw Error("backend cuda: this build has no CUDA support (configure with -DTRIDSIM_CUDA=ON)");
#endif
  } else {
    work_.resize(u_.size());
    if (scheme_ == Scheme::linearly_implicit) {
      R_.resize(u_.size());
      J_.resize(u_.size() * std::size_t(m_));
    }
    // The reaction kernels compiled from the expressions (check compiles them too, so that the run
    // finds them in the cache); bit for bit what muparser's bytecode gives, which stays the fallback.
    native_ = nullptr;
    native_react_ = nullptr;
    native_linearize_ = nullptr;
    if (!reactions_.zero()) {
      const std::string code = reactions_.native_source(std::is_same_v<T, float> ? "float" : "double");
      if (code.empty()) {
        spdlog::info("reaction_diffusion: reactions interpreted by muparser, not compiled: an expression has no "
                     "compiled form");
      } else {
        NativeBatch batch;
        batch.add_code(code);
        native_ = batch.compile("reaction_diffusion", "reactions");
      }
      if (native_) {
        native_react_ = reinterpret_cast<rd::Reactions::NativeReact>(native_->symbol(rd::Reactions::kNativeReact));
        native_linearize_ =
            reinterpret_cast<rd::Reactions::NativeLinearize>(native_->symbol(rd::Reactions::kNativeLinearize));
        coord_x_.resize(std::size_t(g_.n[0]));
        for (index_t i = 0; i < g_.n[0]; ++i) coord_x_[std::size_t(i)] = g_.coord(0, i);
      }
    }
  }
  spdlog::info("reaction_diffusion: {} species, scheme {}, {} diffusion, pivoting {}", m_, name_of(kSchemeNames, scheme_),
               Dnode_.empty() ? "constant" : "variable", name_of(blocktri::kPivotingNames, pivoting_));
}

// `diffusion`: M rows of M entries, numbers or expressions of x, y, z.
template <class T>
void ReactionDiffusionModule<T>::read_diffusion(const DeckNode& s, const SetupContext& ctx) {
  const auto rows = s.get<std::vector<std::vector<std::string>>>("diffusion");
  if (int(rows.size()) != m_)
    s.fail("diffusion", "expected " + std::to_string(m_) + " rows of " + std::to_string(m_) + " entries (an M x M matrix, M = " +
                            std::to_string(m_) + " species), got " + std::to_string(rows.size()) + " rows");
  std::vector<Expression> entries;
  bool varies = false;
  for (int i = 0; i < m_; ++i) {
    if (int(rows[std::size_t(i)].size()) != m_)
      s.fail("diffusion", fmt::format("row {} has {} entries, expected {}", i + 1, rows[std::size_t(i)].size(), m_));
    for (int j = 0; j < m_; ++j) {
      try {
        entries.emplace_back(rows[std::size_t(i)][std::size_t(j)], ctx.constants);
      } catch (const Error& e) {
        s.fail("diffusion", fmt::format("entry ({}, {}): {}", i + 1, j + 1, e.what()));
      }
      if (entries.back().uses_time())
        s.fail("diffusion", fmt::format("entry ({}, {}) uses t; the diffusion matrix may vary in x, y, z only", i + 1, j + 1));
      varies = varies || !entries.back().is_constant();
    }
  }
  D_.m = m_;
  const index_t N = g_.size();
  std::vector<double> values(static_cast<std::size_t>(N));
  if (varies) Dnode_.assign(std::size_t(N) * m_ * m_, T(0));
  for (int i = 0; i < m_; ++i)
    for (int j = 0; j < m_; ++j) {
      const Expression& e = entries[std::size_t(i * m_ + j)];
      if (!varies) {
        const double v = e(0, 0, 0, 0);
        if (!std::isfinite(v) || (i == j && v < 0))
          s.fail("diffusion", fmt::format("entry ({}, {}) is {}; entries must be finite and diagonal entries >= 0", i + 1,
                                          j + 1, v));
        D_.d[i * m_ + j] = T(v);
        continue;
      }
      e.fill(g_, 0.0, values.data());
      for (index_t o = 0; o < N; ++o) {
        const double v = values[std::size_t(o)];
        if (!std::isfinite(v) || (i == j && v < 0))
          s.fail("diffusion", fmt::format("entry ({}, {}) is {} {}; entries must be finite and diagonal entries >= 0",
                                          i + 1, j + 1, v,
                                          node_where(g_, o % g_.n[0], (o / g_.n[0]) % g_.n[1], o / (g_.n[0] * g_.n[1]))));
        Dnode_[std::size_t((o * m_ + i) * m_ + j)] = T(v);
      }
    }
  D_.node = varies ? Dnode_.data() : nullptr;
  require_forward_diffusion(s);
}

// D must not run any mode backwards in time (the problem would be ill-posed and the implicit lines
// may be singular): the eigenvalues of D, at every node where it varies, have real parts >= 0 (for
// a symmetric D: positive semidefinite; a species that does not diffuse has a zero row).
template <class T>
void ReactionDiffusionModule<T>::require_forward_diffusion(const DeckNode& s) const {
  const int mm = m_ * m_;
  auto slowest = [&](const T* d) {  // min Re(eigenvalue) = -(spectral abscissa of -D), 0 within rounding
    double negated[kMaxSpecies * kMaxSpecies];
    double size = 0;
    for (int k = 0; k < mm; ++k) negated[k] = -double(d[k]), size = std::max(size, std::abs(negated[k]));
    // Scaled by a power of 2 (exactly) to entries of at most 1: no product overflows (D = 1e300 is not -inf).
    const double scale = size > 0 ? std::exp2(std::ceil(std::log2(size))) : 1.0;
    for (int k = 0; k < mm; ++k) negated[k] /= scale;
    const double re = -rd::spectral_abscissa(negated, m_) * scale;
    return re < -1e-12 * size ? re : 0.0;
  };
  const index_t N = D_.node ? g_.size() : 1;
  index_t first_bad = N;
#pragma omp parallel for schedule(static) reduction(min : first_bad)
  for (index_t o = 0; o < N; ++o)
    if (slowest(D_.node ? D_.node + o * mm : D_.d) < 0) first_bad = std::min(first_bad, o);
  if (first_bad == N) return;
  const T* d = D_.node ? D_.node + first_bad * mm : D_.d;
  index_t ijk[3];
  lattice_.indices(first_bad, ijk);
  const std::string where = D_.node ? node_where(g_, ijk[0], ijk[1], ijk[2]) : std::string();
  s.fail("diffusion", fmt::format("has an eigenvalue with real part {:.6g}{}{}: that mode would diffuse backwards in "
                                  "time; the eigenvalues of D must have real parts >= 0 (a symmetric D: positive "
                                  "semidefinite, e.g. [[2, 1], [1, 2]], not [[1, 5], [5, 1]])",
                                  slowest(d), where.empty() ? "" : " ", where));
}

// `boundary`: per face (x-, x+, ...; `all` for the rest) a type and, for dirichlet and neumann,
// a value per species (expressions of x, y, z).
template <class T>
void ReactionDiffusionModule<T>::read_boundary(const DeckNode& s, const SetupContext& ctx) {
  const DeckNode bc = s.child("boundary");
  const std::optional<DeckNode> all = bc.maybe_child("all");
  const index_t N = g_.size();
  std::vector<double> g(static_cast<std::size_t>(m_));
  for (int a = 0; a < g_.dim; ++a)
    for (int side = 0; side < 2; ++side) {
      std::optional<DeckNode> spec = bc.maybe_child(face_name(a, side));
      if (!spec) spec = all;
      if (!spec)
        bc.fail(face_name(a, side), std::string("missing boundary condition for face ") + face_name(a, side) +
                                         " (give {type: dirichlet|neumann|no-flux, value: {species: EXPR}} per face, or 'all')");
      const BoundaryType type = spec->get_enum("type", kBoundaryNames);
      deck_dirichlet_[a][side] = type == BoundaryType::dirichlet;
      lattice_.dirichlet[a][side] = type == BoundaryType::dirichlet && !interface(a, side);
      if (type == BoundaryType::no_flux) continue;
      const DeckNode value = spec->child("value");
      std::vector<Expression> v;
      for (const auto& name : names_) {
        v.push_back(Expression::from_deck(value, name, ctx.constants));
        if (v.back().uses_time())
          value.fail(name, "uses t; boundary values of reaction_diffusion may vary in x, y, z only");
      }
      if (interface(a, side)) continue;  // a neighbour rank's nodes lie beyond: the face is another rank's
      // Evaluate on the face's nodes: Dirichlet values are imposed on the initial state (after
      // it is read); Neumann data g enter A u at the face's nodes as 2 D g / h (the mirrored
      // ghost node u_ghost = u_inner + 2 h g).
      const index_t fixed = side ? g_.n[a] - 1 : 0;
      const int p = a == 0 ? 1 : 0, q = a == 2 ? 1 : 2;
      if (type == BoundaryType::neumann && boundary_source_.empty()) boundary_source_.assign(std::size_t(N * m_), T(0));
      for (index_t iq = 0; iq < g_.n[q]; ++iq)
        for (index_t ip = 0; ip < g_.n[p]; ++ip) {
          std::array<index_t, 3> ijk{};
          ijk[std::size_t(a)] = fixed;
          ijk[std::size_t(p)] = ip;
          ijk[std::size_t(q)] = iq;
          const index_t o = g_.index(ijk[0], ijk[1], ijk[2]);
          const double x = g_.coord(0, ijk[0]), y = g_.coord(1, ijk[1]), z = g_.coord(2, ijk[2]);
          for (int k = 0; k < m_; ++k) g[std::size_t(k)] = v[std::size_t(k)](x, y, z, 0.0);
          for (int k = 0; k < m_; ++k)
            if (!std::isfinite(g[std::size_t(k)]))
              fail_non_finite(value, names_[std::size_t(k)],
                              NonFinite{non_finite_name(g[std::size_t(k)]), node_where(g_, ijk[0], ijk[1], ijk[2])}, 0.0);
          if (type == BoundaryType::dirichlet) {
            dirichlet_values_.emplace_back(o, g);
          } else {
            const double scale = 2.0 / g_.h(a);
            for (int i = 0; i < m_; ++i) {
              double b = 0;
              for (int j = 0; j < m_; ++j) b += double(D_.at(o, i, j)) * g[std::size_t(j)];
              boundary_source_[std::size_t(o * m_ + i)] += T(scale * b);
            }
          }
        }
    }
  bool any = false;
  for (int a = 0; a < g_.dim; ++a) any = any || lattice_.dirichlet[a][0] || lattice_.dirichlet[a][1];
  if (any) {
    fixed_.assign(std::size_t(N), 0);
    for (index_t o = 0; o < N; ++o) fixed_[std::size_t(o)] = lattice_.fixed(o) ? 1 : 0;
  }
}

// `initial`: per species an expression of x, y, z; `perturbation`: uniform noise added to it.
template <class T>
double ReactionDiffusionModule<T>::read_species(const DeckNode& s, const SetupContext& ctx, double t0,
                                                const KeyTable& keys) {
  const index_t N = g_.size();
  u_.assign(std::size_t(N * m_), T(0));
  planes_.assign(std::size_t(m_), AlignedVector<T>(std::size_t(N)));
  const DeckNode init = s.child("initial");
  // What one step can take: D's largest row sum of |D_ij| (over the nodes where it varies) bounds
  // how fast any species diffuses.
  double d_max = 0;
  for (index_t o = 0; o < (D_.node ? N : 1); ++o)
    for (int i = 0; i < m_; ++i) {
      double row = 0;
      for (int j = 0; j < m_; ++j) row += std::abs(double(D_.node ? D_.node[(o * m_ + i) * m_ + j] : D_.d[i * m_ + j]));
      d_max = std::max(d_max, row);
    }
  const double gain2 = require_step_gain<T>(s, "diffusion", g_, d_max, ctx.dt.value_or(0.0));
  double amplitude = 0;
  std::uint64_t seed = 0;  // (no perturbation: amplitude 0)
  if (auto p = s.maybe_child("perturbation")) {
    amplitude = p->get<double>("amplitude");
    p->require(amplitude >= 0 && std::isfinite(amplitude), "amplitude", amplitude, "a finite number >= 0");
    const long sd = p->get_or_default<long>("seed", keys);
    p->require(sd >= 0, "seed", sd, "an integer >= 0");
    seed = std::uint64_t(sd);
  }
  perturbation_ = amplitude;
  for (int k = 0; k < m_; ++k) {
    const std::string& name = names_[std::size_t(k)];
    const Expression e = Expression::from_deck(init, name, ctx.constants);
    if (e.uses_time()) init.fail(name, "is the state at the start time: it may use x, y, z but not t");
    T* plane = planes_[std::size_t(k)].data();
    fill_on_backend(init, name, e, ctx.backend, g_, t0, plane);
    require_finite_values(init, name, g_, t0, plane);
    require_step_headroom(init, name, g_, gain2, plane);
    for (index_t o = 0; o < N; ++o)
      u_[std::size_t(o * m_ + k)] =
          T(double(plane[o]) + amplitude * noise(seed, std::uint64_t(global_node(o)), std::uint64_t(k)));
  }
  for (const auto& [o, values] : dirichlet_values_)
    for (int k = 0; k < m_; ++k) u_[std::size_t(o * m_ + k)] = T(values[std::size_t(k)]);
  return gain2;
}

// The first steps evaluate R (linearly-implicit: and the deck's Jacobian) at the initial state:
// every term finite at every node off the Dirichlet faces at each of `times` (the first only when
// nothing uses t), else a DeckError at its key naming the first node and the state there.
template <class T>
void ReactionDiffusionModule<T>::require_finite_reactions(const DeckNode& s, const std::vector<double>& times,
                                                          double tau) const {
  if (reactions_.zero() || times.empty()) return;
  const index_t N = g_.size();
  auto at = [&](const rd::Reactions& r, index_t o, double t, double* v) {
    index_t ijk[3];
    lattice_.indices(o, ijk);
    for (int k = 0; k < m_; ++k) v[k] = double(u_[std::size_t(o * m_ + k)]);
    return r.first_non_finite(v, g_.coord(0, ijk[0]), g_.coord(1, ijk[1]), g_.coord(2, ijk[2]), t, tau);
  };
  for (const double t : times_for(reactions_.uses_time(), times)) {
    index_t first_bad = N;
    const auto& copies = thread_reactions();
#pragma omp parallel
    {
      const rd::Reactions& local = copies[std::size_t(omp_get_thread_num())];
      double v[kMaxSpecies];
#pragma omp for schedule(static) reduction(min : first_bad)
      for (index_t o = 0; o < N; ++o)
        if ((fixed_.empty() || !fixed_[std::size_t(o)]) && at(local, o, t, v)) first_bad = std::min(first_bad, o);
    }
    if (first_bad == N) continue;
    double v[kMaxSpecies];
    const auto bad = at(reactions_, first_bad, t, v);
    std::string where = node_state(first_bad);
    if (bad->key == std::string("jacobian"))  // (its row is the species; name the column)
      where = fmt::format("in entry {} (d/d{}) {}", bad->column + 1, names_[std::size_t(bad->column)], where);
    if (bad->key == std::string("exact_flow")) where += fmt::format(" over tau = {:g}", tau);
    if (perturbation_ > 0) {  // finite without the perturbation's noise: the perturbation is the cause
      double v0[kMaxSpecies];
      for (int k = 0; k < m_; ++k) v0[k] = double(planes_[std::size_t(k)][std::size_t(first_bad)]);
      index_t ijk[3];
      lattice_.indices(first_bad, ijk);
      if (!reactions_.first_non_finite(v0, g_.coord(0, ijk[0]), g_.coord(1, ijk[1]), g_.coord(2, ijk[2]), t, tau))
        where += fmt::format(" (the initial state plus the perturbation, {}.amplitude = {:g})",
                             s.child("perturbation").path(), perturbation_);
    }
    fail_non_finite(s.child(bad->key), names_[std::size_t(bad->species)],
                    NonFinite{non_finite_name(bad->value), where}, t);
  }
}

// The first step's reactions, finite at the initial state, may still overflow within the step (an
// RK4 stage of u^10, a rate near the largest number), and what they reach must leave the step's
// diffusion room: douglas advances them over dt/2 first (react() itself, on a copy of the state),
// linearly-implicit adds dt R to u. The state reached at every node must stay within step_headroom,
// else a DeckError at the reaction (or exact flow) of the first species that leaves it.
template <class T>
void ReactionDiffusionModule<T>::require_reaction_headroom(const DeckNode& s, double t0, double dt, double gain2) {
  if (reactions_.zero() || !(dt > 0)) return;
  const index_t N = g_.size(), values = N * m_;
  const double limit = step_headroom<T>(g_, gain2);
  const bool douglas = scheme_ == Scheme::douglas;
  // linearly-implicit: |u| + dt |R| at node o, every species, into out.
  auto reached_at = [&](const rd::Reactions& local, index_t o, double* out) {
    double v[kMaxSpecies], r[kMaxSpecies] = {};
    for (int k = 0; k < m_; ++k) v[k] = double(u_[std::size_t(o * m_ + k)]);
    if (fixed_.empty() || !fixed_[std::size_t(o)]) {
      index_t ijk[3];
      lattice_.indices(o, ijk);
      local.rates(v, g_.coord(0, ijk[0]), g_.coord(1, ijk[1]), g_.coord(2, ijk[2]), t0, r);
    }
    for (int k = 0; k < m_; ++k) out[k] = std::abs(v[k]) + dt * std::abs(r[k]);
  };
  index_t bad = values;  // the first value past the limit (NaN included)
  double bad_value = 0;
  if (douglas) {
    const AlignedVector<T> start = u_;
    react(t0, 0.5 * dt);
    for (index_t i = 0; i < values && bad == values; ++i)
      if (!(std::abs(double(u_[std::size_t(i)])) <= limit)) bad = i, bad_value = double(u_[std::size_t(i)]);
    u_ = start;
  } else {
    const auto& copies = thread_reactions();
#pragma omp parallel for schedule(static) reduction(min : bad)
    for (index_t o = 0; o < N; ++o) {
      double out[kMaxSpecies];
      reached_at(copies[std::size_t(omp_get_thread_num())], o, out);
      for (int k = 0; k < m_; ++k)
        if (!(out[k] <= limit)) bad = std::min(bad, o * m_ + k);
    }
    if (bad < values) {
      double out[kMaxSpecies];
      reached_at(copies[0], bad / m_, out);
      bad_value = out[bad % m_];
    }
  }
  if (bad == values) return;
  const index_t o = bad / m_;
  const std::string& name = names_[std::size_t(bad % m_)];
  const std::string what =
      douglas ? fmt::format("takes {} to {:.3g} in the first reaction half step ({} over dt/2 = {:g})", name,
                            bad_value, reactions_.has_exact_flow() ? "the exact flow" : "RK4", 0.5 * dt)
              : fmt::format("gives |{0}| + dt |R_{0}| = {1:.3g} in the first step (dt = {2:g})", name, bad_value, dt);
  s.child(douglas && reactions_.has_exact_flow() ? "exact_flow" : "reactions")
      .fail(name, fmt::format("{} from t = {:g} {}: too large for the step in {}, which grows the state by up to "
                              "G^2 = {:.3g} (and a mean sums {} nodes), so it must stay below {:.3g}; a smaller "
                              "time.dt, or smaller rates",
                              what, t0, node_state(o), std::is_same_v<T, float> ? "float" : "double", gain2, N, limit));
}

template <class T>
std::string ReactionDiffusionModule<T>::node_state(index_t o) const {
  index_t ijk[3];
  lattice_.indices(o, ijk);
  std::string text = node_where(g_, ijk[0], ijk[1], ijk[2]) + " with";
  for (int k = 0; k < m_; ++k)
    text += fmt::format("{} {} = {:g}", k ? "," : "", names_[std::size_t(k)], double(u_[std::size_t(o * m_ + k)]));
  return text;
}

// linearly-implicit: I - dt/2 J must stay invertible (and the step trustworthy), so dt lambda / 2
// < 1 where lambda, the largest real part of the eigenvalues of the reactions' Jacobian J, is how
// fast they let a perturbation grow. Measured at the initial state at every node off the Dirichlet
// faces (at each of `times` when the reactions use t); max_stable_dt() turns it into a limit.
template <class T>
void ReactionDiffusionModule<T>::measure_reaction_growth(const std::vector<double>& times) {
  growth_ = {};
  if (scheme_ != Scheme::linearly_implicit || reactions_.zero() || times.empty()) return;
  const index_t N = g_.size();
  for (const double t : times_for(reactions_.uses_time(), times)) {
    const auto& copies = thread_reactions();
#pragma omp parallel
    {
      const rd::Reactions& local = copies[std::size_t(omp_get_thread_num())];
      Growth mine;
      double v[kMaxSpecies], r[kMaxSpecies], J[kMaxSpecies * kMaxSpecies];
#pragma omp for schedule(static) nowait
      for (index_t o = 0; o < N; ++o) {
        if (!fixed_.empty() && fixed_[std::size_t(o)]) continue;
        index_t ijk[3];
        lattice_.indices(o, ijk);
        const double x = g_.coord(0, ijk[0]), y = g_.coord(1, ijk[1]), z = g_.coord(2, ijk[2]);
        for (int k = 0; k < m_; ++k) v[k] = double(u_[std::size_t(o * m_ + k)]);
        local.rates(v, x, y, z, t, r);
        local.jacobian(v, x, y, z, t, r, J);
        const double rate = rd::spectral_abscissa(J, m_);
        if (rate > mine.rate) mine = {rate, o, t};
      }
#pragma omp critical
      if (mine.rate > growth_.rate || (mine.rate == growth_.rate && mine.node >= 0 && mine.node < growth_.node))
        growth_ = mine;  // (the first node of the fastest, whatever the threads)
    }
  }
  if (domain_) {  // every rank refuses the same dt
    const double fastest = domain_->max(growth_.rate);
    if (fastest > growth_.rate) growth_ = {fastest, -1, 0};
  }
}

template <class T>
std::optional<double> ReactionDiffusionModule<T>::max_stable_dt() const {
  if (!(growth_.rate > 0)) return std::nullopt;
  return 2 / growth_.rate;
}

template <class T>
std::string ReactionDiffusionModule<T>::max_stable_dt_reason() const {
  const std::string where =
      growth_.node >= 0 ? fmt::format(" {} at t = {:g}", node_state(growth_.node), growth_.t) : std::string();
  return fmt::format("linearly-implicit needs dt lambda / 2 < 1, and the reactions grow at the rate lambda = {:.6g} "
                     "(the largest real part of their Jacobian's eigenvalues){}; take a smaller time.dt, or scheme: "
                     "douglas",
                     growth_.rate, where);
}

// ---- time stepping (CPU) -------------------------------------------------------------------

template <class T>
void ReactionDiffusionModule<T>::step(double t, double dt) {
#if TRIDSIM_HAVE_CUDA
  if (gpu_) {
    if (scheme_ == Scheme::douglas) gpu_->step_douglas(t, dt);
    else gpu_->step_linearly_implicit(t, dt);
    return;
  }
#endif
  step_cpu(t, dt);
}

template <class T>
void ReactionDiffusionModule<T>::wait() {
#if TRIDSIM_HAVE_CUDA
  if (gpu_) gpu_->synchronize();
#endif
}

template <class T>
const std::vector<rd::Reactions>& ReactionDiffusionModule<T>::thread_reactions() const {
  const std::size_t threads = std::size_t(omp_get_max_threads());
  if (thread_reactions_.size() < threads) thread_reactions_.assign(threads, reactions_);
  return thread_reactions_;
}

// The compiled kernels' work: pieces of x lines of at most kPiece nodes (a 1D grid's one line is
// shared by the threads too); nodes x fastest, so piece p of line l = j + ny k starts at node
// l nx + p kPiece.
namespace {
constexpr index_t kPiece = 1024;
}

template <class T>
void ReactionDiffusionModule<T>::react_native(double t, double tau) {
  const index_t nx = g_.n[0], ny = g_.n[1], pieces = (nx + kPiece - 1) / kPiece, count = pieces * ny * g_.n[2];
  T* u = u_.data();
#pragma omp parallel for schedule(static)
  for (index_t q = 0; q < count; ++q) {
    const index_t line = q / pieces, i0 = (q % pieces) * kPiece, o = line * nx + i0;
    native_react_(u + o * m_, fixed_.empty() ? nullptr : fixed_.data() + o, std::min(kPiece, nx - i0),
                  coord_x_.data() + i0, g_.coord(1, line % ny), g_.coord(2, line / ny), t, tau, substeps_);
  }
}

template <class T>
void ReactionDiffusionModule<T>::linearize_native(double t) {
  const index_t nx = g_.n[0], ny = g_.n[1], pieces = (nx + kPiece - 1) / kPiece, count = pieces * ny * g_.n[2];
  const index_t mm = index_t(m_) * m_;
#pragma omp parallel for schedule(static)
  for (index_t q = 0; q < count; ++q) {
    const index_t line = q / pieces, i0 = (q % pieces) * kPiece, o = line * nx + i0;
    native_linearize_(u_.data() + o * m_, R_.data() + o * m_, J_.data() + o * mm,
                      fixed_.empty() ? nullptr : fixed_.data() + o, std::min(kPiece, nx - i0), coord_x_.data() + i0,
                      g_.coord(1, line % ny), g_.coord(2, line / ny), t);
  }
}

// Reactions over tau from t at every node not on a Dirichlet face: the compiled kernel, else a
// block of nodes at a time through muparser's bytecode (one copy per thread).
template <class T>
void ReactionDiffusionModule<T>::react(double t, double tau) {
  if (reactions_.zero()) return;
  if (native_react_) return react_native(t, tau);
  const index_t N = g_.size();
  T* u = u_.data();
  const auto& copies = thread_reactions();
#pragma omp parallel
  {
    const rd::Reactions& local = copies[std::size_t(omp_get_thread_num())];
    rd::NodeBlock b;
    index_t nodes[rd::kBlock];
#pragma omp for schedule(static)
    for (index_t first = 0; first < N; first += rd::kBlock) {
      gather_block(local, lattice_, g_, fixed_, u, m_, first, std::min(N, first + rd::kBlock), b, nodes);
      if (b.n == 0) continue;
      local.advance(b, t, tau, substeps_);
      for (int k = 0; k < m_; ++k)
        for (int p = 0; p < b.n; ++p) u[nodes[p] * m_ + k] = T(b.v[k].at[p]);
    }
  }
}

// R and its Jacobian at every node at time t: the compiled kernel, else a block of nodes at a time
// (on Dirichlet faces they stay the zeros setup sized them with: no step writes them there).
template <class T>
void ReactionDiffusionModule<T>::linearize(double t) {
  if (native_linearize_) return linearize_native(t);
  const index_t N = g_.size();
  const int mm = m_ * m_;
  const auto& copies = thread_reactions();
#pragma omp parallel
  {
    const rd::Reactions& local = copies[std::size_t(omp_get_thread_num())];
    rd::NodeBlock b;
    index_t nodes[rd::kBlock];
    std::vector<rd::Lanes> r(static_cast<std::size_t>(m_)), J(static_cast<std::size_t>(mm));  // (2 KB each: on the heap)
#pragma omp for schedule(static)
    for (index_t first = 0; first < N; first += rd::kBlock) {
      gather_block(local, lattice_, g_, fixed_, u_.data(), m_, first, std::min(N, first + rd::kBlock), b, nodes);
      if (b.n == 0) continue;
      local.linearize(b, t, r.data(), J.data());
      for (int p = 0; p < b.n; ++p) {
        const index_t o = nodes[p];
        for (int k = 0; k < m_; ++k) R_[std::size_t(o * m_ + k)] = T(r[k].at[p]);
        for (int k = 0; k < mm; ++k) J_[std::size_t(o * mm + k)] = T(J[k].at[p]);
      }
    }
  }
}

// The rows of the lines along `axis`; along a split axis those of the whole line (its length and
// the deck's end conditions, rows numbered as in the whole grid).
template <class T>
rd::CoupledRows<T> ReactionDiffusionModule<T>::rows(int axis, double dt) const {
  const rd::CoupledRows<T> r =
      rd::coupled_rows<T>(lattice_, D_, axis, dt, scheme_ == Scheme::linearly_implicit ? J_.data() : nullptr);
  if (!split(axis)) return r;
  return rd::whole_line_rows(r, domain_->global().n[std::size_t(axis)], deck_dirichlet_[axis][0], deck_dirichlet_[axis][1]);
}

// Constant D with the douglas scheme: every line of an axis has the same blocks; factor them once
// per time step size.
template <class T>
void ReactionDiffusionModule<T>::factor_uniform(double dt) {
  if (dt == matrix_dt_) return;
  for (int a = 0; a < g_.dim; ++a) {
    if (split(a)) continue;  // split lines take their rows from the generator
    const rd::CoupledRows<T> r = rows(a, dt);
    uniform_[std::size_t(a)] = blocktri::UniformBlockMatrix<T>(
        m_, g_.n[std::size_t(a)], [&](index_t row, int i, int j, T& A, T& B, T& C) { r.entry(0, row, i, j, A, B, C); });
  }
  matrix_dt_ = dt;
}

// step_cpu: reaction_diffusion_step.hpp, compiled once per precision.

// ---- output --------------------------------------------------------------------------------

template <class T>
const AlignedVector<T>& ReactionDiffusionModule<T>::solution() {
#if TRIDSIM_HAVE_CUDA
  if (gpu_) gpu_->download_u(u_.data());
#endif
  return u_;
}

template <class T>
std::vector<FieldRef> ReactionDiffusionModule<T>::fields() {
  solution();
  const index_t N = g_.size();
  std::vector<FieldRef> out;
  for (int k = 0; k < m_; ++k) {
    T* plane = planes_[std::size_t(k)].data();
#pragma omp parallel for schedule(static)
    for (index_t o = 0; o < N; ++o) plane[o] = u_[std::size_t(o * m_ + k)];
    out.push_back({names_[std::size_t(k)], precision_of<T>(), plane});
  }
  return out;
}

// Per species: min, max, integral (trapezoidal rule) and mean (integral / volume), over the owned
// nodes of every rank.
template <class T>
std::vector<Diagnostic> ReactionDiffusionModule<T>::diagnostics(double) {
  const StatsSpec spec = StatsSpec::integral(g_, HUGE_VAL, HUGE_VAL);
  const Grid& whole = domain_ ? domain_->global() : g_;
  double volume = 1;
  for (int a = 0; a < whole.dim; ++a) volume *= whole.hi[std::size_t(a)] - whole.lo[std::size_t(a)];
  std::vector<Diagnostic> out;
  if (!gpu_) fields();  // the planes
  for (int k = 0; k < m_; ++k) {
    FieldStats st = owned_stats(spec, domain_, [&](const StatsSpec& sp) {
#if TRIDSIM_HAVE_CUDA
      if (gpu_) return gpu_->stats(sp, k);
#endif
      return field_stats(sp, planes_[std::size_t(k)].data());
    });
    st.make_nan_visible();
    const std::string& name = names_[std::size_t(k)];
    out.push_back({name + "_min", st.lo});
    out.push_back({name + "_max", st.hi});
    out.push_back({name + "_mean", st.sum / volume});
    out.push_back({name + "_integral", st.sum});
  }
  return out;
}

// Against the deck's `exact` solution: norms over every species and (owned) node together, from
// each species' norms (the same node count each: l2^2 is their mean).
template <class T>
std::optional<ErrorNorms> ReactionDiffusionModule<T>::error_norms(double t) {
  if (exact_.empty()) return std::nullopt;
  fields();  // the planes
  std::vector<double> ex(static_cast<std::size_t>(g_.size()));
  ErrorNorms all{"", 0, 0};
  for (int k = 0; k < m_; ++k) {
    exact_[std::size_t(k)].fill(g_, t, ex.data());
    const T* plane = planes_[std::size_t(k)].data();
    const ErrorNorms e = domain_ ? error_norms_of("", plane, ex.data(), StatsSpec::plain(g_).owned(domain_->layout()), *domain_)
                                 : error_norms_of("", plane, ex.data(), g_.size());
    all.l2 += e.l2 * e.l2 / m_;
    all.max = std::max(all.max, e.max);
    if (std::isnan(e.max)) all.max = e.max;
    all.field += (k ? "," : "") + names_[std::size_t(k)];
  }
  all.l2 = std::sqrt(all.l2);
  return all;
}

template <class T>
std::vector<StateArray> ReactionDiffusionModule<T>::state() {
  solution();
  return {{"u", precision_of<T>(), u_.data(), index_t(u_.size())}};
}

template <class T>
void ReactionDiffusionModule<T>::state_restored() {
#if TRIDSIM_HAVE_CUDA
  if (gpu_) gpu_->upload_u(u_.data());
#endif
}

template class ReactionDiffusionModule<float>;
template class ReactionDiffusionModule<double>;

}  // namespace tridsim
