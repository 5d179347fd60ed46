// Glioma module (CPU): every check against an independent truth.
//  - Fisher-KPP front speed 2 sqrt(D rho) in homogeneous tissue, 1D, 2D and 3D;
//  - rho = 0: the integral of c conserved to rounding on an irregular phantom;
//  - D = 0: every node follows the exact logistic solution, also for rho dt far past exp's overflow;
//  - orders of convergence: 2 in time and space for strang-adi, 1 in time for explicit;
//  - the explicit scheme's stability limit is the real one (stable at it, unstable above).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "tests/physics/glioma_test_support.hpp"

using namespace tridsim;
using namespace glioma_test;

namespace {

// Least squares fit of y(t) = v t - k ln t + b + e / sqrt(t), the front position of Fisher-KPP
// with D = rho = 1: speed 2, the logarithmic delay k = (d + 2) / 2 of a front from a compact
// seed in d dimensions (Bramson; Gartner), and the algebraic correction; returns v.
double fit_speed(const std::vector<double>& t, const std::vector<double>& y, double k) {
  double M[3][4] = {};
  for (std::size_t s = 0; s < t.size(); ++s) {
    const double f[3] = {t[s], 1.0, 1.0 / std::sqrt(t[s])};
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) M[r][c] += f[r] * f[c];
      M[r][3] += f[r] * (y[s] + k * std::log(t[s]));
    }
  }
  for (int p = 0; p < 3; ++p) {  // Gauss-Jordan elimination with partial pivoting
    int best = p;
    for (int r = p + 1; r < 3; ++r)
      if (std::abs(M[r][p]) > std::abs(M[best][p])) best = r;
    for (int c = 0; c < 4; ++c) std::swap(M[p][c], M[best][c]);
    for (int r = 0; r < 3; ++r)
      if (r != p) {
        const double f = M[r][p] / M[p][p];
        for (int c = 0; c < 4; ++c) M[r][c] -= f * M[p][c];
      }
  }
  return M[0][3] / M[0][0];
}

// Position along the x axis (j = k = 0) where c falls through 1/2.
double front_position(const Grid& g, const AlignedVector<double>& c) {
  for (index_t i = g.n[0] - 2; i >= 0; --i)
    if (c[std::size_t(i)] >= 0.5) {
      const double a = c[std::size_t(i)], b = c[std::size_t(i + 1)];
      return g.coord(0, i) + g.h(0) * (a - 0.5) / (a - b);
    }
  return g.lo[0];
}

// Homogeneous tissue, D = 1, rho = 1: a front from a seed at the corner (radial in 2D/3D,
// a quarter disc / an octant by the no-flux walls) measured from t1 to t2.
double measured_speed(int dim, double length, index_t n, double dt, double t1, double t2) {
  Grid g = make_grid(dim, {n, dim > 1 ? n : 1, dim > 2 ? n : 1}, {0, 0, 0},
                     {length, dim > 1 ? length : 1, dim > 2 ? length : 1});
  std::string center = dim == 1 ? "[0]" : dim == 2 ? "[0, 0]" : "[0, 0, 0]";
  auto m = make<double>("  D_white: 1\n  D_grey: 0\n  rho: 1\n  tissue: {white: 1, grey: 0}\n"
                        "  seed: {center: " + center + ", width: 1, peak: 0.5}\n",
                        g);
  std::vector<double> ts, xs;
  double t = 0;
  const long per_sample = std::lround(1.0 / dt);
  while (t < t2 - 1e-9) {
    for (long s = 0; s < per_sample; ++s, t += dt) m->step(t, dt);
    if (t >= t1 - 1e-9) {
      ts.push_back(t);
      xs.push_back(front_position(g, m->density()));
    }
  }
  REQUIRE(xs.back() < length - 5);  // the front stayed clear of the far wall
  return fit_speed(ts, xs, (dim + 2) / 2.0);
}

}  // namespace

TEST_CASE("front speed approaches 2 sqrt(D rho) in homogeneous tissue") {
  struct Case { int dim; double length; index_t n; double dt, t1, t2; };
  for (const Case c : {Case{1, 100, 401, 0.1, 10, 40}, Case{2, 60, 241, 0.1, 8, 26}, Case{3, 50, 101, 0.1, 8, 22}}) {
    const double v = measured_speed(c.dim, c.length, c.n, c.dt, c.t1, c.t2);
    std::printf("%dD front speed %.5f (2 sqrt(D rho) = 2), relative error %.2e\n", c.dim, v, std::abs(v - 2) / 2);
    CHECK(std::abs(v - 2.0) / 2.0 < 0.02);
  }
}

