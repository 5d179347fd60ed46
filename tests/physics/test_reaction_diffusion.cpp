// Reaction-diffusion module (CPU): every check against an independent truth.
//  - manufactured solutions with cross diffusion and nonlinear reactions: second order in space
//    and time together (dt proportional to h) for both schemes, in 2D;
//  - no-flux boundaries and no reactions: each species' integral is conserved to rounding, with
//    variable cross diffusion, in 2D and 3D;
//  - the Turing deck: the pattern's early wavenumber is the fastest-growing mode of the
//    linearised system's dispersion relation, computed here from its 2 x 2 Jacobian;
//  - bad decks give one clear error;
//  - the reactions over a block of nodes (the CPU's time steps) equal the one-node formulas;
//  - the reaction kernels compiled at run time give the interpreted reactions' numbers, bit for bit.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <spdlog/spdlog.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "physics/reaction_diffusion/reaction_diffusion.hpp"
#include "physics/reaction_diffusion/reactions.hpp"
#include "physics/reaction_diffusion/spectrum.hpp"
#include "tests/common/compiled_runs.hpp"

using namespace tridsim;

namespace {

Grid make_grid(int dim, index_t n, double length) {
  Grid g;
  g.dim = dim;
  for (int a = 0; a < dim; ++a) {
    g.n[std::size_t(a)] = n;
    g.hi[std::size_t(a)] = length;
  }
  return g;
}

template <class T>
std::unique_ptr<ReactionDiffusionModule<T>> make(const std::string& section, const Grid& g, const Constants& c = {}) {
  spdlog::set_level(spdlog::level::warn);
  Deck deck = Deck::parse("reaction_diffusion:\n" + section, "test deck");
  auto m = std::make_unique<ReactionDiffusionModule<T>>();
  SetupContext ctx;
  ctx.precision = precision_of<T>();
  ctx.constants = c;
  m->setup(g, deck.root().child("reaction_diffusion"), ctx, 0.0);
  deck.check_unknown_keys();
  return m;
}

template <class T>
void advance(ReactionDiffusionModule<T>& m, double end, double dt) {
  const long steps = std::lround(end / dt);
  for (long s = 0; s < steps; ++s) m.step(double(s) * dt, dt);
}

// u = 1 + E C, v = 1 + E C / 2 with E = exp(-t), C = cos(pi x) cos(pi y) (no flux on [0, 1]^2),
// D = [[1, 0.5], [0.2, 0.8]], reactions -u v and u - v^2 plus the sources that make it exact.
const char* kManufactured = R"deck(  species: [u, v]
  diffusion: [[1, 0.5], [0.2, 0.8]]
  reactions:
    u: "-u*v + (-1 + 2*pi^2*(1 + 0.5*0.5))*exp(-t)*cos(pi*x)*cos(pi*y) + (1 + exp(-t)*cos(pi*x)*cos(pi*y))*(1 + 0.5*exp(-t)*cos(pi*x)*cos(pi*y))"
    v: "u - v^2 + (-0.5 + 2*pi^2*(0.2 + 0.8*0.5))*exp(-t)*cos(pi*x)*cos(pi*y) - (1 + exp(-t)*cos(pi*x)*cos(pi*y)) + (1 + 0.5*exp(-t)*cos(pi*x)*cos(pi*y))^2"
  initial: {u: "1 + cos(pi*x)*cos(pi*y)", v: "1 + 0.5*cos(pi*x)*cos(pi*y)"}
  boundary: {all: {type: no-flux}}
)deck";

double manufactured_error(const std::string& scheme, index_t n) {
  const Grid g = make_grid(2, n, 1.0);
  auto m = make<double>(std::string(kManufactured) + "  scheme: " + scheme + "\n", g);
  const double end = 0.25, dt = 0.5 * g.h(0);
  advance(*m, end, dt);
  const auto& u = m->solution();
  const double E = std::exp(-end);
  double err = 0;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) {
      const double C = std::cos(std::numbers::pi * g.coord(0, i)) * std::cos(std::numbers::pi * g.coord(1, j));
      const index_t o = g.index(i, j, 0);
      err = std::max({err, std::abs(u[std::size_t(2 * o)] - (1 + E * C)), std::abs(u[std::size_t(2 * o + 1)] - (1 + 0.5 * E * C))});
    }
  return err;
}

