#include "physics/elasticity/elasticity.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "physics/elasticity/plate.hpp"
#include "solvers/sparse_direct/multifrontal.hpp"

namespace tridsim {

namespace {

using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

sparse::GridPattern plate_pattern(const elastic::Plate& p) {
  sparse::GridPattern g;
  g.dim = 2;
  g.n = {p.nx, p.ny, 1};
  g.dofs = 2;                        // (ux, uy) per node
  g.stencil = sparse::Stencil::box;  // a node couples to the 9 nodes of its 4 elements
  return g;
}

// The stiffness matrix, node by node (each node gathers the rows of its up to 4 elements: no two
// threads write one block), with the given components as identity rows: their couplings go to
// `lift` (lift_u = sum over given v of K_uv g_v, to subtract from the right-hand side), so the
// matrix stays symmetric positive definite.
template <class T>
sparse::StencilMatrix<T> assemble(const elastic::Plate& p, std::vector<double>& lift) {
  sparse::StencilMatrix<T> k(plate_pattern(p));
  // An element's stiffness is linear in (d11, d12, d33): three unit matrices from the one
  // formula, then a weighted sum per element.
  double unit[3][64];
  elastic::q4_stiffness(p.hx, p.hy, {1, 0, 0, 0}, p.thickness, unit[0]);
  elastic::q4_stiffness(p.hx, p.hy, {0, 1, 0, 0}, p.thickness, unit[1]);
  elastic::q4_stiffness(p.hx, p.hy, {0, 0, 1, 0}, p.thickness, unit[2]);
  int slot[9];  // stencil offset (dx, dy) -> its index in k.offsets
  for (int o = 0; o < int(k.offsets.size()); ++o) slot[(k.offsets[o][0] + 1) + 3 * (k.offsets[o][1] + 1)] = o;
  lift.assign(std::size_t(p.unknowns()), 0.0);
  const index_t nx = p.nx, ny = p.ny, mx = nx - 1;
#pragma omp parallel for schedule(static)
  for (index_t j = 0; j < ny; ++j)
    for (index_t i = 0; i < nx; ++i) {
      const index_t node = i + nx * j;  // x-fastest
      double blocks[9][4] = {};         // [stencil slot][row dof * 2 + column dof]
      for (index_t ej = std::max<index_t>(j - 1, 0); ej <= std::min(j, ny - 2); ++ej)
        for (index_t ei = std::max<index_t>(i - 1, 0); ei <= std::min(i, nx - 2); ++ei) {
          const elastic::Material& m = p.material[ei + mx * ej];
          const int a = int(i - ei) + 2 * int(j - ej);  // this node in the element
          for (int b = 0; b < 4; ++b) {
            const int dx = int(ei - i) + (b & 1), dy = int(ej - j) + (b >> 1);
            for (int r = 0; r < 2; ++r)
              for (int c = 0; c < 2; ++c) {
                const int e = (2 * a + r) * 8 + 2 * b + c;
                blocks[(dx + 1) + 3 * (dy + 1)][2 * r + c] += m.d11 * unit[0][e] + m.d12 * unit[1][e] + m.d33 * unit[2][e];
              }
          }
        }
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const index_t w = (i + dx) + nx * (j + dy);
          const bool inside = i + dx >= 0 && i + dx < nx && j + dy >= 0 && j + dy < ny;
          T* blk = k.block(node, slot[(dx + 1) + 3 * (dy + 1)]);
          for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 2; ++c) {
              double v = blocks[(dx + 1) + 3 * (dy + 1)][2 * r + c];
              if (p.fixed[2 * node + r]) {
                v = dx == 0 && dy == 0 && r == c ? 1.0 : 0.0;
              } else if (inside && p.fixed[2 * w + c]) {
                lift[2 * node + r] += v * p.given[2 * w + c];
                v = 0;
              }
              blk[2 * r + c] = T(v);
            }
        }
    }
  return k;
}