namespace {
// An irregular 3D phantom: an ellipsoidal brain with a grey shell and a CSF-filled ventricle.
const std::string phantom3d =
    "  tissue:\n"
    "    white: \"(x/0.9)^2 + (y/0.75)^2 + (z/0.65)^2 < 0.8^2 && ((x-0.15)/0.2)^2 + (y/0.35)^2 + (z/0.15)^2 > 1 ? 1 : 0\"\n"
    "    grey: \"(x/0.9)^2 + (y/0.75)^2 + (z/0.65)^2 < 1 && (x/0.9)^2 + (y/0.75)^2 + (z/0.65)^2 >= 0.8^2 ? 1 : 0\"\n";
}  // namespace

TEST_CASE("rho = 0: the tumour burden is conserved on an irregular phantom") {
  const Grid g = make_grid(3, {29, 27, 23}, {-1, -1, -1}, {1, 1, 1});
  auto m = make<double>("  D_white: 1\n  D_grey: 0.1\n  rho: 0\n" + phantom3d +
                            "  seed: {center: [0.3, 0.3, 0.1], width: 0.15, peak: 1}\n",
                        g);
  const double dt = 8 * m->explicit_limit();  // far beyond the explicit limit
  const auto d0 = m->diagnostics(0);
  advance(*m, 0, 1000 * dt, dt);
  const auto d1 = m->diagnostics(1000 * dt);
  const double b0 = diagnostic(d0, "burden"), b1 = diagnostic(d1, "burden");
  std::printf("burden %.15e -> %.15e after 1000 steps of %.2fx the explicit limit: relative change %.2e; "
              "max c %.3f -> %.3f\n",
              b0, b1, dt / m->explicit_limit(), std::abs(b1 - b0) / b0, diagnostic(d0, "c_max"), diagnostic(d1, "c_max"));
  CHECK(std::abs(b1 - b0) / b0 < 1e-10);
  CHECK(diagnostic(d1, "c_max") < 0.5 * diagnostic(d0, "c_max"));  // the density did spread
  // Nothing entered the ventricle or left the brain.
  const auto& c = m->density();
  const auto& D = m->diffusivity();
  double outside = 0;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (D[i] == 0) outside = std::max(outside, std::abs(c[i]));
  CHECK(outside == 0.0);
}

TEST_CASE("D = 0: every node follows the exact logistic solution") {
  const Grid g = make_grid(2, {23, 17, 1}, {0, 0, 0}, {1, 1, 1});
  const std::string section = "  D_white: 0\n  D_grey: 0\n  rho: 0.3\n  tissue: {white: 1, grey: 0}\n"
                              "  initial: \"0.001 + 0.998*x*y\"\n";
  const double dt = 0.7;
  const int steps = 200;
  auto check = [&](auto tag, double tolerance) {
    using T = decltype(tag);
    auto m = make<T>(section, g);
    advance(*m, 0, steps * dt, dt);
    const double E = std::exp(0.3 * steps * dt);
    double worst = 0;
    for (index_t j = 0; j < g.n[1]; ++j)
      for (index_t i = 0; i < g.n[0]; ++i) {
        const double c0 = 0.001 + 0.998 * g.coord(0, i) * g.coord(1, j);
        const double exact = c0 * E / (1 + c0 * (E - 1));
        worst = std::max(worst, std::abs(double(m->density()[std::size_t(g.index(i, j, 0))]) - exact) / exact);
      }
    std::printf("D = 0, %s: max relative deviation from the exact logistic solution after %d steps: %.2e\n",
                sizeof(T) == 8 ? "double" : "float", steps, worst);
    CHECK(worst < tolerance);
  };
  check(double{}, 1e-13);
  check(float{}, 2e-5);
}