double diagnostic(const std::vector<Diagnostic>& d, const std::string& name) {
  for (const auto& x : d)
    if (x.name == name) return x.value;
  return std::nan("");
}

}  // namespace

TEST_CASE("second order in space and time with cross diffusion, both schemes") {
  for (const std::string scheme : {"douglas", "linearly-implicit"}) {
    const double e1 = manufactured_error(scheme, 17), e2 = manufactured_error(scheme, 33), e3 = manufactured_error(scheme, 65);
    const double p1 = std::log2(e1 / e2), p2 = std::log2(e2 / e3);
    MESSAGE(scheme << ": max errors " << e1 << " " << e2 << " " << e3 << ", orders " << p1 << " " << p2);
    CHECK(p2 > 1.85);
    CHECK(p2 < 2.3);
    CHECK(e3 < 3e-3);
  }
}

TEST_CASE("linearly-implicit: a stiff reaction does not limit the time step") {
  // du/dt = -k (u - cos t) with k = 1e4: u follows cos t within about 1/k; dt k = 100.
  const Grid g = make_grid(1, 5, 1.0);
  auto m = make<double>("  species: [u]\n  scheme: linearly-implicit\n  diffusion: [[1]]\n"
                        "  reactions: {u: \"-1e4*(u - cos(t))\"}\n  initial: {u: 1}\n  boundary: {all: {type: no-flux}}\n", g);
  advance(*m, 1.0, 0.01);
  for (double v : m->solution()) CHECK(std::abs(v - std::cos(1.0)) < 1e-3);
}

TEST_CASE("linearly-implicit: the step limit dt lambda / 2 < 1 at the reactions' growth rate lambda") {
  // du/dt = 25 u (1 - u) grows at 25 (1 - 2 u) = 24.5 at u = 0.01; v decays. A triangular D with a
  // large cross term diffuses forwards (eigenvalues 1 and 1) and is accepted.
  const Grid g = make_grid(2, 5, 1.0);
  const std::string body = "  species: [u, v]\n  diffusion: [[1, 3], [0, 1]]\n"
                           "  reactions: {u: \"25*u*(1 - u)\", v: \"-v\"}\n  initial: {u: 0.01, v: 1}\n"
                           "  boundary: {all: {type: no-flux}}\n";
  const auto li = make<double>(body + "  scheme: linearly-implicit\n", g);
  REQUIRE(li->max_stable_dt());
  CHECK(*li->max_stable_dt() == doctest::Approx(2 / 24.5).epsilon(1e-6));  // (forward differences)
  CHECK(li->max_stable_dt_reason().find("lambda = 24.5") != std::string::npos);
  CHECK(!make<double>(body, g)->max_stable_dt());                                     // douglas: none
  CHECK(!make<double>(body + "  scheme: linearly-implicit\n  jacobian: {u: [\"-25\", 0], v: [0, -1]}\n", g)
             ->max_stable_dt());  // decaying reactions: none
}