// What the solve in T can take (else NaN in the solve, "the run diverged"): the stiffness entries
// (E t times the unit element's, a node summing up to 4 elements) and the sums of a row's 18
// couplings that the elimination forms must stay finite; and the loads must leave the displacement
// room, estimated as Poisson's with the smallest shear modulus mu for kappa (a body force as a
// source, a traction as a Neumann flux).
template <class T>
void require_solve_range(const elastic::Plate& p, const Grid& grid, const DeckNode& section) {
  double unit[3][64], umax[3] = {};
  for (int u = 0; u < 3; ++u) {
    elastic::q4_stiffness(p.hx, p.hy, {u == 0 ? 1.0 : 0.0, u == 1 ? 1.0 : 0.0, u == 2 ? 1.0 : 0.0, 0}, 1.0, unit[u]);
    for (const double e : unit[u]) umax[u] = std::max(umax[u], std::abs(e));
  }
  // The element matrices are linear in t: t times the unit ones (first, so that E near the largest
  // number times a thin plate's t is not taken for an overflow).
  const double t = p.thickness, tu[3] = {t * umax[0], t * umax[1], t * umax[2]};
  double entry = 0, e_max = 0, mu = HUGE_VAL;
  for (const elastic::Material& m : p.material) {
    entry = std::max(entry, 4 * (m.d11 * tu[0] + std::abs(m.d12) * tu[1] + m.d33 * tu[2]));
    e_max = std::max(e_max, m.d11);
    mu = std::min(mu, m.d33);
  }
  const double limit = double(std::numeric_limits<T>::max()) / 18;
  if (!(entry <= limit)) {
    const bool thick = t >= e_max;  // t the larger of the entries' two factors
    section.fail(thick ? "thickness" : "E",
                 fmt::format("{} the stiffness entries (E t / (1 - nu^2) times the unit element's) reach {:.3g}; the "
                             "solve sums a row's 18 of them, so they must stay below {:.3g} in {}: {} in other units",
                             thick ? fmt::format("is {:.3g}:", t) : std::string("is too large:"), entry, limit,
                             std::is_same_v<T, float> ? "float" : "double", thick ? "a thickness" : "a modulus"));
  }
  for (const elastic::LoadSize& l : p.load_sizes)
    require_solve_headroom<T>(l.node, l.key, grid, l.m, l.traction ? SteadyData::neumann : SteadyData::source, mu, "mu");
}

// The condition of K the factorization in T resolves: where (E_max / E_min) N^2 (N elements across
// the longer side) nears 1/eps, the stiff elements' rounding swamps the soft ones' stiffness and
// the Cholesky factorization breaks down (seen from 0.5/eps) or leaves no digit right. K = sum_e
// E_e K_e with the same element matrices K_e, so cond K <= (E_max / E_min) cond K(E = 1), and
// cond K(E = 1) grows as N^2. Refused from 0.1/eps: a result keeps about one digit there.
template <class T>
constexpr double kMaxCondition = 0.1 / double(std::numeric_limits<T>::epsilon());

struct ModuliSpan {
  double ratio = 1, condition = 1;
};
ModuliSpan moduli_span(const elastic::Plate& p) {
  double lo = HUGE_VAL, hi = 0;
  for (const elastic::Material& m : p.material) lo = std::min(lo, m.d11), hi = std::max(hi, m.d11);
  const double across = double(std::max(p.nx, p.ny) - 1);
  return {hi / lo, hi / lo * across * across};
}

template <class T>
std::string moduli_message(const ModuliSpan& span, const elastic::Plate& p) {
  constexpr bool is_float = std::is_same_v<T, float>;
  return fmt::format("the moduli of the elements span a ratio of {:.3g}; with {} elements across, the stiffness matrix's "
                     "condition is up to about {:.3g} (the ratio times {}^2), more than the factorization in {} resolves "
                     "(below {:.2g}, 0.1/eps): narrow the range of E{}",
                     span.ratio, std::max(p.nx, p.ny) - 1, span.condition, std::max(p.nx, p.ny) - 1,
                     is_float ? "float" : "double", kMaxCondition<T>,
                     is_float ? ", or run in double" : "");
}

template <class T>
void require_resolvable_moduli(const elastic::Plate& p, const DeckNode& section) {
  const ModuliSpan span = moduli_span(p);
  if (span.ratio > 1 && !(span.condition < kMaxCondition<T>))
    section.fail("E", moduli_message<T>(span, p));
}