TEST_CASE("a large rho dt: the exact logistic step stays finite and exact, also where c = 0") {
  // exp(rho dt/2) overflows float from rho = 355 at dt = 0.5 and double from rho = 2840; c = 0 on
  // the x = 0 and y = 0 edges. The initial scale is about exp(-rho t) where T holds it, so that
  // the density at the end lies between 0 and 1.
  const Grid g = make_grid(2, {9, 7, 1}, {0, 0, 0}, {1, 1, 1});
  const double dt = 0.5;
  const int steps = 3;
  auto check = [&](auto tag, double rho, double tolerance) {
    using T = decltype(tag);
    const long double q = std::exp(-(long double)rho * steps * dt);
    const double scale = std::max(double(q), 1e6 * double(std::numeric_limits<T>::min()));
    auto m = make<T>(fmt::format("  D_white: 0\n  D_grey: 0\n  rho: {}\n  tissue: {{white: 1, grey: 0}}\n"
                                 "  initial: \"{:.17g}*x*y\"\n",
                                 rho, scale),
                     g);
    for (int s = 0; s < steps; ++s) m->step(s * dt, dt);
    double worst = 0;
    for (index_t j = 0; j < g.n[1]; ++j)
      for (index_t i = 0; i < g.n[0]; ++i) {
        const long double c0 = (long double)T(scale * g.coord(0, i) * g.coord(1, j));
        const double exact = double(c0 / (q + c0 * (1 - q)));
        const double c = double(m->density()[std::size_t(g.index(i, j, 0))]);
        REQUIRE(std::isfinite(c));
        worst = std::max(worst, std::abs(c - exact) / (exact > 0 ? exact : 1.0));
      }
    std::printf("rho = %g, dt = %g, %s: max relative deviation from the exact logistic solution: %.2e\n", rho, dt,
                sizeof(T) == 8 ? "double" : "float", worst);
    CHECK(worst < tolerance);
  };
  for (double rho : {40.0, 400.0, 3000.0, 1e6}) {
    check(double{}, rho, 1e-13);
    check(float{}, rho, 1e-5);
  }
}

namespace {
// Smooth tissue and density: the orders of convergence are those of the scheme.
const std::string smooth =
    "  D_white: 1\n  D_grey: 0.1\n  rho: 2\n"
    "  tissue: {white: \"0.5 + 0.4*sin(3*x)*cos(2*y)\", grey: \"0.5 - 0.4*sin(3*x)*cos(2*y)\"}\n"
    "  initial: \"0.6*exp(-((x-0.4)^2 + (y-0.55)^2)/0.03)\"\n";

double max_difference(const AlignedVector<double>& coarse, const Grid& gc, const AlignedVector<double>& fine,
                      const Grid& gf) {
  const index_t r = (gf.n[0] - 1) / (gc.n[0] - 1);
  double d = 0;
  for (index_t j = 0; j < gc.n[1]; ++j)
    for (index_t i = 0; i < gc.n[0]; ++i)
      d = std::max(d, std::abs(coarse[std::size_t(gc.index(i, j, 0))] - fine[std::size_t(gf.index(r * i, r * j, 0))]));
  return d;
}
}  // namespace

TEST_CASE("orders of convergence: 2 in time and space (strang-adi), 1 in time (explicit)") {
  SUBCASE("time, strang-adi") {
    const Grid g = make_grid(2, {49, 49, 1}, {0, 0, 0}, {1, 1, 1});
    const double T = 0.1;
    auto solve = [&](int steps) {
      auto m = make<double>(smooth, g);
      advance(*m, 0, T, T / steps);
      return m->density();
    };
    const auto ref = solve(1024);
    std::vector<double> err;
    for (int steps : {8, 16, 32}) err.push_back(max_difference(solve(steps), g, ref, g));
    for (std::size_t i = 1; i < err.size(); ++i) {
      const double order = std::log2(err[i - 1] / err[i]);
      std::printf("strang-adi, time: max error %.3e -> %.3e, order %.3f\n", err[i - 1], err[i], order);
      CHECK(order == doctest::Approx(2.0).epsilon(0.08));
    }
  }
  SUBCASE("time, explicit") {
    const Grid g = make_grid(2, {25, 25, 1}, {0, 0, 0}, {1, 1, 1});
    const double limit = make<double>(smooth, g)->explicit_limit();
    const double T = 64 * limit;
    auto solve = [&](int steps) {
      auto m = make<double>(smooth + "  scheme: explicit\n", g);
      advance(*m, 0, T, T / steps);
      return m->density();
    };
    const auto ref = solve(64 * 256);
    std::vector<double> err;
    for (int steps : {64, 128, 256}) err.push_back(max_difference(solve(steps), g, ref, g));
    for (std::size_t i = 1; i < err.size(); ++i) {
      const double order = std::log2(err[i - 1] / err[i]);
      std::printf("explicit, time: max error %.3e -> %.3e, order %.3f\n", err[i - 1], err[i], order);
      CHECK(order == doctest::Approx(1.0).epsilon(0.08));
    }
  }
  SUBCASE("space, strang-adi (dt small enough that the time error is below the space error)") {
    const double T = 0.1;
    std::vector<Grid> grids;
    std::vector<AlignedVector<double>> sol;
    for (index_t cells : {16, 32, 64, 128}) {
      grids.push_back(make_grid(2, {cells + 1, cells + 1, 1}, {0, 0, 0}, {1, 1, 1}));
      auto m = make<double>(smooth, grids.back());
      advance(*m, 0, T, T / 256);
      sol.push_back(m->density());
    }
    std::vector<double> diff;
    for (std::size_t i = 0; i + 1 < sol.size(); ++i) diff.push_back(max_difference(sol[i], grids[i], sol[i + 1], grids[i + 1]));
    for (std::size_t i = 1; i < diff.size(); ++i) {
      const double order = std::log2(diff[i - 1] / diff[i]);
      std::printf("strang-adi, space: successive differences %.3e -> %.3e, order %.3f\n", diff[i - 1], diff[i], order);
      CHECK(order == doctest::Approx(2.0).epsilon(0.05));
    }
  }
}