TEST_CASE("spectral abscissa: the largest real part of known spectra") {
  const double one[1] = {-3};
  CHECK(rd::spectral_abscissa(one, 1) == -3);
  const double rotation[4] = {1, -3, 3, 1};  // 1 +- 3i
  CHECK(rd::spectral_abscissa(rotation, 2) == doctest::Approx(1));
  const double real_pair[4] = {1, 5, 5, 1};  // 6, -4
  CHECK(rd::spectral_abscissa(real_pair, 2) == doctest::Approx(6));
  // The companion matrix of (x - 2)(x + 1)(x^2 + 2x + 5) = x^4 + x^3 + x^2 - 9x - 10: 2, -1, -1 +- 2i.
  const double companion[16] = {0, 0, 0, 10, 1, 0, 0, 9, 0, 1, 0, -1, 0, 0, 1, -1};
  CHECK(rd::spectral_abscissa(companion, 4) == doctest::Approx(2).epsilon(1e-12));
  // (x + 1)^4 (x^2 + 1)(x - 0.5)(x + 3) = x^8 + 6x^7 + ... : a Jordan-like cluster at -1 and 0.5 the largest.
  std::vector<double> roots_poly{1};  // coefficients, highest first
  auto times = [&](std::vector<double> f) {
    std::vector<double> out(roots_poly.size() + f.size() - 1, 0.0);
    for (std::size_t i = 0; i < roots_poly.size(); ++i)
      for (std::size_t j = 0; j < f.size(); ++j) out[i + j] += roots_poly[i] * f[j];
    roots_poly = out;
  };
  for (int k = 0; k < 4; ++k) times({1, 1});
  times({1, 0, 1});
  times({1, -0.5});
  times({1, 3});
  double c8[64] = {};
  for (int i = 1; i < 8; ++i) c8[i * 8 + i - 1] = 1;
  for (int i = 0; i < 8; ++i) c8[i * 8 + 7] = -roots_poly[std::size_t(8 - i)];
  CHECK(rd::spectral_abscissa(c8, 8) == doctest::Approx(0.5).epsilon(1e-9));
}

TEST_CASE("douglas: the deck's exact flow is used as given, RK4 sub-steps converge at order 4") {
  // du/dt = -3 u v, dv/dt = -v with no diffusion: v = exp(-t), u = u0 exp(3 (exp(-t) - 1)).
  const Grid g = make_grid(1, 3, 1.0);
  const std::string body = "  species: [u, v]\n  diffusion: [[0, 0], [0, 0]]\n  reactions: {u: \"-3*u*v\", v: \"-v\"}\n"
                           "  initial: {u: 2, v: 1}\n  boundary: {all: {type: no-flux}}\n";
  auto error = [&](const std::string& extra, double dt) {
    auto m = make<double>(body + extra, g);
    advance(*m, 1.0, dt);
    return std::abs(m->solution()[0] - 2 * std::exp(3 * (std::exp(-1.0) - 1)));
  };
  CHECK(error("  exact_flow: {u: \"u*exp(3*v*(exp(-tau) - 1))\", v: \"v*exp(-tau)\"}\n", 0.25) < 1e-14);
  const double e1 = error("", 0.1), e2 = error("", 0.05), e3 = error("  reaction_substeps: 2\n", 0.1);
  CHECK(std::log2(e1 / e2) > 3.8);
  CHECK(std::abs(e3 - e2) < 0.1 * e2);  // 2 sub-steps of dt/2 = the steps of dt/2
}

TEST_CASE("each species' integral is conserved with no flux and no reactions") {
  const std::string body = R"deck(  species: [a, b, c]
  diffusion: [["1 + 0.5*sin(3*x)", 0.3, 0], [0.1, 2, "0.2*cos(y)"], [0, 0.4, 0.7]]
  reactions: {a: 0, b: 0, c: 0}
  initial: {a: "exp(-10*((x-0.3)^2 + (y-0.6)^2))", b: "x*y", c: "1 + z"}
  perturbation: {amplitude: 0.1}
  boundary: {all: {type: no-flux}}
)deck";
  for (int dim : {2, 3})
    for (const std::string scheme : {"douglas", "linearly-implicit"}) {
      const Grid g = make_grid(dim, dim == 2 ? 41 : 17, 1.0);
      auto m = make<double>(body + "  scheme: " + scheme + "\n", g);
      const auto before = m->diagnostics(0);
      advance(*m, 0.5, 0.01);
      const auto after = m->diagnostics(0.5);
      for (const std::string s : {"a", "b", "c"}) {
        const double i0 = diagnostic(before, s + "_integral"), i1 = diagnostic(after, s + "_integral");
        CHECK(std::abs(i1 - i0) <= 1e-12 * std::abs(i0) + 1e-14);
      }
      CHECK(diagnostic(after, "a_max") < diagnostic(before, "a_max"));  // and it did diffuse
    }
}