// ||K||_inf: the largest sum of |entries| over K's rows.
template <class T>
double max_row_sum(const sparse::StencilMatrix<T>& k) {
  const index_t nodes = index_t(k.values.size()) / (index_t(k.offsets.size()) * k.block_size());
  double out = 0;
#pragma omp parallel for reduction(max : out) schedule(static)
  for (index_t node = 0; node < nodes; ++node)
    for (int r = 0; r < 2; ++r) {
      double sum = 0;
      for (int o = 0; o < int(k.offsets.size()); ++o)
        for (int c = 0; c < 2; ++c) sum += std::abs(double(k.block(node, o)[2 * r + c]));
      out = std::max(out, sum);
    }
  return out;
}

// The normwise backward error of x as a solution of K x = b, ||b - K x|| / (||K|| ||x|| + ||b||)
// (Rigal and Gaches), from the relative residual ||b - K x|| / ||b|| the refinement reports: small
// (a modest multiple of eps) where the factorization resolved K, however ill-conditioned K is;
// the relative residual alone grows with cond K, as x is rounded to T.
template <class T>
double backward_error(double relative_residual, double k_norm, const T* x, const T* b, index_t n) {
  double xx = 0, bb = 0;
  for (index_t i = 0; i < n; ++i) xx += double(x[i]) * double(x[i]), bb += double(b[i]) * double(b[i]);
  const double bn = std::sqrt(bb);
  return bn > 0 ? relative_residual * bn / (k_norm * std::sqrt(xx) + bn) : relative_residual;
}

}  // namespace

template <class T>
struct ElasticityModule<T>::State {
  Grid grid;
  elastic::Plate plate;
  std::unique_ptr<sparse::Multifrontal<T>> solver;
  std::vector<std::vector<T>> u, vm;  // per case: (ux, uy, 0) per node; von Mises per node
  std::vector<std::array<double, 2>> stats;  // per case: max |u|, max von Mises
  double residual = 0, assemble_s = 0, factor_s = 0, solve_s = 0;
  bool solved = false;
  std::string e_where, e_key;  // where the deck gives E, for errors the solve meets

  // A solve that fails or leaves more than this backward error gives no result: the factorization
  // in T did not resolve K (moduli too far apart that require_resolvable_moduli let pass).
  static constexpr double kMaxBackwardError = 1e3 * double(std::numeric_limits<T>::epsilon());
  [[noreturn]] void fail_solve(const std::string& what) const;

  std::string prefix(int c) const { return plate.named_cases ? plate.cases[c].name + "_" : ""; }
  void post_process(int c, const T* x);
};

template <class T>
void ElasticityModule<T>::State::fail_solve(const std::string& what) const {
  throw DeckError(e_where, e_key, fmt::format("{}; {}", what, moduli_message<T>(moduli_span(plate), plate)));
}

template <class T>
ElasticityModule<T>::ElasticityModule() : s_(std::make_unique<State>()) {}
template <class T>
ElasticityModule<T>::~ElasticityModule() = default;

template <class T>
void ElasticityModule<T>::setup(const Grid& grid, const DeckNode& section, const SetupContext& ctx, double /*t0*/) {
  State& s = *s_;
  s.grid = grid;
  s.e_where = section.where("E");
  s.e_key = section.path() + ".E";
  // 1. The deck: material per element, supports, the load cases' nodal forces.
  s.plate = elastic::read_plate(grid, section, ctx.constants);
  require_solve_range<T>(s.plate, grid, section);
  require_resolvable_moduli<T>(s.plate, section);
  // 2. The analysis (nested dissection of the node grid): the factor's size is known now.
  sparse::SolverOptions options;
  options.backend = ctx.backend;
  s.solver = std::make_unique<sparse::Multifrontal<T>>(plate_pattern(s.plate), options);
  const double n = double(s.plate.unknowns()), cases = double(s.plate.cases.size());
  // Host memory: the factor's (on the cpu backend; the cuda one checks its device), the matrix
  // (9 blocks of 2x2 per node) and the right-hand sides with refinement's copies.
  const double factor = ctx.backend == Backend::cuda ? 0.0 : s.solver->working_bytes();
  const double bytes = factor + n * 18 * sizeof(T) + n * cases * (4 * sizeof(T) + sizeof(double));
  try {
    sparse::check_memory(bytes, 0, "the elasticity module's factorization");
  } catch (const Error& e) {
    throw DeckError(section.where(), "grid.n", e.what());
  }
  s.u.assign(s.plate.cases.size(), std::vector<T>(std::size_t(3 * s.plate.nodes()), T(0)));
  s.vm.assign(s.plate.cases.size(), std::vector<T>(std::size_t(s.plate.nodes()), T(0)));
  s.stats.assign(s.plate.cases.size(), {0, 0});
}

