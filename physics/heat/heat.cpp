#include "physics/heat/heat.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "core/device.hpp"
#include "core/diffusion.hpp"
#include "core/expression_fill.hpp"
#include "core/expression_translate.hpp"
#include "core/native_code.hpp"
#include "physics/heat/face_data.hpp"
#include "physics/heat/heat_gpu.hpp"
#include "physics/module_keys.hpp"
#include "solvers/sparse_direct/diffusion_matrix.hpp"
#include "solvers/sparse_direct/multifrontal.hpp"
#include "solvers/tridiagonal/batched.hpp"
#include "solvers/tridiagonal/distributed.hpp"
#include "solvers/tridiagonal/line_solvers.hpp"
#include "solvers/tridiagonal/split_rhs_sums.hpp"
#include "tridsim_build_info.hpp"

namespace tridsim {

template <class T>
struct HeatModule<T>::Run {
  index_t o, i0, j, k, w;
};

// The unsplit Crank-Nicolson step (see step_unsplit): W (I - dt/2 A) factored, its explicit half,
// and the source and face data of the step's start, kept from the previous step's end.
template <class T>
struct HeatModule<T>::Unsplit {
  sparse::DiffusionProblem implicit;   // shift 1, scale dt/2 (kappa0 folded in when constant)
  sparse::DiffusionProblem explicit_;  // the same with scale -dt/2: W (I + dt/2 A)
  std::vector<double> kappa;           // node values for the matrix (empty: constant kappa0)
  std::unique_ptr<sparse::Multifrontal<T>> solver;
  double dt = -1;                      // of the factorization
  int factorizations = 0;
  AlignedVector<T> f_next;             // f(t + dt) of a moving source
  double f_time = 0, g_time = 0;       // the times of f_ and of flux_ (moving faces)
};

namespace {
int face_id(int axis, int side) { return 2 * axis + side; }
// Is time a the time b? (the driver forms times as start + j dt; a step's t + dt may differ from
// the next step's t by rounding)
bool same_time(double a, double b, double dt) { return std::abs(a - b) <= 1e-9 * dt; }
}  // namespace

// ---- setup ---------------------------------------------------------------------------------

#if !TRIDSIM_HAVE_CUDA
// Without CUDA a HeatGpu is never made (setup refuses the cuda backend); HeatModule still
// needs its destructor to exist.
template <class T>
struct HeatGpu<T>::Impl {};
template <class T>
HeatGpu<T>::~HeatGpu() = default;
#endif

template <class T>
HeatModule<T>::HeatModule() = default;
template <class T>
HeatModule<T>::~HeatModule() = default;

template <class T>
bool HeatModule<T>::split(int axis) const {
  return domain_ && domain_->layout().split(axis);
}

// A Neumann face's data g enter u at its nodes as the flux term 2 kappa g / h per unit time, so one
// step adds up to 2 kappa_max dt |g| / h there, which the step then grows as it grows u: both must
// stay in T (else NaN in the first step). Checked at each of `times` where g moves.
template <class T>
void HeatModule<T>::require_neumann_headroom(const DeckNode& s, const std::vector<double>& times, double kappa_max,
                                             double dt, double gain2) const {
  for (const Face& f : bc_.faces()) {
    if (f.kind != BoundaryKind::neumann) continue;
    std::vector<double> g(static_cast<std::size_t>(f.size()));
    double m = 0;
    for (const double t : times_for(f.value.uses_time(), times)) {
      f.evaluate(g_, t, g.data());
      m = std::max(m, largest_magnitude(f.size(), g.data()));
    }
    const double growth = neumann_flux_term(kappa_max * dt, 1.0, 1 / g_.h(f.axis));
    require_step_headroom<T>(face_spec(s.child("boundary"), f.name()), "value", g_, gain2, m, growth,
                             fmt::format(" (the flux term 2 kappa dt / h = {:.3g} times them enters u at the face, "
                                         "then G^2 = {:.3g})", growth, gain2));
  }
}

// Periodic faces run with every line scheme on the cpu backend (the lines of a periodic axis are
// cyclic: solvers/tridiagonal/cyclic.hpp); what does not run them yet is a DeckError.
template <class T>
void HeatModule<T>::require_periodic_runs(const DeckNode& s, const SetupContext& ctx,
                                          const std::array<bool, 3>& periodic) const {
  for (int a = 0; a < g_.dim; ++a) {
    if (!periodic[std::size_t(a)]) continue;
    const DeckNode face = face_spec(s.child("boundary"), face_name(a, 0));
    const char axis = "xyz"[a];
    auto fail = [&](const std::string& why) { face.fail("type", fmt::format("periodic faces of {}: {}", axis, why)); };
    if (ctx.backend == Backend::cuda)
      fail("the cuda backend has no periodic (cyclic) line solves yet (issue 37); use backend: cpu");
    if (split(a))
      fail(fmt::format("axis {} is split over ranks, and lines split over ranks are not periodic yet (issue 37); split "
                       "only the other axes (parallel.ranks with 1 for {}), or run on one rank",
                       axis, axis));
    if (g_.n[a] < 3) fail(fmt::format("a periodic axis needs at least 3 nodes, grid.n gives {}", g_.n[a]));
    if (unsplit_)
      s.fail("scheme", fmt::format("the unsplit crank-nicolson step (one sparse system) does not take periodic faces "
                                   "yet (issue 37; {} is periodic); use scheme: douglas, or peaceman-rachford in 2D",
                                   axis));
    if (solvers_.cpu[a] != tridiag::Algorithm::thomas)
      s.fail("solver", fmt::format("the periodic lines of {} are solved by the cyclic Thomas algorithm "
                                   "(solvers/tridiagonal/cyclic.hpp); pcr and cr take no periodic lines: use thomas or "
                                   "auto there",
                                   axis));
  }
}

template <class T>
void HeatModule<T>::setup(const Grid& whole, const DeckNode& s, const SetupContext& ctx, double t0) {
  // Under MPI every array below covers this rank's local box (owned nodes and halos).
  domain_ = ctx.domain && ctx.domain->distributed() ? ctx.domain : nullptr;
  Grid grid = domain_ ? domain_->local() : whole;
  // Periodic axes (the driver's grid says the same; a test's may not): n distinct nodes, h = L/n.
  const std::array<bool, 3> periodic = Boundary::periodic_axes(s, grid.dim);
  for (int a = 0; a < 3; ++a) grid.periodic[a] = periodic[a] && !split(a);  // (a split one is refused below)
  g_ = grid;
  const auto& constants = ctx.constants;
  const std::vector<double> times = ctx.check_times(t0);  // data that move: finite over the run
  const KeyTable keys = heat_keys();
  // 1. Scheme.
  scheme_ = s.get_enum_or_default("scheme", kSchemeNames, keys)
                .value_or(grid.dim == 1 ? Scheme::crank_nicolson : grid.dim == 2 ? Scheme::peaceman_rachford : Scheme::douglas);
  if (scheme_ == Scheme::peaceman_rachford && grid.dim != 2)
    s.fail("scheme", "peaceman-rachford is a 2D scheme; use douglas in 1D and 3D");

  // 2. Coefficients: diffusivity (constant or a function of x, y, z) and source.
  const Expression kappa = Expression::from_deck(s, "diffusivity", constants);
  if (kappa.uses_time()) s.fail("diffusivity", "may depend on x, y and z but not on t");
  if (kappa.is_constant()) {
    kappa0_ = T(kappa(0, 0, 0, 0));
    s.require(kappa0_ > 0 && std::isfinite(double(kappa0_)), "diffusivity", double(kappa0_), "positive");
  } else {
    variable_kappa_ = true;
    kappa_.resize(grid.size());
    fill_on_backend(s, "diffusivity", kappa, ctx.backend, grid, t0, kappa_.data());
    require_finite_values(s, "diffusivity", grid, t0, kappa_.data());
    const T lo = *std::min_element(kappa_.begin(), kappa_.end());
    s.require(lo > 0 && std::isfinite(double(lo)), "diffusivity", quoted(kappa.text()) + " (minimum " + std::to_string(lo) + ")",
              "positive at every grid node");
  }
  const double kappa_max = variable_kappa_ ? double(*std::max_element(kappa_.begin(), kappa_.end())) : double(kappa0_);
  const double gain2 = require_step_gain<T>(s, "diffusivity", grid, kappa_max, ctx.dt.value_or(0.0));
  source_ = Expression::from_deck_or_default(s, "source", keys, constants);
  has_source_ = !(source_.is_constant() && source_(0, 0, 0, 0) == 0.0);
  source_moves_ = source_.uses_time();
  if (has_source_) {
    f_.resize(grid.size());
    fill_on_backend(s, "source", source_, ctx.backend, grid, t0, f_.data());
    require_finite_values(s, "source", grid, t0, f_.data());
    if (source_moves_) require_finite_expression(s, "source", source_, grid, {times.begin() + 1, times.end()});
  }
  if (s.has("exact")) {
    exact_ = Expression::from_deck(s, "exact", constants);
    require_finite_expression(s, "exact", *exact_, grid, times);
  }

  read_solver(s, ctx, keys);
  require_periodic_runs(s, ctx, periodic);
  if (domain_ && unsplit_)
    s.fail("scheme", "the unsplit crank-nicolson step (one sparse system) does not run on several ranks; use "
                     "scheme: douglas (or run on one rank)");
  if (domain_ && variable_kappa_) domain_->exchange_halos(kappa_.data());  // the owners' values in the halos

  // 3. Initial state and boundary conditions.
  const Expression initial = Expression::from_deck(s, "initial", constants);
  std::array<std::array<bool, 2>, 3> interfaces{};
  if (domain_)
    for (int a = 0; a < 3; ++a)
      interfaces[a] = {domain_->layout().axes[a].halo_lo == 1, domain_->layout().axes[a].halo_hi == 1};
  bc_.read(s, grid, constants, interfaces, true);
  bc_.require_finite(s, times);
  require_neumann_headroom(s, times, kappa_max, ctx.dt.value_or(0.0), gain2);
  u_.resize(grid.size());
  fill_on_backend(s, "initial", initial, ctx.backend, grid, t0, u_.data());
  require_finite_values(s, "initial", grid, t0, u_.data());
  require_step_headroom(s, "initial", grid, gain2, u_.data());
  bc_.impose_dirichlet(t0, u_.data());
  if (grid.dim > 1 || unsplit_) work_.resize(grid.size());
  flux_.clear();
  face_data_.clear();
  face_scratch_.clear();
  for (const auto& f : bc_.faces()) {
    AlignedVector<T> flux(f.size(), T(0)), data(f.size(), T(0));
    if (f.kind == BoundaryKind::neumann) f.evaluate(grid, t0, flux.data());
    // PR: Dirichlet stages carry values; stage 2 takes the y faces' Neumann data from face_data_.
    if (scheme_ == Scheme::peaceman_rachford &&
        (f.kind == BoundaryKind::dirichlet || (f.axis == 1 && f.kind == BoundaryKind::neumann)))
      f.evaluate(grid, t0, data.data());
    flux_.push_back(std::move(flux));
    face_data_.push_back(std::move(data));
    for (int k = 0; k < 3; ++k) face_scratch_.emplace_back(f.size(), T(0));
  }
  if (unsplit_) setup_unsplit(s, ctx, t0);
  compiled_ = 0;
  if (ctx.backend != Backend::cuda || unsplit_) {
    // What the host evaluates at every node on every step, compiled together (check compiles it
    // too, so that the run finds it in the cache); muparser's values bit for bit, which stay the
    // fallback.
    NativeBatch batch;
    if (source_moves_) batch.add(source_);
    bc_.compile_moving(batch);
    batch.compile("heat", "the moving source and boundary data");
    compiled_ = int(source_.compiled());
    for (const Face& f : bc_.faces()) compiled_ += f.value.compiled();
  }

  // 4. The cuda backend: fields move to the device for the whole run (the unsplit step keeps u on
  //    the host and factors and solves on the device: setup_unsplit).
  if (ctx.backend == Backend::cuda && !unsplit_) {
#if TRIDSIM_HAVE_CUDA
    typename HeatGpu<T>::Config c;
    c.grid = grid;
    c.kappa0 = kappa0_;
    c.kappa = variable_kappa_ ? kappa_.data() : nullptr;
    c.has_source = has_source_;
    c.solver = solvers_.gpu;
    for (int a = 0; a < grid.dim; ++a)
      for (int side = 0; side < 2; ++side) {
        c.dirichlet[a][side] = bc_.dirichlet(a, side);
        c.deck_kind[a][side] = bc_.deck_kind(a, side);
      }
    c.domain = domain_;
    gpu_ = std::make_unique<HeatGpu<T>>(c);
    gpu_->upload_u(u_.data());
    if (has_source_) gpu_->upload_source(f_.data());
    if (source_moves_) {  // evaluated on the device every step
      translate_expression_from_deck(s, "source", constants);  // a deck error if it does not translate
      gpu_->use_source_expression(source_);
    }
    const DeckNode boundary = s.child("boundary");
    for (const Face& f : bc_.faces()) {  // moving data are evaluated on the device: a deck error if they do not translate
      if (!f.value.uses_time()) continue;
      const auto spec = boundary.maybe_child(f.name());
      translate_expression_from_deck(spec ? *spec : boundary.child("all"), "value", constants);
    }
    gpu_->use_boundary(bc_, scheme_ == Scheme::peaceman_rachford, flux_, face_data_);
#else
    throw Error("backend cuda: this build has no CUDA support (configure with -DTRIDSIM_CUDA=ON)");
#endif
  }
}

// ---- the solver: lines or the unsplit step --------------------------------------------------

// `solver`: a name of kSolverNames, or (lines) a line solver's name or a map of them per axis
// (physics/solver_choice.hpp). Needs scheme_, variable_kappa_ and g_.
template <class T>
void HeatModule<T>::read_solver(const DeckNode& s, const SetupContext& ctx, const KeyTable& keys) {
  std::optional<Solver> family;  // nullopt: auto
  bool lines_word = false;       // the key says `lines`: every axis's line solver is auto
  if (s.has("solver") && s.is_map("solver")) {
    family = Solver::lines;
  } else {
    const auto word = s.get_or_default<std::string>("solver", keys);
    if (const auto v = parse_name(kSolverNames, word)) {
      family = *v;
      lines_word = family == Solver::lines;
    } else if (tridiag::find_line_solver(word)) {
      family = Solver::lines;
    } else {
      std::vector<std::string> names = names_of(kSolverNames);
      for (const auto& n : tridiag::all_line_solver_names())
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
      s.fail("solver", "unknown solver: " + unknown_name_message(word, names) +
                           " (line solvers: one name, or per axis {x: ..., y: ...})");
    }
  }
  cn_.reset();
  const bool cn = scheme_ == Scheme::crank_nicolson;
  const std::string scheme = name_of(kSchemeNames, std::optional<Scheme>(scheme_));
  if (family == Solver::multifrontal && !cn)
    s.fail("solver", "multifrontal solves the unsplit crank-nicolson step; " + scheme +
                         " is split into tridiagonal lines: use scheme: crank-nicolson, or solver: lines (or a "
                         "line solver's name)");
  unsplit_ = cn && (family == Solver::multifrontal || (!family && g_.dim > 1));
  if (cn && !unsplit_ && g_.dim > 1)
    s.fail("solver", "crank-nicolson in 2D and 3D is unsplit, one sparse system per step: use solver: multifrontal "
                     "(or auto); line solvers serve the split schemes douglas and peaceman-rachford");
  if (unsplit_) return;
  // `lines` reads as auto on every axis (read_solver_choice knows only the line solvers' names).
  const Deck all_auto = Deck::parse("solver: auto\n", s.key_path("solver"));
  solvers_ = read_solver_choice(lines_word ? all_auto.root() : s, g_, ctx.backend, sizeof(T), !variable_kappa_, keys);
}

// The unsplit step's problem and solver: the analysis (nested dissection, exact sizes) now, the
// factorization at the first step (it needs dt).
template <class T>
void HeatModule<T>::setup_unsplit(const DeckNode& s, const SetupContext& ctx, double t0) {
  cn_ = std::make_unique<Unsplit>();
  Unsplit& c = *cn_;
  sparse::DiffusionProblem& p = c.implicit;
  p.dim = g_.dim;
  for (int a = 0; a < 3; ++a) {
    p.n[a] = a < g_.dim ? g_.n[a] : 1;
    p.h[a] = a < g_.dim ? g_.h(a) : 1.0;
    for (int side = 0; side < 2; ++side) p.dirichlet[a][side] = a < g_.dim && bc_.dirichlet(a, side);
  }
  if (variable_kappa_) {
    c.kappa.assign(kappa_.begin(), kappa_.end());
    p.kappa = c.kappa.data();
  }
  p.shift = 1;
  c.explicit_ = p;
  sparse::SolverOptions options;
  options.backend = ctx.backend;
  c.solver = std::make_unique<sparse::Multifrontal<T>>(p.pattern(), options);
  try {  // a grid too large for this machine is the deck's problem: say so at setup, not at the first step
    sparse::check_memory(c.solver->working_bytes(), options.memory_limit, "the crank-nicolson matrix's factorization");
  } catch (const DeckError&) {
    throw;
  } catch (const Error& e) {
    s.fail("scheme", std::string(e.what()) + " (or a split scheme: douglas)");
  }
  c.f_time = c.g_time = t0;  // setup evaluated f_ and flux_ at t0
  if (source_moves_) c.f_next.resize(g_.size());
  const auto& a = c.solver->analysis();
  spdlog::info("heat: crank-nicolson, unsplit: multifrontal Cholesky of {} unknowns ({} fronts, factor {:.1f} MiB, "
               "working memory {:.1f} MiB, analysis {:.3f} s)",
               a.unknowns(), a.fronts().size(), c.solver->factor_bytes() / 1048576.0,
               c.solver->working_bytes() / 1048576.0, a.seconds());
}

// ---- the explicit operator on a run of x-adjacent nodes ------------------------------------

template <class T>
typename HeatModule<T>::Run HeatModule<T>::run_at(index_t o, index_t w) const {
  const index_t nx = g_.n[0], ny = g_.n[1];
  return Run{o, o % nx, (o / nx) % ny, o / (nx * ny), w};
}

// Does the run reach the x face of `side`? (Lines split over ranks hand the solver runs of owned nodes.)
template <class T>
bool HeatModule<T>::holds_x_end(const Run& r, int side) const {
  return side ? r.i0 + r.w == g_.n[0] : r.i0 == 0;
}

// Does the run lie on a Dirichlet face of y or z (other than `skip_axis`)?
template <class T>
bool HeatModule<T>::on_dirichlet_line(const Run& r, int skip_axis) const {
  for (int a = 1; a < g_.dim; ++a) {
    if (a == skip_axis) continue;
    const index_t pos = a == 1 ? r.j : r.k;
    if ((pos == 0 && bc_.dirichlet(a, 0)) || (pos == g_.n[a] - 1 && bc_.dirichlet(a, 1))) return true;
  }
  return false;
}

// out[l] += scale * (A_axis src) at the run's nodes; A = d/dx(kappa d/dx) with mirrored
// neighbours at Neumann faces and the opposite ends' at periodic ones; nodes on a Dirichlet face
// of `axis` are left alone.
template <class T>
void HeatModule<T>::add_operator(int axis, const T* src, const Run& r, T scale, T* out) const {
  const index_t n = g_.n[axis];
  const T c = scale / T(g_.h(axis) * g_.h(axis));
  const T* kap = variable_kappa_ ? kappa_.data() : nullptr;
  auto kernel = [&](index_t o0, index_t count, index_t sm, index_t sp, T* dst) {
    if (kap) {
#pragma omp simd
      for (index_t l = 0; l < count; ++l) {
        const index_t o = o0 + l;
        const T kp = T(0.5) * (kap[o] + kap[o + sp]), km = T(0.5) * (kap[o] + kap[o + sm]);
        dst[l] += c * (kp * (src[o + sp] - src[o]) - km * (src[o] - src[o + sm]));
      }
    } else {
      const T ck = c * kappa0_;
#pragma omp simd
      for (index_t l = 0; l < count; ++l) {
        const index_t o = o0 + l;
        dst[l] += ck * (src[o + sm] - T(2) * src[o] + src[o + sp]);
      }
    }
  };
  // Node pos's neighbours along the axis: at the ends mirrored, or the opposite ends (periodic).
  auto at = [&](index_t pos, index_t s, auto&& apply) {
    index_t sm, sp;
    if (bc_.periodic(axis)) wrapped_neighbours(pos, n, s, sm, sp);
    else mirrored_neighbours(pos, n, s, sm, sp);
    apply(sm, sp);
  };
  if (axis == 0) {
    const index_t a = r.i0, b = r.i0 + r.w;
    const index_t ia = std::max<index_t>(a, 1), ib = std::min<index_t>(b, n - 1);
    if (ib > ia) kernel(r.o + (ia - a), ib - ia, -1, 1, out + (ia - a));
    if (a == 0 && !bc_.dirichlet(0, 0)) at(0, 1, [&](index_t sm, index_t sp) { kernel(r.o, 1, sm, sp, out); });
    if (b == n && !bc_.dirichlet(0, 1))
      at(n - 1, 1, [&](index_t sm, index_t sp) { kernel(r.o + (n - 1 - a), 1, sm, sp, out + (n - 1 - a)); });
    return;
  }
  const index_t pos = axis == 1 ? r.j : r.k;
  if ((pos == 0 && bc_.dirichlet(axis, 0)) || (pos == n - 1 && bc_.dirichlet(axis, 1))) return;
  at(pos, g_.strides()[axis], [&](index_t sm, index_t sp) { kernel(r.o, r.w, sm, sp, out); });
}

// out += scale * 2 kappa g / h at Neumann-face nodes of `axis` (g: the outward derivative, in
// `data`: flux_, or face_data_ for the second Peaceman-Rachford stage).
template <class T>
void HeatModule<T>::add_flux(int axis, const Run& r, T scale, const std::vector<AlignedVector<T>>& data, T* out) const {
  const T ih = T(1.0 / g_.h(axis));
  auto kap = [&](index_t o) { return variable_kappa_ ? kappa_[o] : kappa0_; };
  if (axis == 0) {
    const index_t face_index = r.j + g_.n[1] * r.k, last = g_.n[0] - 1;
    if (r.i0 == 0 && bc_.neumann(0, 0)) out[0] += scale * neumann_flux_term(kap(r.o), data[face_id(0, 0)][face_index], ih);
    if (r.i0 + r.w - 1 == last && bc_.neumann(0, 1))
      out[r.w - 1] += scale * neumann_flux_term(kap(r.o + r.w - 1), data[face_id(0, 1)][face_index], ih);
    return;
  }
  const index_t pos = axis == 1 ? r.j : r.k;
  const int side = pos == 0 ? 0 : pos == g_.n[axis] - 1 ? 1 : -1;
  if (side < 0 || !bc_.neumann(axis, side)) return;
  const T* g = data[face_id(axis, side)].data() + r.i0 + g_.n[0] * (axis == 1 ? r.k : r.j);
  for (index_t l = 0; l < r.w; ++l) out[l] += scale * neumann_flux_term(kap(r.o + l), g[l], ih);
}

template <class T>
void HeatModule<T>::add_source(const Run& r, T scale, T* out) const {
  if (!has_source_) return;
  const T* f = f_.data() + r.o;
#pragma omp simd
  for (index_t l = 0; l < r.w; ++l) out[l] += scale * f[l];
}

// ---- boundary data of a step ---------------------------------------------------------------
//
// Write F_a(t, u) = A_a u + b_a(t) for axis a's part of the operator with its Neumann data
// (b_a = 2 kappa g / h at the nodes of a Neumann face of a, g the outward derivative). Douglas is
// the theta = 1/2 method with these affine F_a, in delta form:
//   du_0 = dt (A u + b(t) + f(t + dt/2)),
//   (I - dt/2 A_a) du_a = du_{a-1} + dt/2 db_a,  db_a = b_a(t + dt) - b_a(t)  (a = x, y, z),   u += du_last.
// Multiplied out (2D): (I - dt/2 A) du = dt (A u + (b(t) + b(t+dt))/2 + f) - dt^2/4 A_x (A_y du + db_y):
// Crank-Nicolson up to a splitting term in which A_y du + db_y is the step's increment of the
// discrete d2u/dy2, smooth up to every face, so the scheme stays second order in the max norm.
// With all of b in the explicit part (b(t + dt/2), no increments in the stages) the term is
// dt^2/4 A_x A_y du instead: along a Neumann face of y, A_y du holds the flux increment 2 kappa dg/h,
// and where that face meets a Neumann face of x, A_x of it is O(dt/h^2) at the corner: a point
// source there, an error dt^2 log(1/h) in the max norm (measured order 1.84 at h = dt = 1/256).
// Peaceman-Rachford with the same F_a: stage 1 takes b_y(t), stage 2 b_y(t + dt), both b_x at the
// mean time; multiplied out it has the same splitting term.
// Stage 1's own increment joins the explicit part, where b_x(t) + db_x/2 is taken as b_x(t + dt/2)
// (as in Crank-Nicolson's source). So (see heat.hpp): flux_ is g(t + dt/2) on x faces and g(t) on
// y, z faces; face_data_ of a Neumann face of y or z is g(t+dt) - g(t) (Douglas, added by
// set_face_rows) or g(t+dt) (Peaceman-Rachford stage 2).

// The face arrays of the host: flux_, face_data_ and per-face scratch (face_data.hpp's Ops).
template <class T>
struct HeatModule<T>::HostFaceOps {
  HeatModule& m;
  const Face& face(std::size_t fi) const { return m.bc_.faces()[fi]; }
  T* flux(std::size_t fi) { return m.flux_[fi].data(); }
  T* data(std::size_t fi) { return m.face_data_[fi].data(); }
  T* dflux(std::size_t fi) { return m.face_scratch_[3 * fi].data(); }
  T* g0(std::size_t fi) { return m.face_scratch_[3 * fi + 1].data(); }
  T* g1(std::size_t fi) { return m.face_scratch_[3 * fi + 2].data(); }
  void evaluate(std::size_t fi, double t, T* out) { face(fi).evaluate(m.g_, t, out); }
  void subtract(std::size_t fi, const T* a, const T* b, T* out) {
    for (index_t e = 0; e < face(fi).size(); ++e) out[e] = a[e] - b[e];
  }
  void half_step(std::size_t fi, const T* g, const T* d, T* out) {
    for (index_t e = 0; e < face(fi).size(); ++e) out[e] = g[e] + T(0.5) * d[e];
  }
  void copy(std::size_t fi, const T* in, T* out) { std::copy(in, in + face(fi).size(), out); }
  void apply(std::size_t fi, const FaceOperator<T>& op, const T* in, T* out) {
    for (index_t e = 0; e < face(fi).size(); ++e) out[e] = op(in, e);
  }
};

// Boundary data for the step from t to t + dt (see above). On Dirichlet faces, the value each
// implicit stage must produce there so that the later stages give g(t+dt) - g(t): with
// M_b v = v - dt/2 (A_b v + db_b), Douglas: du_a = M_{a+1} ... M_last (g(t+dt) - g(t));
// Peaceman-Rachford: u* = g(t) + M_y (g(t+dt) - g(t)) / 2 on x faces, u^{n+1} = g(t+dt) on y faces.
// With the cuda backend the device prepares the same data from the same code (face_data.hpp).
template <class T>
void HeatModule<T>::prepare_step(double t, double dt) {
  matrices_changed_ = dt != matrix_dt_ && !variable_kappa_;
  if (matrices_changed_)
    for (int a = 0; a < g_.dim; ++a) {
      const T w = T(0.5 * dt * kappa0_ / (g_.h(a) * g_.h(a)));
      if (bc_.periodic(a)) cyclic_[a] = tridiag::cyclic_diffusion_matrix<T>(g_.n[a], w);
      else uniform_[a] = tridiag::uniform_diffusion_matrix<T>(g_.n[a], w, bc_.kind(a, 0), bc_.kind(a, 1));
    }
  matrix_dt_ = dt;
  if (gpu_) return;
  if (source_moves_) source_.fill(g_, t + 0.5 * dt, f_.data());
  HostFaceOps ops{*this};
  prepare_face_data(bc_, scheme_ == Scheme::peaceman_rachford, t, dt, variable_kappa_ ? kappa_.data() : nullptr,
                    kappa0_, ops);
}

// Before the implicit stage of `axis` (Douglas, y and z): Dirichlet rows get their stage value;
// rows on a Neumann face whose data move get the stage's flux increment
// dt/2 * 2 kappa (g(t+dt) - g(t)) / h (face_data_).
template <class T>
void HeatModule<T>::set_face_rows(int axis, double dt, T* field) const {
  for (int side = 0; side < 2; ++side) {
    const Face& f = bc_.face(axis, side);
    const T* data = face_data_[face_id(axis, side)].data();
    if (bc_.dirichlet(axis, side)) {
      for (index_t iq = 0; iq < f.nq; ++iq)
        for (index_t ip = 0; ip < f.np; ++ip) field[f.node(g_, ip, iq)] = data[ip + f.np * iq];
      continue;
    }
    if (f.kind != BoundaryKind::neumann || !f.value.uses_time()) continue;
    const T half_dt = T(0.5 * dt), ih = T(1.0 / g_.h(axis));
    for (index_t iq = 0; iq < f.nq; ++iq)
      for (index_t ip = 0; ip < f.np; ++ip) {
        const index_t node = f.node(g_, ip, iq);
        field[node] += half_dt * neumann_flux_term(variable_kappa_ ? kappa_[node] : kappa0_, data[ip + f.np * iq], ih);
      }
  }
}

// ---- time stepping -------------------------------------------------------------------------

// Lines along a split axis: each rank solves its segments, the reduced rows cross the ranks of the
// axis (solvers/tridiagonal/distributed.hpp); the rows are the whole line's (global row indices,
// the deck's end conditions).
template <class T>
template <class Load, class Store>
void HeatModule<T>::sweep(int axis, double dt, const Load& load, const Store& store,
                          const tridiag::SplitRhsSums<T>* summed) {
  const auto lines = tridiag::LineSet::dense(g_, axis);
  const T w = stage_weight(axis, dt);
  if (split(axis)) {
    LineComm& comm = domain_->line_comm(axis);
    const AxisSplit& part = domain_->layout().axes[axis];
    if (summed) {
      tridiag::solve_split_lines<T>(*summed, load, store, comm);
    } else if (variable_kappa_) {
      const tridiag::DiffusionCoeffs<T> rows{
          kappa_.data(), w, g_.strides()[axis], part.global_n, bc_.deck_kind(axis, 0), bc_.deck_kind(axis, 1)};
      tridiag::solve_split_lines<T>(lines, tridiag::segment_of(part), rows, load, store, comm);
    } else {
      tridiag::solve_split_lines<T>(lines, tridiag::segment_of(part), constant_split_rows(axis, dt), load, store, comm);
    }
    return;
  }
  const tridiag::DiffusionCoeffs<T> rows{kappa_.data(), w, g_.strides()[axis], g_.n[axis], bc_.kind(axis, 0),
                                         bc_.kind(axis, 1)};
  if (bc_.periodic(axis)) {  // cyclic lines (setup refused the other line solvers there)
    if (variable_kappa_) tridiag::solve_cyclic_lines<T>(lines, rows, load, store);
    else tridiag::solve_cyclic_lines<T>(lines, cyclic_[axis], load, store);
  } else if (variable_kappa_) {
    tridiag::solve_lines<T>(lines, rows, load, store, solvers_.cpu[axis]);
  } else {
    tridiag::solve_lines<T>(lines, uniform_[axis], load, store, solvers_.cpu[axis]);
  }
}

template <class T>
T HeatModule<T>::stage_weight(int axis, double dt) const {
  return T(0.5 * dt / (g_.h(axis) * g_.h(axis)));
}

template <class T>
tridiag::ConstantDiffusionRows<T> HeatModule<T>::constant_split_rows(int axis, double dt) const {
  return {stage_weight(axis, dt) * kappa0_, domain_->layout().axes[axis].global_n, bc_.deck_kind(axis, 0),
          bc_.deck_kind(axis, 1)};
}

// The sums of a split axis's reduced right-hand sides, started for the sweep before it to add to
// (rows shared by every line, constant kappa, only); nullptr where the axis is not summed.
template <class T>
tridiag::SplitRhsSums<T>* HeatModule<T>::start_rhs_sums(int axis, double dt) {
  if (axis >= g_.dim || !split(axis) || variable_kappa_) return nullptr;
  auto& sums = rhs_sums_[axis];
  if (!sums) sums = std::make_unique<tridiag::SplitRhsSums<T>>();
  sums->start(tridiag::LineSet::dense(g_, axis), tridiag::segment_of(domain_->layout().axes[axis]),
              constant_split_rows(axis, dt));
  return sums.get();
}

template <class T>
void HeatModule<T>::wait() {
#if TRIDSIM_HAVE_CUDA
  if (gpu_) gpu_->synchronize();
#endif
}

template <class T>
void HeatModule<T>::step(double t, double dt) {
  if (unsplit_) return step_unsplit(t, dt);
  prepare_step(t, dt);
  if (gpu_) return step_gpu(t, dt);
  if (domain_) domain_->exchange_halos(u_.data());  // the explicit operator reads the neighbours' nodes
  if (scheme_ == Scheme::peaceman_rachford) step_peaceman_rachford(t, dt);
  else step_douglas(t, dt);
  if (bc_.dirichlet_moves()) bc_.impose_dirichlet(t + dt, u_.data());
}

// The same step on the device, which also makes the step's source and boundary data.
template <class T>
void HeatModule<T>::step_gpu(double t, double dt) {
#if TRIDSIM_HAVE_CUDA
  if (matrices_changed_)
    for (int a = 0; a < g_.dim; ++a) gpu_->upload_matrix(a, uniform_[a]);
  if (source_moves_) gpu_->evaluate_source(t + 0.5 * dt);
  gpu_->prepare_faces(t, dt);
  if (scheme_ == Scheme::peaceman_rachford) gpu_->step_peaceman_rachford(dt);
  else gpu_->step_douglas(dt);
  if (bc_.dirichlet_moves()) gpu_->impose_dirichlet(t + dt);
#else
  (void)t;
  (void)dt;
#endif
}

// Douglas in delta form (Crank-Nicolson in 1D), b_a: the Neumann data of axis a (see prepare_step):
//   (I - dt/2 A_x) du_x = dt (A u + b_x(t + dt/2) + b_y(t) + b_z(t) + f),
//   (I - dt/2 A_a) du_a = du_{a-1} + dt/2 (b_a(t + dt) - b_a(t)),   u += du_last.
// Stage 1 forms its right-hand side inside the x-sweep's load; the last stage adds du to u in
// its store; the middle stage (3D) works in place.
template <class T>
void HeatModule<T>::step_douglas(double, double dt) {
  const int d = g_.dim;
  const index_t nx = g_.n[0], ny = g_.n[1];
  const T tau = T(dt);
  T* u = u_.data();
  T* w = work_.data();
  auto rhs = [&](index_t o, index_t count, T* out) {
    const Run r = run_at(o, count);
    std::fill(out, out + count, T(0));
    if (on_dirichlet_line(r, 0)) return;  // a line on a y/z Dirichlet face: its nodes are fixed
    add_source(r, tau, out);
    for (int a = 0; a < d; ++a) {
      add_operator(a, u, r, tau, out);
      add_flux(a, r, tau, flux_, out);
    }
    for (int side = 0; side < 2; ++side)
      if (bc_.dirichlet(0, side) && holds_x_end(r, side))
        out[side ? count - 1 : 0] = face_data_[face_id(0, side)][r.j + ny * r.k];
  };
  const int last = d - 1;
  auto add_to_u = [&](index_t o, index_t count, const T* x) {
    const Run r = run_at(o, count);
    if (last > 0 && on_dirichlet_line(r, last)) return;
    index_t lo = 0, hi = count;
    if (last > 0 && r.i0 == 0 && bc_.dirichlet(0, 0)) lo = 1;
    if (last > 0 && r.i0 + count == nx && bc_.dirichlet(0, 1)) hi = count - 1;
    T* dst = u + o;
#pragma omp simd
    for (index_t l = lo; l < hi; ++l) dst[l] += x[l];
  };
  auto load_work = [&](index_t o, index_t count, T* out) { std::copy(w + o, w + o + count, out); };
  auto store_work = [&](index_t o, index_t count, const T* x) { std::copy(x, x + count, w + o); };
  // Where the next axis is split (constant kappa), a sweep's store also sums that axis's reduced
  // right-hand sides, so the split sweep reads its right-hand side once, as an unsplit one does.
  std::array<const tridiag::SplitRhsSums<T>*, 3> summed{};
  auto sweep_to_work = [&](int axis, const auto& load) {
    tridiag::SplitRhsSums<T>* sums = start_rhs_sums(axis + 1, dt);
    summed[axis + 1] = sums;
    if (!sums) return sweep(axis, dt, load, store_work, summed[axis]);
    sweep(
        axis, dt, load,
        [&](index_t o, index_t count, const T* x) {
          store_work(o, count, x);
          sums->add(o, count, x);
        },
        summed[axis]);
  };

  if (d == 1) {
    sweep(0, dt, rhs, add_to_u);
    return;
  }
  sweep_to_work(0, rhs);
  for (int a = 1; a < d; ++a) {
    set_face_rows(a, dt, w);
    if (a < last) sweep_to_work(a, load_work);
    else sweep(a, dt, load_work, add_to_u, summed[a]);
  }
}

// Peaceman-Rachford (2D), b_a: the Neumann data of axis a, b_x at t + dt/2:
//   (I - dt/2 A_x) u* = (I + dt/2 A_y) u^n + dt/2 (b_x + b_y(t) + f),
//   (I - dt/2 A_y) u^{n+1} = (I + dt/2 A_x) u* + dt/2 (b_x + b_y(t + dt) + f).
template <class T>
void HeatModule<T>::step_peaceman_rachford(double, double dt) {
  const index_t nx = g_.n[0], ny = g_.n[1];
  const T half = T(0.5 * dt);
  T* u = u_.data();
  T* v = work_.data();
  auto stage1 = [&](index_t o, index_t count, T* out) {
    const Run r = run_at(o, count);
    std::copy(u + o, u + o + count, out);
    if (on_dirichlet_line(r, 0)) return;
    add_operator(1, u, r, half, out);
    add_flux(0, r, half, flux_, out);
    add_flux(1, r, half, flux_, out);  // g_y(t)
    add_source(r, half, out);
    for (int side = 0; side < 2; ++side)
      if (bc_.dirichlet(0, side) && holds_x_end(r, side))
        out[side ? count - 1 : 0] = face_data_[face_id(0, side)][r.j + ny * r.k];
  };
  auto store_v = [&](index_t o, index_t count, const T* x) { std::copy(x, x + count, v + o); };
  auto stage2 = [&](index_t o, index_t count, T* out) {
    const Run r = run_at(o, count);
    for (int side = 0; side < 2; ++side)
      if (r.j == (side ? ny - 1 : 0) && bc_.dirichlet(1, side)) {
        const T* g = face_data_[face_id(1, side)].data() + r.i0;
        std::copy(g, g + count, out);
        return;
      }
    std::copy(v + o, v + o + count, out);
    add_operator(0, v, r, half, out);
    add_flux(0, r, half, flux_, out);
    add_flux(1, r, half, face_data_, out);  // g_y(t + dt)
    add_source(r, half, out);
  };
  auto store_u = [&](index_t o, index_t count, const T* x) {
    const Run r = run_at(o, count);
    const index_t lo = r.i0 == 0 && bc_.dirichlet(0, 0) ? 1 : 0;
    const index_t hi = r.i0 + count == nx && bc_.dirichlet(0, 1) ? count - 1 : count;
    std::copy(x + lo, x + hi, u + o + lo);
  };
  sweep(0, dt, stage1, store_v);
  if (split(0)) domain_->exchange_halos(v);  // stage 2's operator along x reads u* beyond this box
  sweep(1, dt, stage2, store_u);
}

// ---- the unsplit Crank-Nicolson step (2D, 3D; 1D with solver: multifrontal) ----------------
//
// The semi-discrete system is u' = A u + b(t) + f(t) (A: every axis's operator, b: the Neumann
// faces' flux terms 2 kappa g / h at their nodes' half cells, Dirichlet nodes fixed), and the
// step is its trapezoidal rule, with no splitting:
//   (I - dt/2 A) u^{n+1} = (I + dt/2 A) u^n + dt/2 (b(t) + b(t+dt) + f(t) + f(t+dt)).
// Every row is multiplied by its node's cell weight W (1/2 on a face, 1/4 on an edge, 1/8 at a
// corner), which makes W (I - dt/2 A) symmetric positive definite (sparse_direct/
// diffusion_matrix.hpp): the matrix is factored once per dt and each step is one solve. The
// face data enter at both time levels, so where two time-dependent Neumann faces meet (corners,
// edges) the step is as second order as anywhere else; the split schemes' term dt^2/4 A_x A_y du
// does not exist here.

template <class T>
int HeatModule<T>::factorizations() const {
  return cn_ ? cn_->factorizations : 0;
}

// W (I - dt/2 A) for this dt, factored; its explicit half W (I + dt/2 A) beside it.
template <class T>
void HeatModule<T>::factor_unsplit(double dt) {
  Unsplit& c = *cn_;
  const double scale = 0.5 * dt * (variable_kappa_ ? 1.0 : double(kappa0_));  // kappa = nullptr: 1
  c.implicit.scale = scale;
  c.explicit_.scale = -scale;
  const sparse::StencilMatrix<T> a = sparse::diffusion_matrix<T>(c.implicit);
  c.solver->factor(a);
  if (c.factorizations++ == 0)
    spdlog::info("heat: factored W (I - dt/2 L) for dt = {:.6g} in {:.3f} s", dt, c.solver->factor_seconds());
  else
    spdlog::info("heat: dt changed from {:.6g} to {:.6g}: refactored (same analysis) in {:.3f} s", c.dt, dt,
                 c.solver->factor_seconds());
  c.dt = dt;
}

template <class T>
void HeatModule<T>::step_unsplit(double t, double dt) {
  Unsplit& c = *cn_;
  // 1. The matrix: factored at the first step and again when dt changes (a last step shortened to
  //    an output time); a difference at rounding level (times are start + j dt) is the same dt.
  if (!same_time(dt, c.dt, dt)) factor_unsplit(dt);
  const sparse::DiffusionProblem& p = c.implicit;
  const index_t nx = p.n[0], ny = p.n[1], nz = p.n[2];
  const T half = T(0.5 * dt);
  T* b = work_.data();
  // 2. The explicit half: b = W (I + dt/2 A) u^n (0 on Dirichlet rows).
  sparse::apply_diffusion<T>(c.explicit_, u_.data(), b);
  // 3. The source at both time levels: b += W dt/2 (f(t) + f(t+dt)); f(t+dt) is the next step's f(t).
  if (has_source_) {
    if (source_moves_) {
      if (!same_time(c.f_time, t, dt)) source_.fill(g_, t, f_.data());
      source_.fill(g_, t + dt, c.f_next.data());
    }
    const T* f0 = f_.data();
    const T* f1 = source_moves_ ? c.f_next.data() : f0;
#pragma omp parallel for collapse(2) schedule(static)
    for (index_t k = 0; k < nz; ++k)
      for (index_t j = 0; j < ny; ++j)
        for (index_t i = 0; i < nx; ++i) {
          const index_t o = i + nx * (j + ny * k);  // x-fastest
          b[o] += T(p.cell_weight(i, j, k)) * half * (f0[o] + f1[o]);
        }
    if (source_moves_) {
      std::swap(f_, c.f_next);
      c.f_time = t + dt;
    }
  }
  // 4. The Neumann faces at both time levels: b += W dt/2 (b(t) + b(t+dt)); a node on two or three
  //    Neumann faces takes each face's term. flux_ holds g at g_time, scratch g(t + dt).
  const bool refresh = !same_time(c.g_time, t, dt);
  for (std::size_t fi = 0; fi < bc_.faces().size(); ++fi) {
    const Face& f = bc_.faces()[fi];
    if (f.kind != BoundaryKind::neumann) continue;
    T* g0 = flux_[fi].data();
    T* g1 = g0;
    if (f.value.uses_time()) {
      if (refresh) f.evaluate(g_, t, g0);
      g1 = face_scratch_[3 * fi + 2].data();
      f.evaluate(g_, t + dt, g1);
    }
    const T ih = T(1.0 / g_.h(f.axis));
    for (index_t iq = 0; iq < f.nq; ++iq)
      for (index_t ip = 0; ip < f.np; ++ip) {
        std::array<index_t, 3> ijk{};
        ijk[f.axis] = f.fixed;
        ijk[f.p] = ip;
        ijk[f.q] = iq;
        const index_t node = g_.index(ijk[0], ijk[1], ijk[2]), e = ip + f.np * iq;  // face arrays x-fastest
        const T k = variable_kappa_ ? kappa_[node] : kappa0_;
        b[node] += T(p.cell_weight(ijk[0], ijk[1], ijk[2])) * half *
                   (neumann_flux_term(k, g0[e], ih) + neumann_flux_term(k, g1[e], ih));
      }
    if (f.value.uses_time()) std::swap(flux_[fi], face_scratch_[3 * fi + 2]);
  }
  c.g_time = t + dt;
  // 5. The Dirichlet values of t + dt: their rows, and their couplings moved to the other rows.
  if (bc_.dirichlet_moves()) bc_.impose_dirichlet(t + dt, u_.data());
  sparse::dirichlet_lift<T>(p, u_.data(), b);
  // 6. One solve gives u^{n+1} (the Dirichlet rows are identity rows: their values exactly).
  c.solver->solve(b);
  std::swap(u_, work_);
}

// ---- output --------------------------------------------------------------------------------

template <class T>
std::vector<FieldRef> HeatModule<T>::fields() {
  solution();  // brings u from the device
  std::vector<FieldRef> out{{"u", precision_of<T>(), u_.data()}};
  if (variable_kappa_) out.push_back({"kappa", precision_of<T>(), kappa_.data()});
  return out;
}

template <class T>
std::vector<Diagnostic> HeatModule<T>::diagnostics(double) {
  const FieldStats s = owned_stats(StatsSpec::plain(g_), domain_, [&](const StatsSpec& spec) {
#if TRIDSIM_HAVE_CUDA
    if (gpu_) return gpu_->stats(spec);
#endif
    return field_stats(spec, u_.data());
  });
  return min_max_mean("u", s, domain_ ? domain_->global().size() : g_.size());
}

template <class T>
std::optional<ErrorNorms> HeatModule<T>::error_norms(double t) {
  if (!exact_) return std::nullopt;
  solution();
  AlignedVector<double> e(g_.size());
  exact_->fill(g_, t, e.data());
  if (domain_) return error_norms_of("u", u_.data(), e.data(), StatsSpec::plain(g_).owned(domain_->layout()), *domain_);
  return error_norms_of("u", u_.data(), e.data(), g_.size());
}

template <class T>
const AlignedVector<T>& HeatModule<T>::solution() {
#if TRIDSIM_HAVE_CUDA
  if (gpu_) gpu_->download_u(u_.data());
#endif
  return u_;
}

template <class T>
std::vector<StateArray> HeatModule<T>::state() {
  solution();  // (from the device with the cuda backend)
  return {{"u", precision_of<T>(), u_.data(), index_t(u_.size())}};
}

// The next step depends only on u and the time: every other array is remade from the deck or the step.
template <class T>
void HeatModule<T>::state_restored() {
#if TRIDSIM_HAVE_CUDA
  if (gpu_) gpu_->upload_u(u_.data());
#endif
}

template class HeatModule<float>;
template class HeatModule<double>;

}  // namespace tridsim