TEST_CASE("the Turing deck's early wavenumber is the fastest-growing mode") {
  // The linearised Schnakenberg system at (a + b, b / (a + b)^2): J - k^2 D, D = diag(Du, Dv).
  Deck deck = Deck::load(std::string(TRIDSIM_SOURCE_DIR) + "/inputs/turing2d.yaml");
  const DeckNode c = deck.root().child("constants");
  const double a = c.get<double>("a"), b = c.get<double>("b"), gamma = c.get<double>("gamma");
  const double Du = 1, Dv = 40, us = a + b, vs = b / (us * us);
  const double fu = gamma * (-1 + 2 * us * vs), fv = gamma * us * us, gu = -2 * gamma * us * vs, gv = -gamma * us * us;
  auto growth = [&](double k) {
    const double p = fu - Du * k * k, q = gv - Dv * k * k;  // eigenvalues of [[p, fv], [gu, q]]
    const std::complex<double> disc = std::sqrt(std::complex<double>((p - q) * (p - q) / 4 + fv * gu));
    return ((p + q) / 2 + disc).real();
  };
  double kmax = 0, best = -1e300;
  for (double k = 1e-3; k < 3; k += 1e-4)
    if (growth(k) > best) { best = growth(k); kmax = k; }
  REQUIRE(best > 0);

  // The deck's model on a 128^2 grid of its box, up to an early time (still nearly linear).
  const Grid g = make_grid(2, 128, 100.0);
  auto m = std::make_unique<ReactionDiffusionModule<double>>();
  SetupContext ctx;
  ctx.constants = {{"a", a}, {"b", b}, {"gamma", gamma}};
  spdlog::set_level(spdlog::level::warn);
  m->setup(g, deck.root().child("reaction_diffusion"), ctx, 0.0);
  advance(*m, 30.0, 0.25);
  const auto& u = m->solution();
  // Cosine transform (the no-flux modes cos(pi p x / L) cos(pi q y / L)) of u - mean, power per
  // wavenumber shell of width pi / L.
  const index_t n = g.n[0];
  const double L = g.hi[0];
  std::vector<double> f(std::size_t(n * n)), tmp(std::size_t(n * n), 0.0), hat(std::size_t(n * n), 0.0);
  double mean = 0;
  for (index_t o = 0; o < n * n; ++o) mean += u[std::size_t(2 * o)];
  mean /= double(n * n);
  for (index_t o = 0; o < n * n; ++o) f[std::size_t(o)] = u[std::size_t(2 * o)] - mean;
  std::vector<double> cosines(std::size_t(n * n));
  for (index_t p = 0; p < n; ++p)
    for (index_t i = 0; i < n; ++i)
      cosines[std::size_t(p * n + i)] = std::cos(std::numbers::pi * double(p * i) / double(n - 1)) * (i == 0 || i == n - 1 ? 0.5 : 1.0);
  for (index_t j = 0; j < n; ++j)
    for (index_t p = 0; p < n; ++p) {
      double s = 0;
      for (index_t i = 0; i < n; ++i) s += cosines[std::size_t(p * n + i)] * f[std::size_t(j * n + i)];
      tmp[std::size_t(j * n + p)] = s;
    }
  for (index_t q = 0; q < n; ++q)
    for (index_t p = 0; p < n; ++p) {
      double s = 0;
      for (index_t j = 0; j < n; ++j) s += cosines[std::size_t(q * n + j)] * tmp[std::size_t(j * n + p)];
      hat[std::size_t(q * n + p)] = s;
    }
  std::vector<double> power(std::size_t(2 * n), 0.0);
  std::vector<int> count(std::size_t(2 * n), 0);
  for (index_t q = 0; q < n; ++q)
    for (index_t p = 0; p < n; ++p) {
      if (p == 0 && q == 0) continue;
      const auto shell = std::size_t(std::lround(std::sqrt(double(p * p + q * q))));
      power[shell] += hat[std::size_t(q * n + p)] * hat[std::size_t(q * n + p)];
      ++count[shell];
    }
  std::size_t peak = 1;
  for (std::size_t s = 1; s < power.size(); ++s)
    if (count[s] && power[s] / count[s] > power[peak] / count[peak]) peak = s;
  const double kpattern = std::numbers::pi * double(peak) / L;
  MESSAGE("fastest-growing k = " << kmax << " (wavelength " << 2 * std::numbers::pi / kmax << "), pattern k = "
                                 << kpattern << " (wavelength " << 2 * std::numbers::pi / kpattern << ")");
  CHECK(std::abs(kpattern - kmax) <= 0.08 * kmax);
  const auto d = m->diagnostics(30);
  CHECK(diagnostic(d, "u_max") - diagnostic(d, "u_min") > 0.05);  // it did grow from noise of 0.02
}