template <class T>
void ElasticityModule<T>::step(double /*t*/, double /*dt*/) {
  State& s = *s_;
  const elastic::Plate& p = s.plate;
  const index_t n = p.unknowns(), nc = index_t(p.cases.size());
  // 1. The stiffness matrix with the supports as identity rows.
  auto t0 = clock_type::now();
  std::vector<double> lift;
  const sparse::StencilMatrix<T> k = assemble<T>(p, lift);
  // 2. The right-hand sides, one column per load case: forces minus the supports' couplings;
  // the given value on a given component's row.
  std::vector<T> b(std::size_t(n * nc));
  for (index_t c = 0; c < nc; ++c) {
    const double* f = p.cases[c].force.data();
#pragma omp parallel for schedule(static)
    for (index_t u = 0; u < n; ++u) b[u + n * c] = T(p.fixed[u] ? p.given[u] : f[u] - lift[u]);
  }
  s.assemble_s = since(t0);
  // 3. One factorization, one solve for every case together, refined against K.
  t0 = clock_type::now();
  try {
    s.solver->factor(k);
  } catch (const SingularMatrix& e) {
    s.fail_solve(e.what());
  }
  s.factor_s = since(t0);
  t0 = clock_type::now();
  std::vector<T> x = b;
  const sparse::Refinement r = s.solver->solve_refined(k, x.data(), nc);
  s.solve_s = since(t0);
  s.residual = r.residual;
  const double k_norm = max_row_sum(k);
  double eta = 0;  // the worst case's (an upper bound: r.residual is the worst case's relative residual)
  for (index_t c = 0; c < nc; ++c)
    eta = std::max(eta, backward_error(r.residual, k_norm, x.data() + n * c, b.data() + n * c, n));
  if (!(eta <= State::kMaxBackwardError))
    s.fail_solve(fmt::format("the solve leaves a backward error ||b - K u|| / (||K|| ||u|| + ||b||) of {:.2e} (a result "
                             "needs at most {:.0e})", eta, State::kMaxBackwardError));
  b.swap(x);
  // 4. Displacements, stresses, the diagnostics.
  for (index_t c = 0; c < nc; ++c) s.post_process(int(c), b.data() + n * c);
  s.solved = true;
  const sparse::Analysis& an = s.solver->analysis();
  spdlog::info("elasticity: {} unknowns, {} load case(s); factor {:.3g} GB, {:.3g} Gflop in {:.3g} s; assembly {:.3g} s, "
               "solve {:.3g} s ({} refinement step(s), relative residual {:.2e})",
               n, nc, s.solver->factor_bytes() / 1e9, an.flops() / 1e9, s.factor_s, s.assemble_s, s.solve_s, r.steps,
               r.residual);
}

template <class T>
void ElasticityModule<T>::State::post_process(int c, const T* x) {
  const elastic::Plate& p = plate;
  const index_t nx = p.nx, ny = p.ny, mx = nx - 1, ne = p.elements();
  T* out = u[c].data();
#pragma omp parallel for schedule(static)
  for (index_t node = 0; node < p.nodes(); ++node) {
    out[3 * node] = x[2 * node];
    out[3 * node + 1] = x[2 * node + 1];
    out[3 * node + 2] = T(0);
  }
  // Stress at every element's centre, then its mean over the elements around each node.
  std::vector<double> stress(std::size_t(4 * ne));
#pragma omp parallel for schedule(static)
  for (index_t e = 0; e < ne; ++e) {
    const index_t i = e % mx, j = e / mx;
    double ue[8];
    for (int a = 0; a < 4; ++a)
      for (int q = 0; q < 2; ++q) ue[2 * a + q] = double(x[2 * ((i + (a & 1)) + nx * (j + (a >> 1))) + q]);
    elastic::q4_centre_stress(p.hx, p.hy, p.material[e], ue, &stress[4 * e]);
  }
  T* v = vm[c].data();
  double umax = 0, vmax = 0;
  bool finite = true;
#pragma omp parallel for schedule(static) reduction(max : umax, vmax) reduction(&& : finite)
  for (index_t j = 0; j < ny; ++j)
    for (index_t i = 0; i < nx; ++i) {
      double sum[4] = {}, count = 0;
      for (index_t ej = std::max<index_t>(j - 1, 0); ej <= std::min(j, ny - 2); ++ej)
        for (index_t ei = std::max<index_t>(i - 1, 0); ei <= std::min(i, nx - 2); ++ei, ++count)
          for (int q = 0; q < 4; ++q) sum[q] += stress[4 * (ei + mx * ej) + q];
      const index_t node = i + nx * j;  // x-fastest
      const double s_vm = elastic::von_mises(sum[0] / count, sum[1] / count, sum[2] / count, sum[3] / count);
      v[node] = T(s_vm);
      const double ux = double(out[3 * node]), uy = double(out[3 * node + 1]);
      const double mag = std::sqrt(ux * ux + uy * uy);
      finite = finite && std::isfinite(mag) && std::isfinite(s_vm);
      umax = std::max(umax, mag);
      vmax = std::max(vmax, s_vm);
    }
  const double nan = std::numeric_limits<double>::quiet_NaN();  // max skips NaN: make it visible
  stats[c] = {finite ? umax : nan, finite ? vmax : nan};
}

