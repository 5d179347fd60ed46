#include "physics/glioma/glioma.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numbers>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/expression_fill.hpp"
#include "core/non_finite.hpp"
#include "physics/glioma/face_lines.hpp"
#include "physics/glioma/glioma_gpu.hpp"
#include "physics/glioma/reaction.hpp"
#include "physics/glioma/tissue.hpp"
#include "physics/module_keys.hpp"
#include "solvers/tridiagonal/batched.hpp"
#include "solvers/tridiagonal/distributed.hpp"
#include "physics/solver_choice.hpp"
#include "tridsim_build_info.hpp"

namespace tridsim {

namespace {

// Face diffusivity: harmonic mean, 0 next to a node with D = 0 (no flux). Exactly symmetric in
// its arguments, so a face has one value whichever node asks: the CPU's face arrays and the
// GPU's means recomputed from D agree bitwise, and the operator is symmetric (conservative).
template <class T>
T face(T a, T b) {
  return face_mean<FaceMean::harmonic>(a, b);
}

// A node's white and grey fractions sum to at most 1 (the rest is CSF or outside the brain).
void require_fractions_sum(const DeckNode& s, const Grid& g, const std::vector<double>& white,
                           const std::vector<double>& grey) {
  for (index_t o = 0; o < g.size(); ++o) {
    const double sum = white[std::size_t(o)] + grey[std::size_t(o)];
    if (sum <= 1 + 1e-9) continue;
    const index_t i = o % g.n[0], j = (o / g.n[0]) % g.n[1], k = o / (g.n[0] * g.n[1]);  // (x-fastest)
    s.fail("tissue", fmt::format("white + grey = {:g} {}: the fractions of a node sum to at most 1 (the rest is CSF "
                                 "or outside the brain)",
                                 sum, node_where(g, i, j, k)));
  }
}

}  // namespace

#if !TRIDSIM_HAVE_CUDA
template <class T>
struct GliomaGpu<T>::Impl {};
template <class T>
GliomaGpu<T>::~GliomaGpu() = default;
#endif

template <class T>
GliomaModule<T>::GliomaModule() = default;
template <class T>
GliomaModule<T>::~GliomaModule() = default;

// ---- setup ---------------------------------------------------------------------------------

template <class T>
void GliomaModule<T>::setup(const Grid& whole, const DeckNode& s, const SetupContext& ctx, double t0) {
  // Under MPI every array covers this rank's local box (owned nodes and halos).
  domain_ = ctx.domain && ctx.domain->distributed() ? ctx.domain : nullptr;
  const Grid grid = domain_ ? domain_->local() : whole;
  g_ = grid;
  const index_t N = grid.size();
  // 1. Scheme and parameters.
  const KeyTable keys = glioma_keys();
  scheme_ = s.get_enum_or_default("scheme", kSchemeNames, keys);
  D_white_ = s.get<double>("D_white");
  s.require(D_white_ >= 0 && std::isfinite(D_white_), "D_white", D_white_, "a finite diffusivity >= 0 (mm^2/day)");
  D_grey_ = s.get<double>("D_grey");
  s.require(D_grey_ >= 0 && std::isfinite(D_grey_), "D_grey", D_grey_, "a finite diffusivity >= 0 (mm^2/day)");
  rho_ = s.get<double>("rho");
  s.require(rho_ >= 0 && std::isfinite(rho_), "rho", rho_, "a finite proliferation rate >= 0 (1/day)");
  t1_ = table_default<double>(keys, "glioma.thresholds.t1");
  flair_ = table_default<double>(keys, "glioma.thresholds.flair");
  if (auto th = s.maybe_child("thresholds")) {
    t1_ = th->get_or_default<double>("t1", keys);
    flair_ = th->get_or_default<double>("flair", keys);
    th->require(t1_ > 0 && t1_ <= 1, "t1", t1_, "a density in (0, 1]");
    th->require(flair_ > 0 && flair_ <= 1, "flair", flair_, "a density in (0, 1]");
  }

  // 2. Tissue: white and grey fractions, D = D_white * white + D_grey * grey (0 elsewhere).
  //    (Maps are read over the whole grid, every rank keeping its box.)
  const DeckNode tissue = s.child("tissue");
  std::vector<double> white(whole.size()), grey(whole.size());
  for (auto [key, map] : {std::pair{"white", &white}, std::pair{"grey", &grey}}) {
    glioma::read_tissue_map(tissue, key, whole, ctx.constants, map->data());
    require_finite_values(tissue, key, whole, t0, map->data());  // (min and max can step over a NaN)
    const auto [lo, hi] = std::minmax_element(map->begin(), map->end());
    if (!(*lo >= -1e-9 && *hi <= 1 + 1e-9))
      tissue.fail(key, "must be a fraction in [0, 1] at every node, got values in [" + std::to_string(*lo) + ", " +
                           std::to_string(*hi) + "]");
  }
  require_fractions_sum(s, whole, white, grey);
  if (domain_) {
    for (auto* map : {&white, &grey}) {
      std::vector<double> mine(N);
      domain_->take_local(map->data(), mine.data());
      map->swap(mine);
    }
  }
  white_.resize(N);
  grey_.resize(N);
  D_.resize(N);
  for (index_t i = 0; i < N; ++i) {
    white_[i] = T(std::clamp(white[i], 0.0, 1.0));
    grey_[i] = T(std::clamp(grey[i], 0.0, 1.0));
    D_[i] = T(D_white_ * double(white_[i]) + D_grey_ * double(grey_[i]));
  }

  // (fractions sum to at most 1: D is at most the larger of the two)
  require_step_gain<T>(s, D_white_ >= D_grey_ ? "D_white" : "D_grey", grid, std::max(D_white_, D_grey_),
                       ctx.dt.value_or(0.0));

  // 3. Initial density: a Gaussian seed or an expression; none outside the tissue.
  c_.assign(N, T(0));
  if (s.has("seed") == s.has("initial")) s.fail("seed", "give exactly one of 'seed' (a Gaussian) or 'initial' (an expression)");
  if (auto seed = s.maybe_child("seed")) {
    const auto center = seed->get<std::vector<double>>("center");
    if (center.size() != std::size_t(grid.dim))
      seed->fail("center", "expected " + std::to_string(grid.dim) + " coordinates (one per grid axis)");
    const double width = seed->get<double>("width"), peak = seed->get<double>("peak");
    seed->require(width > 0 && std::isfinite(width), "width", width, "a positive length (the Gaussian's standard deviation)");
    seed->require(peak > 0 && peak <= 1, "peak", peak, "a density in (0, 1]");
#pragma omp parallel for collapse(2)
    for (index_t k = 0; k < grid.n[2]; ++k)
      for (index_t j = 0; j < grid.n[1]; ++j)
        for (index_t i = 0; i < grid.n[0]; ++i) {
          const index_t ijk[3] = {i, j, k};
          double r2 = 0;
          for (int a = 0; a < grid.dim; ++a) {
            const double d = grid.coord(a, ijk[a]) - center[std::size_t(a)];
            r2 += d * d;
          }
          c_[grid.index(i, j, k)] = T(peak * std::exp(-0.5 * r2 / (width * width)));
        }
  } else {
    const Expression initial = Expression::from_deck(s, "initial", ctx.constants);
    if (initial.uses_time()) s.fail("initial", "is the density at the start time: it may use x, y, z but not t");
    fill_on_backend(s, "initial", initial, ctx.backend, grid, t0, c_.data());
    require_finite_values(s, "initial", grid, t0, c_.data());
    const auto [lo, hi] = std::minmax_element(c_.begin(), c_.end());
    if (!(*lo >= 0 && *hi <= 1)) s.fail("initial", "must be a density in [0, 1] at every node");
  }
  for (index_t i = 0; i < N; ++i)
    if (!(white_[i] + grey_[i] > 0)) c_[i] = 0;

  // 4. The explicit scheme's limit: forward Euler keeps 0 <= c <= 1 (and is stable) while
  //    dt (sum of the node's face diffusivities / h^2 + rho) <= 1 at every node.
  //    (Owned nodes only, the largest over the ranks: a halo's missing neighbour is not a face.)
  double worst = 0;
#pragma omp parallel for collapse(2) reduction(max : worst)
  for (index_t k = 0; k < grid.n[2]; ++k)
    for (index_t j = 0; j < grid.n[1]; ++j)
      for (index_t i = 0; i < grid.n[0]; ++i) {
        if (domain_ && !domain_->layout().owns(i, j, k)) continue;
        const index_t ijk[3] = {i, j, k}, o = grid.index(i, j, k);
        double sum = 0;
        for (int a = 0; a < grid.dim; ++a) {
          const index_t st = grid.strides()[a], p = ijk[a], n = grid.n[a];
          const double right = p + 1 < n ? double(face(D_[o], D_[o + st])) : 0.0;
          const double left = p > 0 ? double(face(D_[o], D_[o - st])) : 0.0;
          sum += (p == 0 ? 2 * right : p == n - 1 ? 2 * left : left + right) / (grid.h(a) * grid.h(a));
        }
        worst = std::max(worst, sum);
      }
  if (domain_) worst = domain_->max(worst);
  explicit_limit_ = worst + rho_ > 0 ? 1.0 / (worst + rho_) : std::numeric_limits<double>::infinity();
  spdlog::info("glioma: explicit (forward Euler) stability limit on this grid: dt <= {:.4g}{}", explicit_limit_,
               scheme_ == Scheme::strang_adi ? " (strang-adi has none)" : "");

  // 5. The line solver of each axis (the `solver` key, as the heat module's).
  solvers_ = read_solver_choice(s, grid, ctx.backend, sizeof(T), false, keys);

  // 6. The cuda backend: c and D move to the device for the whole run. The CPU keeps the face
  //    diffusivities of each axis (F_a[o]: between o and o + stride; 0 at a line's end) instead
  //    of recomputing harmonic means in every sweep.
  if (ctx.backend != Backend::cuda) {
    if (grid.dim > 1 || scheme_ == Scheme::explicit_euler) work_.resize(N);
    for (int a = 0; a < grid.dim; ++a) {
      F_[a].resize(N);
      const index_t st = grid.strides()[a], n = grid.n[a];
      T* F = F_[a].data();
      const T* D = D_.data();
#pragma omp parallel for collapse(2)
      for (index_t k = 0; k < grid.n[2]; ++k)
        for (index_t j = 0; j < grid.n[1]; ++j)
          for (index_t i = 0; i < grid.n[0]; ++i) {
            const index_t ijk[3] = {i, j, k}, o = grid.index(i, j, k);
            F[o] = ijk[a] + 1 < n ? face(D[o], D[o + st]) : T(0);
          }
    }
  } else {
#if TRIDSIM_HAVE_CUDA
    gpu_ = std::make_unique<GliomaGpu<T>>(grid, D_.data(), rho_, solvers_.gpu, domain_);
    gpu_->upload_c(c_.data());
#else
    throw Error("backend cuda: this build has no CUDA support (configure with -DTRIDSIM_CUDA=ON)");
#endif
  }
}

template <class T>
std::optional<double> GliomaModule<T>::max_stable_dt() const {
  if (scheme_ != Scheme::explicit_euler) return std::nullopt;  // unconditionally stable
  return explicit_limit_;
}

// ---- the diffusion operator on a run of x-adjacent nodes -----------------------------------

// A_a c = (D_{+} (c_{+} - c) - D_{-} (c - c_{-})) / h_a^2 along each axis, with the missing
// neighbour mirrored at the box faces (no flux; the half cell of the vertex-centred grid). The
// face diffusivities come from F_a: D_{+} = F_a[o], D_{-} = F_a[o - stride] (mirrored alike).
template <class T>
void GliomaModule<T>::add_operator(const T* c, index_t o0, index_t i0, index_t j, index_t k, index_t w, T scale,
                                   T* out) const {
  // sm, sp: offsets of the neighbours; fm, fp: offsets of their faces in F.
  auto kernel = [&](const T* F, index_t first, index_t count, index_t sm, index_t sp, index_t fm, index_t fp, T coef,
                    T* dst) {
#pragma omp simd
    for (index_t l = 0; l < count; ++l) {
      const index_t o = first + l;
      const T kp = F[o + fp], km = F[o + fm];
      dst[l] += coef * diffusion_difference(km, kp, c[o + sm], c[o], c[o + sp]);
    }
  };
  for (int a = 0; a < g_.dim; ++a) {
    const index_t n = g_.n[a], st = g_.strides()[a];
    const T coef = scale / T(g_.h(a) * g_.h(a));
    const T* F = F_[a].data();
    if (a == 0) {
      const index_t ia = std::max<index_t>(i0, 1), ib = std::min<index_t>(i0 + w, n - 1);
      if (ib > ia) kernel(F, o0 + (ia - i0), ib - ia, -1, 1, -1, 0, coef, out + (ia - i0));
      if (i0 == 0) kernel(F, o0, 1, 1, 1, 0, 0, coef, out);
      if (i0 + w == n) kernel(F, o0 + (n - 1 - i0), 1, -1, -1, -1, -1, coef, out + (n - 1 - i0));
      continue;
    }
    const index_t pos = a == 1 ? j : k;
    const index_t sm = pos > 0 ? -st : st, fm = pos > 0 ? -st : 0;
    const index_t sp = pos < n - 1 ? st : -st, fp = pos < n - 1 ? 0 : -st;
    kernel(F, o0, w, sm, sp, fm, fp, coef, out);
  }
}

// ---- time stepping -------------------------------------------------------------------------

template <class T>
void GliomaModule<T>::react(T* c, double tau) const {
  const Logistic<T> L(rho_, tau);
  const index_t n = g_.size();
#pragma omp parallel for simd schedule(static)
  for (index_t i = 0; i < n; ++i) c[i] = L(c[i]);
}

template <class T>
void GliomaModule<T>::wait() {
#if TRIDSIM_HAVE_CUDA
  if (gpu_) gpu_->synchronize();
#endif
}

template <class T>
void GliomaModule<T>::step(double, double dt) {
  if (gpu_) {
#if TRIDSIM_HAVE_CUDA
    if (scheme_ == Scheme::explicit_euler) gpu_->step_explicit(dt);
    else gpu_->step_adi(dt);
#endif
    return;
  }
  if (domain_) domain_->exchange_halos(c_.data());  // the operator reads the neighbours' nodes
  if (scheme_ == Scheme::explicit_euler) step_explicit(dt);
  else step_adi(dt);
}

// Strang splitting with Douglas ADI in delta form for the diffusion:
//   c* = L(dt/2) c
//   (I - dt/2 A_x)(I - dt/2 A_y)(I - dt/2 A_z) dc = dt A c*
//   c  = L(dt/2) (c* + dc)
// The right-hand side is formed in the x-sweep's load, the last half reaction applied in the
// last sweep's store; the line matrices are generated from the face diffusivities (no-flux ends).
template <class T>
void GliomaModule<T>::step_adi(double dt) {
  T* c = c_.data();
  T* w = work_.data();
  react(c, 0.5 * dt);
  const int d = g_.dim;
  const index_t nx = g_.n[0], ny = g_.n[1];
  const Logistic<T> L(rho_, 0.5 * dt);
  auto rhs = [&](index_t o, index_t count, T* out) {  // a whole x-line (Thomas along x)
    std::fill(out, out + count, T(0));
    add_operator(c, o, o % nx, (o / nx) % ny, o / (nx * ny), count, T(dt), out);
  };
  auto finish = [&](index_t o, index_t count, const T* x) {
    T* dst = c + o;
#pragma omp simd
    for (index_t l = 0; l < count; ++l) dst[l] = L(dst[l] + x[l]);
  };
  // (Plain loops: the runs are short (one tile row), where a memmove call costs more than the copy.)
  auto load_work = [&](index_t o, index_t count, T* out) {
#pragma omp simd
    for (index_t l = 0; l < count; ++l) out[l] = w[o + l];
  };
  auto store_work = [&](index_t o, index_t count, const T* x) {
#pragma omp simd
    for (index_t l = 0; l < count; ++l) w[o + l] = x[l];
  };
  auto sweep = [&](int axis, const auto& load, const auto& store) {
    const T wa = T(0.5 * dt / (g_.h(axis) * g_.h(axis)));
    if (domain_ && domain_->layout().split(axis)) {  // this rank's segments; rows of the whole line
      const AxisSplit& part = domain_->layout().axes[axis];
      const glioma::FaceLines<T> m{F_[axis].data(), wa, g_.strides()[axis], part.global_n};
      tridiag::solve_split_lines<T>(tridiag::LineSet::dense(g_, axis), tridiag::segment_of(part),
                                    m, load, store, domain_->line_comm(axis));
      return;
    }
    const glioma::FaceLines<T> m{F_[axis].data(), wa, g_.strides()[axis], g_.n[axis]};
    tridiag::solve_lines<T>(tridiag::LineSet::dense(g_, axis), m, load, store, solvers_.cpu[axis]);
  };
  if (d == 1) {
    sweep(0, rhs, finish);
    return;
  }
  sweep(0, rhs, store_work);
  for (int a = 1; a < d; ++a) {
    if (a < d - 1) sweep(a, load_work, store_work);
    else sweep(a, load_work, finish);
  }
}

// Forward Euler: c += dt (A c + rho c (1 - c)).
template <class T>
void GliomaModule<T>::step_explicit(double dt) {
  const T* c = c_.data();
  T* out = work_.data();
  const index_t nx = g_.n[0], ny = g_.n[1], lines = g_.n[1] * g_.n[2];
  const T tau = T(dt), r = T(rho_);
#pragma omp parallel for schedule(static)
  for (index_t q = 0; q < lines; ++q) {
    const index_t o = q * nx;
    T* dst = out + o;
    std::fill(dst, dst + nx, T(0));
    add_operator(c, o, 0, q % ny, q / ny, nx, tau, dst);
#pragma omp simd
    for (index_t l = 0; l < nx; ++l) dst[l] = c[o + l] + (dst[l] + logistic_increment(tau, r, c[o + l]));
  }
  c_.swap(work_);
}

// ---- output --------------------------------------------------------------------------------

template <class T>
const AlignedVector<T>& GliomaModule<T>::density() {
#if TRIDSIM_HAVE_CUDA
  if (gpu_) gpu_->download_c(c_.data());
#endif
  return c_;
}

template <class T>
std::vector<FieldRef> GliomaModule<T>::fields() {
  density();
  return {{"c", precision_of<T>(), c_.data()},
          {"white", precision_of<T>(), white_.data()},
          {"grey", precision_of<T>(), grey_.data()},
          {"D", precision_of<T>(), D_.data()}};
}

// Burden = integral of c; visible volumes = measure of {c >= t1} (T1 contrast) and
// {c >= flair} (FLAIR), by the trapezoidal rule; radii of the ball (disc, interval) of equal volume.
template <class T>
std::vector<Diagnostic> GliomaModule<T>::diagnostics(double) {
  // thresholds rounded to T: compared with c as the CPU's T comparisons would
  const StatsSpec spec = StatsSpec::integral(g_, double(T(t1_)), double(T(flair_)));
  const FieldStats s = owned_stats(spec, domain_, [&](const StatsSpec& sp) {
#if TRIDSIM_HAVE_CUDA
    if (gpu_) return gpu_->stats(sp);
#endif
    return field_stats(sp, c_.data());
  });
  const double lo = s.lo, hi = s.hi, burden = s.sum, v1 = s.level[0], v2 = s.level[1];
  auto radius = [&](double v) {
    if (g_.dim == 3) return std::cbrt(3 * v / (4 * std::numbers::pi));
    if (g_.dim == 2) return std::sqrt(v / std::numbers::pi);
    return v / 2;
  };
  // c is a fraction of the carrying capacity; volumes are lengths^dim (areas in 2D)
  const std::string volume = g_.dim == 1 ? "length" : fmt::format("length^{}", g_.dim);
  return {{"c_min", lo, "1"},           {"c_max", hi, "1"},           {"burden", burden, volume},
          {"volume_t1", v1, volume},    {"volume_flair", v2, volume}, {"radius_t1", radius(v1), "length"},
          {"radius_flair", radius(v2), "length"}};
}

template <class T>
std::vector<StateArray> GliomaModule<T>::state() {
  density();  // (from the device with the cuda backend)
  return {{"c", precision_of<T>(), c_.data(), index_t(c_.size())}};
}

// The next step depends only on c and the time: every other array is remade from the deck or the step.
template <class T>
void GliomaModule<T>::state_restored() {
#if TRIDSIM_HAVE_CUDA
  if (gpu_) gpu_->upload_c(c_.data());
#endif
}

template class GliomaModule<float>;
template class GliomaModule<double>;

}  // namespace tridsim
