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
#include "physics/glioma/scheme.hpp"
#include "physics/glioma/tissue.hpp"
#include "physics/module_keys.hpp"
#include "physics/solver_choice.hpp"
#include "solvers/exec/host.hpp"
#include "tridsim_build_info.hpp"

namespace tridsim {

namespace {

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
          const double right = p + 1 < n ? double(face_mean<FaceMean::harmonic>(D_[o], D_[o + st])) : 0.0;
          const double left = p > 0 ? double(face_mean<FaceMean::harmonic>(D_[o], D_[o - st])) : 0.0;
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

  // 6. Where c lives and the steps run: host memory, or the device's for the whole run.
  if (ctx.backend == Backend::cuda) {
#if TRIDSIM_HAVE_CUDA
    stepper_ = glioma::make_cuda_stepper<T>(grid, domain_, solvers_.gpu, D_.data(), rho_);
#else
    throw Error("backend cuda: this build has no CUDA support (configure with -DTRIDSIM_CUDA=ON)");
#endif
  } else {
    stepper_ = glioma::make_host_stepper<T>(grid, domain_, solvers_.cpu, D_.data(), rho_);
  }
  stepper_->set_density(c_.data());
}

template <class T>
std::optional<double> GliomaModule<T>::max_stable_dt() const {
  if (scheme_ != Scheme::explicit_euler) return std::nullopt;  // unconditionally stable
  return explicit_limit_;
}

template <class T>
void GliomaModule<T>::wait() {
  stepper_->wait();
}

template <class T>
void GliomaModule<T>::step(double, double dt) {
  if (scheme_ == Scheme::explicit_euler) stepper_->step_explicit(dt);
  else stepper_->step_adi(dt);
}

// ---- output --------------------------------------------------------------------------------

template <class T>
const AlignedVector<T>& GliomaModule<T>::density() {
  stepper_->get_density(c_.data());
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
  const FieldStats s = owned_stats(spec, domain_, [&](const StatsSpec& sp) { return stepper_->stats(sp); });
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
  stepper_->set_density(c_.data());
}

template class GliomaModule<float>;
template class GliomaModule<double>;

namespace glioma {

// The host instantiation of the schemes.
template <class T>
std::unique_ptr<Stepper<T>> make_host_stepper(const Grid& grid, const Domain* domain,
                                              const std::array<tridiag::Algorithm, 3>& alg, const T* D, double rho) {
  return std::make_unique<Scheme<T, exec::HostExec<T>>>(grid, domain, alg, D, rho);
}
template std::unique_ptr<Stepper<float>> make_host_stepper(const Grid&, const Domain*,
                                                           const std::array<tridiag::Algorithm, 3>&, const float*, double);
template std::unique_ptr<Stepper<double>> make_host_stepper(const Grid&, const Domain*,
                                                            const std::array<tridiag::Algorithm, 3>&, const double*,
                                                            double);

}  // namespace glioma

}  // namespace tridsim