template <class T>
std::array<double, 2> ElasticityModule<T>::displacement_at(int c, double x, double y) const {
  const elastic::Plate& p = s_->plate;
  // The element holding (x, y) (the last one at the hi faces), and the point in it in [0, 1]^2.
  const double fx = (x - p.x0) / p.hx, fy = (y - p.y0) / p.hy;
  const index_t ei = std::clamp<index_t>(index_t(std::floor(fx)), 0, p.nx - 2);
  const index_t ej = std::clamp<index_t>(index_t(std::floor(fy)), 0, p.ny - 2);
  const double sx = fx - double(ei), sy = fy - double(ej);
  const T* u = s_->u[c].data();
  std::array<double, 2> out{0, 0};
  for (int a = 0; a < 4; ++a) {
    const double w = ((a & 1) ? sx : 1 - sx) * ((a & 2) ? sy : 1 - sy);
    const index_t node = (ei + (a & 1)) + p.nx * (ej + (a >> 1));  // x-fastest
    out[0] += w * double(u[3 * node]);
    out[1] += w * double(u[3 * node + 1]);
  }
  return out;
}

template <class T>
std::vector<FieldRef> ElasticityModule<T>::fields() {
  std::vector<FieldRef> out;
  for (int c = 0; c < load_cases(); ++c) {
    const std::string suffix = s_->plate.named_cases ? "_" + case_name(c) : "";
    out.push_back({"displacement" + suffix, precision_of<T>(), s_->u[c].data(), 3});
    out.push_back({"von_mises" + suffix, precision_of<T>(), s_->vm[c].data()});
  }
  return out;
}

template <class T>
std::vector<Diagnostic> ElasticityModule<T>::diagnostics(double /*t*/) {
  std::vector<Diagnostic> d;
  for (int c = 0; c < load_cases(); ++c) {
    const std::string p = s_->prefix(c);
    const auto tip = s_->solved ? displacement_at(c, s_->plate.tip[0], s_->plate.tip[1]) : std::array<double, 2>{0, 0};
    d.push_back({p + "max_displacement", s_->stats[c][0], "length"});
    d.push_back({p + "tip_ux", tip[0], "length"});
    d.push_back({p + "tip_uy", tip[1], "length"});
    d.push_back({p + "max_von_mises", s_->stats[c][1], "unit of E"});
  }
  d.push_back({"residual", s_->residual});
  return d;
}

template <class T>
int ElasticityModule<T>::load_cases() const {
  return int(s_->plate.cases.size());
}
template <class T>
const std::string& ElasticityModule<T>::case_name(int c) const {
  return s_->plate.cases[c].name;
}
template <class T>
const std::vector<T>& ElasticityModule<T>::displacement(int c) const {
  return s_->u[c];
}
template <class T>
const std::vector<T>& ElasticityModule<T>::von_mises(int c) const {
  return s_->vm[c];
}
template <class T>
double ElasticityModule<T>::relative_residual() const {
  return s_->residual;
}
template <class T>
double ElasticityModule<T>::factor_seconds() const {
  return s_->factor_s;
}
template <class T>
double ElasticityModule<T>::solve_seconds() const {
  return s_->solve_s;
}

template class ElasticityModule<float>;
template class ElasticityModule<double>;

}  // namespace tridsim