TEST_CASE("explicit scheme: stable at its limit, unstable above it; the ADI scheme has none") {
  const Grid g = make_grid(3, {17, 15, 13}, {0, 0, 0}, {1, 1, 1});
  const std::string section = "  D_white: 1\n  D_grey: 0.2\n  rho: 1\n  scheme: explicit\n"
                              "  tissue: {white: \"x < 0.5 ? 1 : 0\", grey: \"x < 0.5 ? 0 : 1\"}\n"
                              "  initial: \"0.5 + 0.5*cos(200*x*y + 100*z)\"\n";
  auto m = make<double>(section, g);
  const double limit = *m->max_stable_dt();
  // For this tissue the largest row sum of |A| is 2 D_white sum_a 1/h_a^2 (white-matter nodes).
  double expected = 0;
  for (int a = 0; a < 3; ++a) expected += 2.0 / (g.h(a) * g.h(a));
  CHECK(limit == doctest::Approx(1.0 / (expected + 1.0)).epsilon(1e-12));
  auto run = [&](double dt) {
    auto e = make<double>(section, g);
    advance(*e, 0, 400 * dt, dt);
    const auto d = e->diagnostics(0);
    return std::max(std::abs(diagnostic(d, "c_min")), std::abs(diagnostic(d, "c_max")));
  };
  const double at = run(limit), above = run(1.2 * limit);
  std::printf("explicit: max |c| after 400 steps at the limit %.3f, at 1.2x the limit %.3e\n", at, above);
  CHECK(at <= 1.0 + 1e-12);
  CHECK((!std::isfinite(above) || above > 10));
  CHECK_FALSE(make<double>("  D_white: 1\n  D_grey: 0.2\n  rho: 1\n  tissue: {white: 1, grey: 0}\n  initial: 0.5\n", g)
                  ->max_stable_dt()
                  .has_value());
}

TEST_CASE("bad decks give one clear error") {
  const Grid g = make_grid(2, {9, 9, 1}, {0, 0, 0}, {1, 1, 1});
  const std::string base = "  D_white: 1\n  D_grey: 0.1\n  rho: 1\n  tissue: {white: 1, grey: 0}\n";
  auto message = [&](const std::string& section) -> std::string {
    try {
      make<double>(section, g);
    } catch (const DeckError& e) {
      return e.what();
    }
    return "";
  };
  CHECK(message(base + "  scheme: euler\n  initial: 0.1\n").find("glioma.scheme") != std::string::npos);
  CHECK(message(base + "  seed: {center: [0.5], width: 0.1, peak: 0.5}\n").find("glioma.seed.center") != std::string::npos);
  CHECK(message(base + "  seed: {center: [0.5, 0.5], width: 0.1, peak: 0.5}\n  initial: 0.1\n").find("exactly one") !=
        std::string::npos);
  CHECK(message(base + "  initial: 1.5\n").find("glioma.initial") != std::string::npos);
  CHECK(message("  D_white: -1\n  D_grey: 0.1\n  rho: 1\n  tissue: {white: 1, grey: 0}\n  initial: 0.1\n")
            .find("glioma.D_white") != std::string::npos);
  CHECK(message("  D_white: 1\n  D_grey: 0.1\n  rho: 1\n  tissue: {white: 2, grey: 0}\n  initial: 0.1\n")
            .find("glioma.tissue.white") != std::string::npos);
  // NaN at one interior node only (a range check by min and max can step over it).
  CHECK(message("  D_white: 1\n  D_grey: 0.1\n  rho: 1\n  tissue: {white: 1, grey: 'x == 0.5 ? sqrt(-1) : 0'}\n"
                "  initial: 0.1\n")
            .find("glioma.tissue.grey: is NaN at node (4, 0, 0)") != std::string::npos);
  CHECK(message("  D_white: 1\n  D_grey: 0.1\n  rho: 1\n  tissue: {white: {file: missing.nii.gz}, grey: 0}\n  initial: 0.1\n")
            .find("glioma.tissue.white.file") != std::string::npos);
}