TEST_CASE("bad decks give one clear error") {
  const Grid g = make_grid(2, 9, 1.0);
  const std::string ok = "  species: [u, v]\n  reactions: {u: 0, v: 0}\n  initial: {u: 1, v: 0}\n"
                         "  boundary: {all: {type: no-flux}}\n";
  auto fails_with = [&](const std::string& body, const std::string& words) {
    try {
      make<double>(body, g);
      FAIL("accepted: " << body);
    } catch (const DeckError& e) {
      CHECK_MESSAGE(std::string(e.what()).find(words) != std::string::npos, e.what());
    }
  };
  fails_with(ok + "  diffusion: [[1, 0]]\n", "expected 2 rows");
  fails_with(ok + "  diffusion: [[1, 0], [0]]\n", "row 2 has 1 entries");
  fails_with(ok + "  diffusion: [[-1, 0], [0, 1]]\n", "diagonal entries >= 0");
  fails_with(ok + "  diffusion: [[1, 0], [0, \"t\"]]\n", "uses t");
  // Backward diffusion in some mode (eigenvalues 6 and -4), constant or at one node.
  fails_with(ok + "  diffusion: [[1, 5], [5, 1]]\n", "diffusion: has an eigenvalue with real part -4: that mode");
  fails_with(ok + "  diffusion: [[1, \"x > 0.9 ? 5 : 0\"], [5, 1]]\n", "real part -4 at node (8, 0, 0)");
  fails_with("  species: [u, x]\n  diffusion: [[1, 0], [0, 1]]\n  reactions: {u: 0, x: 0}\n  initial: {u: 1, x: 0}\n"
             "  boundary: {all: {type: no-flux}}\n", "cannot name a species");
  fails_with("  species: [u, v]\n  diffusion: [[1, 0], [0, 1]]\n  reactions: {u: 0, w: 0}\n  initial: {u: 1, v: 0}\n"
             "  boundary: {all: {type: no-flux}}\n", "is not a species");
  fails_with("  species: [u, v]\n  diffusion: [[1, 0], [0, 1]]\n  reactions: {u: \"q*u\", v: 0}\n  initial: {u: 1, v: 0}\n"
             "  boundary: {all: {type: no-flux}}\n", "q");
  fails_with(ok + "  diffusion: [[1, 0], [0, 1]]\n  scheme: douglas\n  jacobian: {u: [0, 0], v: [0, 0]}\n", "linearly-implicit");
}

TEST_CASE("reactions over a block of nodes equal the one-node formulas, bit for bit") {
  const std::string rates = "  reactions:\n    u: \"a - (b + 1)*u + u^2*v + 0.1*sin(x)*t\"\n"
                            "    v: \"b*u - u^2*v + (y > 0.5 ? 0.01 : z)\"\n";
  const std::string given = "  jacobian:\n    u: [\"-(b + 1) + 2*u*v\", \"u^2\"]\n    v: [\"b - 2*u*v\", \"-u^2\"]\n";
  for (const bool has_jacobian : {false, true}) {
    CAPTURE(has_jacobian);
    const Deck deck = Deck::parse("reaction_diffusion:\n" + rates + (has_jacobian ? given : ""), "test deck");
    rd::Reactions r;
    r.read(deck.root().child("reaction_diffusion"), {"u", "v"}, {{"a", 1}, {"b", 3}}, false);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> unit(0, 1), value(0.5, 2);
    rd::NodeBlock b;
    b.n = rd::kBlock;
    for (int p = 0; p < rd::kBlock; ++p) {
      b.x.at[p] = unit(rng), b.y.at[p] = unit(rng), b.z.at[p] = unit(rng);
      b.v[0].at[p] = value(rng), b.v[1].at[p] = value(rng);
    }
    const double t = 0.3, tau = 0.05;
    rd::Lanes R[2], J[4];
    r.linearize(b, t, R, J);
    rd::NodeBlock advanced = b;
    r.advance(advanced, t, tau, 2);
    int mismatches = 0;
    for (int p = 0; p < rd::kBlock; ++p) {
      const double x = b.x.at[p], y = b.y.at[p], z = b.z.at[p];
      double v[2] = {b.v[0].at[p], b.v[1].at[p]}, r0[2], j[4];
      r.rates(v, x, y, z, t, r0);
      r.jacobian(v, x, y, z, t, r0, j);
      rd::rk4(2, v, t, tau, 2, [&](const double* w, double tt, double* out) { r.rates(w, x, y, z, tt, out); });
      for (int k = 0; k < 2; ++k) mismatches += R[k].at[p] != r0[k] || advanced.v[k].at[p] != v[k];
      for (int k = 0; k < 4; ++k) mismatches += J[k].at[p] != j[k];
    }
    CHECK(mismatches == 0);
  }
}

// Each scheme and reaction form (RK4 with one and several substeps, the exact flow, forward
// differences and a given Jacobian), with fixed nodes (a Dirichlet face) and reactions of x, y, z
// and t, in 1D (a line longer than the kernels' pieces), 2D and 3D, in float and double: a few
// steps with the compiled kernels, then interpreted (TRIDSIM_CXX=none), to the same bits.
template <class T>
void compiled_matches_interpreted(const std::string& section, const Grid& g) {
  test::require_compiled_equals_interpreted<T>([&](bool compiled) {
    auto m = make<T>(section, g, {{"a", 0.1}, {"b", 0.9}});
    CHECK(m->reactions_compiled() == compiled);
    advance(*m, 3 * 0.02, 0.02);
    return std::vector<T>(m->solution().begin(), m->solution().end());
  });
}

TEST_CASE("compiled reactions give the interpreted reactions' numbers, bit for bit") {
  const std::string base = "  species: [u, v]\n  diffusion: [[0.01, 0], [0, 0.02]]\n"
                           "  initial: {u: \"1 + 0.3*sin(3*x + y)\", v: \"0.8 + 0.2*cos(2*y - z)\"}\n"
                           "  boundary:\n    all: {type: no-flux}\n    x-: {type: dirichlet, value: {u: 1, v: 0.8}}\n";
  const std::string rates = "  reactions:\n    u: \"a - u + u^2*v + 0.01*sin(x)*t\"\n"
                            "    v: \"b - u^2*v + (y > 0.5 ? 0.01 : z) + abs(min(u, v) - 1)*1e-3\"\n";
  const std::string jacobian = "  jacobian:\n    u: [\"-1 + 2*u*v\", \"u^2\"]\n    v: [\"-2*u*v\", \"-u^2\"]\n";
  const std::vector<std::string> sections = {
      base + rates,
      base + rates + "  reaction_substeps: 3\n",
      base + rates + "  exact_flow: {u: \"u*exp(-tau) + a*x*tau\", v: \"v + b*tau*sqrt(abs(u))\"}\n",
      base + rates + "  scheme: linearly-implicit\n",
      base + rates + jacobian + "  scheme: linearly-implicit\n"};
  Grid line = make_grid(1, 2500, 1.0), plane = make_grid(2, 37, 1.0), box = make_grid(3, 9, 1.0);
  plane.n[1] = 23;
  for (const auto& section : sections) {
    CAPTURE(section);
    for (const Grid& g : {line, plane, box}) {
      CAPTURE(g.dim);
      compiled_matches_interpreted<double>(section, g);
      compiled_matches_interpreted<float>(section, g);
    }
  }
}
