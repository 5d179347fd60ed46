// Elasticity module (physics/elasticity/): patch tests (linear displacement fields and constant
// stress are reproduced exactly, on elements with hx != hy, nu != 0, both plane models), a bar of
// two materials, the cantilever against the Timoshenko-Goodier solution and beam theory, the
// second-order convergence to a manufactured solution, load cases solved together equal to
// separate runs, float against double, the example deck, and a clear error for each bad deck.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/errors.hpp"
#include "physics/elasticity/elasticity.hpp"

using namespace tridsim;

namespace {

// A number as deck text that reads back to exactly the same double.
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

Grid plate(index_t nx, index_t ny, double x0, double y0, double x1, double y1) {
  Grid g;
  g.dim = 2;
  g.n = {nx, ny, 1};
  g.lo = {x0, y0, 0};
  g.hi = {x1, y1, 0};
  return g;
}

template <class T = double>
std::unique_ptr<ElasticityModule<T>> solve(const Grid& g, const std::string& text) {
  Deck deck = Deck::parse(text, "test");
  auto m = std::make_unique<ElasticityModule<T>>();
  SetupContext ctx;
  ctx.precision = precision_of<T>();
  const DeckNode root = deck.root();
  if (root.has("constants"))
    for (const auto& key : root.child("constants").keys()) ctx.constants[key] = root.child("constants").get<double>(key);
  m->setup(g, root.child("elasticity"), ctx, 0.0);
  deck.check_unknown_keys();  // every key of the test decks is read
  m->step(0.0, 0.0);
  // ||b - K u|| / ||b|| stops falling near eps ||K|| ||u|| / ||b||, far above eps for a slender
  // cantilever (whose K is ill-conditioned) and for float, whose u is rounded to float.
  CHECK(m->relative_residual() < (sizeof(T) == 8 ? 1e-9 : 1e-3));
  return m;
}

// Largest |computed - exact| of both components over the nodes (x-fastest), and max |exact|.
template <class T, class Exact>
std::array<double, 2> nodal_error(const ElasticityModule<T>& m, int c, const Grid& g, const Exact& exact) {
  double err = 0, size = 0;
  const auto& u = m.displacement(c);
  for (index_t j = 0; j < g.n[1]; ++j)
    for (index_t i = 0; i < g.n[0]; ++i) {
      const auto [ex, ey] = exact(g.coord(0, i), g.coord(1, j));
      const index_t p = i + g.n[0] * j;
      err = std::max({err, std::abs(double(u[3 * p]) - ex), std::abs(double(u[3 * p + 1]) - ey)});
      size = std::max({size, std::abs(ex), std::abs(ey)});
      CHECK(u[3 * p + 2] == 0);
    }
  return {err, size};
}

// Plane stress / strain stress of a constant strain (exx, eyy, gxy), and its von Mises value,
// written out here apart from the module's formulas.
double von_mises_of(bool strain, double E, double nu, double exx, double eyy, double gxy) {
  double sxx, syy, szz = 0;
  if (strain) {
    const double c = E / ((1 + nu) * (1 - 2 * nu));
    sxx = c * ((1 - nu) * exx + nu * eyy);
    syy = c * (nu * exx + (1 - nu) * eyy);
    szz = nu * (sxx + syy);
  } else {
    sxx = E / (1 - nu * nu) * (exx + nu * eyy);
    syy = E / (1 - nu * nu) * (nu * exx + eyy);
  }
  const double sxy = E / (2 * (1 + nu)) * gxy;
  return std::sqrt(((sxx - syy) * (sxx - syy) + (syy - szz) * (syy - szz) + (szz - sxx) * (szz - sxx)) / 2 +
                   3 * sxy * sxy);
}

}  // namespace

TEST_CASE("patch test: a linear displacement imposed on every face is reproduced exactly inside") {
  // ux = 1e-3 + 2e-3 x - 1.5e-3 y, uy = -5e-4 + 1e-3 x + 2.5e-3 y: constant strain
  // (exx, eyy, gxy) = (2e-3, 2.5e-3, -5e-4), so no body force; elements 0.25 x 0.2.
  const Grid g = plate(9, 7, 0, -1, 2, 0.2);
  auto exact = [](double x, double y) {
    return std::array<double, 2>{1e-3 + 2e-3 * x - 1.5e-3 * y, -5e-4 + 1e-3 * x + 2.5e-3 * y};
  };
  for (const char* model : {"plane-stress", "plane-strain"}) {
    CAPTURE(model);
    auto m = solve(g, std::string("elasticity:\n  model: ") + model +
                          "\n  E: 210\n  nu: 0.3\n  faces:\n    all: {type: clamped, value: [\"1e-3 + 2e-3*x - 1.5e-3*y\", "
                          "\"-5e-4 + 1e-3*x + 2.5e-3*y\"]}\n");
    const auto [err, size] = nodal_error(*m, 0, g, exact);
    INFO("patch test error " << err << " of " << size);
    CHECK(err < 1e-10 * size);
    // Constant stress: every node's von Mises value is the exact one.
    const double vm = von_mises_of(std::string(model) == "plane-strain", 210, 0.3, 2e-3, 2.5e-3, -5e-4);
    for (const double v : m->von_mises(0)) CHECK(v == doctest::Approx(vm).epsilon(1e-10));
  }
}

TEST_CASE("patch test with loads: rollers and a uniform traction give the exact uniaxial state") {
  // x- and y- on rollers, sigma on x+: exx = sigma/E', eyy = -nu' sigma/E' (plane stress: E' = E,
  // nu' = nu; plane strain: E' = E/(1 - nu^2), nu' = nu/(1 - nu)); elements 0.5 x 0.25.
  const double E = 70e3, nu = 0.25, sigma = 35;
  const Grid g = plate(7, 5, 0, 0, 3, 1);
  for (const bool strain : {false, true}) {
    CAPTURE(strain);
    auto m = solve(g, std::string("elasticity:\n  model: ") + (strain ? "plane-strain" : "plane-stress") +
                          "\n  E: 70e3\n  nu: 0.25\n" + (strain ? "" : "  thickness: 0.1\n") +
                          "  faces:\n    x-: roller\n    y-: {type: roller, value: 0}\n    x+: {type: traction, value: [35, 0]}\n");
    const double Ep = strain ? E / (1 - nu * nu) : E, nup = strain ? nu / (1 - nu) : nu;
    const auto [err, size] = nodal_error(*m, 0, g, [&](double x, double y) {
      return std::array<double, 2>{sigma / Ep * x, -nup * sigma / Ep * y};
    });
    INFO("error " << err << " of " << size);
    CHECK(err < 1e-10 * size);
    const double vm = von_mises_of(strain, E, nu, sigma / Ep, -nup * sigma / Ep, 0);
    for (const double v : m->von_mises(0)) CHECK(v == doctest::Approx(vm).epsilon(1e-10));
    const auto tip = m->displacement_at(0, 3, 0.5);
    CHECK(tip[0] == doctest::Approx(3 * sigma / Ep).epsilon(1e-12));
  }
}

TEST_CASE("E per element: a bar of two materials in series has the exact piecewise-linear displacement") {
  // nu = 0: ux = sigma x / E1 for x < 1, then sigma (1/E1 + (x - 1)/E2); uy = 0. The interface
  // x = 1 is a line of nodes, so every element lies in one material.
  const Grid g = plate(13, 4, 0, 0, 3, 0.6);
  auto m = solve(g, "elasticity:\n  E: \"x < 1 ? 100 : 400\"\n  nu: 0\n  faces:\n    x-: roller\n    y-: roller\n"
                    "    x+: {type: traction, value: [2, 0]}\n");
  const auto [err, size] = nodal_error(*m, 0, g, [](double x, double) {
    return std::array<double, 2>{x < 1 ? 2 * x / 100 : 2 * (1.0 / 100 + (x - 1) / 400), 0.0};
  });
  INFO("error " << err << " of " << size);
  CHECK(err < 1e-12);
}

TEST_CASE("moduli too far apart for the factorization: an error at E before the solve, what check runs") {
  // The bar of two materials in series (nu = 0, the soft one clamped): its exact displacement is
  // piecewise linear. 12 elements across: the condition bound (E_max / E_min) 12^2 must stay below
  // 0.1/eps = 4.5e14 in double. Refused in setup (which `tridsim check` runs), so check and run give
  // the same error; below the bound the solve gives the exact answer.
  const Grid g = plate(13, 4, 0, 0, 3, 0.6);
  auto deck_of = [](const char* contrast) {
    return Deck::parse(std::string("elasticity:\n  E: \"x < 1 ? 1 : ") + contrast +
                           "\"\n  nu: 0\n  faces:\n    x-: clamped\n    x+: {type: traction, value: [1, 0]}\n",
                       "contrast");
  };
  for (const char* contrast : {"1e300", "1e40", "1e13"}) {
    Deck deck = deck_of(contrast);
    ElasticityModule<double> m;
    INFO(contrast);
    CHECK_THROWS_WITH_AS(m.setup(g, deck.root().child("elasticity"), SetupContext{}, 0.0),
                         doctest::Contains("elasticity.E: the moduli of the elements span a ratio of"), DeckError);
  }
  Deck deck = deck_of("1e10");
  ElasticityModule<double> m;
  m.setup(g, deck.root().child("elasticity"), SetupContext{}, 0.0);
  m.step(0.0, 0.0);
  const auto [err, size] = nodal_error(m, 0, g, [](double x, double) {
    return std::array<double, 2>{x < 1 ? x : 1 + (x - 1) / 1e10, 0.0};
  });
  INFO("error " << err << " of " << size);
  // Forward error <= cond K times the backward error, a modest multiple of eps that depends on the
  // build's order of operations (Release: 1.1e-4 here; the sanitizer build's Debug: 4.2e-4).
  CHECK(err < 10 * 1e10 * 12 * 12 * std::numeric_limits<double>::epsilon() * size);
}

TEST_CASE("cantilever: the Timoshenko-Goodier solution, O(h^2), and beam theory") {
  // Plane stress beam 0 <= x <= L, |y| <= D/2, parabolic shear traction of resultant P at x = L.
  // Timoshenko & Goodier's exact solution (clamped with its own displacements at x = 0):
  //   ux = -P y / (6 E I) ((6L - 3x) x + (2 + nu)(y^2 - D^2/4))
  //   uy =  P / (6 E I) (3 nu y^2 (L - x) + (4 + 5 nu) D^2 x / 4 + (3L - x) x^2),
  // so the tip deflection is uy(L, 0) = P L^3 / (3 E I) + (4 + 5 nu) P L / (2 E D).
  const double L = 10, D = 1, E = 1000, nu = 0.3, P = 1, I = D * D * D / 12;
  const std::string consts = "constants: {L: 10, D: 1, E: 1000, nu: 0.3, P: 1, I: " + num(I) + "}\n";
  const std::string traction = "    x+: {type: traction, value: [0, \"P/(2*I)*(D^2/4 - y^2)\"]}\n";
  const std::string material = "elasticity:\n  E: E\n  nu: nu\n  tip: [10, 0]\n  faces:\n";
  const double exact_tip = P * L * L * L / (3 * E * I) + (4 + 5 * nu) * P * L / (2 * E * D);
  std::vector<double> err, clamped;
  for (const index_t m : {2, 4, 8, 16, 32}) {  // elements across the depth; 10 m along the beam
    const Grid g = plate(10 * m + 1, m + 1, 0, -D / 2, L, D / 2);
    auto exact = solve(g, consts + material +
                              "    x-: {type: clamped, value: [\"-P*y/(6*E*I)*(2+nu)*(y^2 - D^2/4)\", "
                              "\"P/(6*E*I)*3*nu*y^2*L\"]}\n" + traction);
    const double tip = exact->displacement_at(0, L, 0)[1];
    const auto nerr = nodal_error(*exact, 0, g, [&](double x, double y) {
      return std::array<double, 2>{-P * y / (6 * E * I) * ((6 * L - 3 * x) * x + (2 + nu) * (y * y - D * D / 4)),
                                   P / (6 * E * I) * (3 * nu * y * y * (L - x) + (4 + 5 * nu) * D * D * x / 4 + (3 * L - x) * x * x)};
    });
    MESSAGE("max nodal error " << nerr[0]);
    err.push_back(std::abs(tip - exact_tip));
    auto fixed = solve(g, consts + material + "    x-: clamped\n" + traction);
    clamped.push_back(fixed->displacement_at(0, L, 0)[1]);
    MESSAGE(m << " elements deep: tip " << tip << " (exact " << exact_tip << ", error " << err.back()
              << "); fully clamped root: " << clamped.back());
  }
  // Q4 is too stiff in bending (parasitic shear): the error falls 4x per halving of h.
  for (std::size_t k = 1; k < err.size(); ++k) CHECK(std::log2(err[k - 1] / err[k]) == doctest::Approx(2).epsilon(0.1));
  CHECK(err.back() < 2e-3 * exact_tip);
  // A root clamped flat (no warping) is stiffer than Timoshenko-Goodier's: the deflection
  // converges from below to a limit between Euler-Bernoulli's P L^3 / (3 E I) and Timoshenko's
  // beam with shear coefficient 5/6, P L^3 / (3 E I) + P L / (5/6 G D), G = E / (2 (1 + nu)).
  const double euler = P * L * L * L / (3 * E * I), timoshenko = euler + P * L / (5.0 / 6 * E / (2 * (1 + nu)) * D);
  for (std::size_t k = 1; k < clamped.size(); ++k) CHECK(clamped[k] > clamped[k - 1]);
  const double extrapolated = clamped.back() + (clamped.back() - clamped[clamped.size() - 2]) / 3;  // Richardson, h^2
  MESSAGE("Euler-Bernoulli " << euler << ", Timoshenko " << timoshenko << ", extrapolated " << extrapolated);
  CHECK(extrapolated > euler);
  CHECK(extrapolated < timoshenko);
  CHECK(std::abs(clamped.back() - extrapolated) < 2e-3 * extrapolated);
}

TEST_CASE("second-order convergence to a manufactured solution (plane strain, body force)") {
  // ux = sin(pi x) cos(pi y), uy = exp(x) sin(pi y) on [0, 1] x [0, 1.5], clamped to it on every
  // face; body force b = -div sigma with D = [[d11, d12, 0], [d12, d11, 0], [0, 0, d33]]:
  //   bx = (d11 + d33) pi^2 sin(pi x) cos(pi y) - (d12 + d33) pi exp(x) cos(pi y)
  //   by = (d12 + d33) pi^2 cos(pi x) sin(pi y) + (d11 pi^2 - d33) exp(x) sin(pi y)
  const double E = 2.5, nu = 0.3, c = E / ((1 + nu) * (1 - 2 * nu));
  const std::string consts = "constants: {d11: " + num(c * (1 - nu)) + ", d12: " + num(c * nu) +
                             ", d33: " + num(E / (2 * (1 + nu))) + "}\n";
  const std::string deck = consts +
                           "elasticity:\n  model: plane-strain\n  E: 2.5\n  nu: 0.3\n"
                           "  body_force: [\"(d11 + d33)*pi^2*sin(pi*x)*cos(pi*y) - (d12 + d33)*pi*exp(x)*cos(pi*y)\", "
                           "\"(d12 + d33)*pi^2*cos(pi*x)*sin(pi*y) + (d11*pi^2 - d33)*exp(x)*sin(pi*y)\"]\n"
                           "  faces:\n    all: {type: clamped, value: [\"sin(pi*x)*cos(pi*y)\", \"exp(x)*sin(pi*y)\"]}\n";
  auto exact = [](double x, double y) {
    return std::array<double, 2>{std::sin(M_PI * x) * std::cos(M_PI * y), std::exp(x) * std::sin(M_PI * y)};
  };
  std::vector<double> err;
  for (const index_t m : {8, 16, 32, 64}) {
    const Grid g = plate(m + 1, 3 * m / 2 + 1, 0, 0, 1, 1.5);
    err.push_back(nodal_error(*solve(g, deck), 0, g, exact)[0]);
  }
  for (std::size_t k = 1; k < err.size(); ++k) {
    INFO(err[k - 1] << " -> " << err[k]);
    CHECK(std::log2(err[k - 1] / err[k]) == doctest::Approx(2).epsilon(0.1));
  }
}

TEST_CASE("load cases solved together equal separate runs; fields and diagnostics per case") {
  const Grid g = plate(23, 15, 0, 0, 2, 1.2);
  const std::string head =
      "elasticity:\n  E: \"200 + 50*x*y\"\n  nu: 0.28\n  thickness: 0.05\n"
      "  faces:\n    x-: clamped\n    x+: {type: traction}\n    y+: {type: traction, value: [\"x\", 0]}\n"
      "    y-: {type: roller, value: -1e-3}\n  loads:\n";
  const std::string tip = "    tip: {traction: {x+: [0, \"-1 - y\"]}}\n";
  const std::string gravity = "    gravity: {body_force: [\"0.5*y\", -2]}\n";
  auto both = solve(g, head + tip + gravity);
  auto one = solve(g, head + tip);
  auto other = solve(g, head + gravity);
  REQUIRE(both->load_cases() == 2);
  CHECK(both->case_name(0) == "tip");
  CHECK(both->case_name(1) == "gravity");
  for (int c = 0; c < 2; ++c) {
    const auto& single = (c == 0 ? one : other)->displacement(0);
    const auto& together = both->displacement(c);
    double diff = 0, size = 0;
    for (std::size_t k = 0; k < single.size(); ++k) {
      diff = std::max(diff, std::abs(single[k] - together[k]));
      size = std::max(size, std::abs(single[k]));
    }
    CHECK(size > 1e-3);
    CHECK(diff < 1e-12 * size);
  }
  // The y+ face's own traction (x, 0) acts in both cases (neither names y+); y- is pushed to -1e-3.
  CHECK(both->displacement(0)[3 * 5 + 1] == doctest::Approx(-1e-3).epsilon(1e-14));
  const auto fields = both->fields();
  REQUIRE(fields.size() == 4);
  CHECK(fields[0].name == "displacement_tip");
  CHECK(fields[0].components == 3);
  CHECK(fields[1].name == "von_mises_tip");
  CHECK(fields[1].components == 1);
  CHECK(fields[2].name == "displacement_gravity");
  const auto diags = both->diagnostics(0);
  std::vector<std::string> names;
  for (const auto& d : diags) names.push_back(d.name);
  CHECK(names == std::vector<std::string>{"tip_max_displacement", "tip_tip_ux", "tip_tip_uy", "tip_max_von_mises",
                                          "gravity_max_displacement", "gravity_tip_ux", "gravity_tip_uy",
                                          "gravity_max_von_mises", "residual"});
  CHECK(diags[2].value == doctest::Approx(both->displacement_at(0, 2, 0.6)[1]));
  // A deck without loads: one case, plain field names.
  auto plain = solve(g, "elasticity:\n  E: 1\n  nu: 0.3\n  faces: {x-: clamped, x+: {type: traction, value: [0, -1]}}\n");
  CHECK(plain->fields()[0].name == "displacement");
  CHECK(plain->diagnostics(0)[0].name == "max_displacement");
}

TEST_CASE("float agrees with double") {
  const Grid g = plate(33, 17, 0, 0, 2, 1);
  const std::string deck = "elasticity:\n  E: 1\n  nu: 0.3\n  faces: {x-: clamped, x+: {type: traction, value: [0, -1e-3]}}\n";
  auto d = solve<double>(g, deck);
  auto f = solve<float>(g, deck);
  double diff = 0, size = 0;
  for (std::size_t k = 0; k < d->displacement(0).size(); ++k) {
    diff = std::max(diff, std::abs(double(f->displacement(0)[k]) - d->displacement(0)[k]));
    size = std::max(size, std::abs(d->displacement(0)[k]));
  }
  // Float's Cholesky of this K (condition ~1e5) errs by ~1e-2 relative; one refinement step
  // (residuals in double) takes it to ~1e-4, where the float-rounded residual stops falling.
  INFO(diff << " of " << size);
  CHECK(diff < 1e-3 * size);
}

TEST_CASE("the example deck runs as it is") {
  Deck deck = Deck::load(std::filesystem::path(TRIDSIM_SOURCE_DIR) / "inputs" / "plate2d.yaml");
  const DeckNode root = deck.root();
  const DeckNode gn = root.child("grid");
  const auto n = gn.get<std::vector<long>>("n");
  const auto lo = gn.get<std::vector<double>>("lo"), hi = gn.get<std::vector<double>>("hi");
  REQUIRE(n.size() == 2);
  const Grid g = plate(n[0], n[1], lo[0], lo[1], hi[0], hi[1]);
  SetupContext ctx;
  for (const auto& key : root.child("constants").keys()) ctx.constants[key] = root.child("constants").get<double>(key);
  ElasticityModule<double> m;
  m.setup(g, root.child("elasticity"), ctx, 0.0);
  m.step(0.0, 0.0);
  CHECK(m.relative_residual() < 1e-10);
  REQUIRE(m.load_cases() == 2);
  CHECK(m.displacement_at(0, hi[0], 0.5 * (lo[1] + hi[1]))[1] < 0);  // the shear load pushes down
  CHECK(m.displacement_at(1, hi[0], 0.5 * (lo[1] + hi[1]))[1] < 0);  // so does gravity
}

TEST_CASE("bad decks give one clear error") {
  const Grid g = plate(5, 5, 0, 0, 1, 1);
  const std::string ok = "  E: 1\n  nu: 0.3\n  faces: {x-: clamped, x+: {type: traction, value: [0, -1]}}\n";
  auto fails = [&](const Grid& grid, const std::string& body, const std::string& part) {
    Deck deck = Deck::parse("elasticity:\n" + body, "bad");
    ElasticityModule<double> m;
    INFO(body);
    CHECK_THROWS_WITH_AS(m.setup(grid, deck.root().child("elasticity"), SetupContext{}, 0.0),
                         doctest::Contains(part.c_str()), DeckError);
  };
  Grid cube = g;
  cube.dim = 3;
  cube.n[2] = 5;
  fails(cube, ok, "grid.n: the elasticity module solves plane problems (plane stress or strain): the grid needs 2 axes, got 3");
  Grid line = g;
  line.dim = 1;
  line.n[1] = 1;
  fails(line, ok, "the grid needs 2 axes, got 1");
  fails(g, "  model: plane-strain\n  E: 1\n  nu: 0.5\n  faces: {x-: clamped}\n",
        "elasticity.nu: must be in (-1, 0.5) in plane strain");
  fails(g, "  model: plane-strain\n  E: 1\n  nu: \"x > 0.5 ? 0.5 : 0.3\"\n  faces: {x-: clamped}\n",
        "got 0.500000 at the element centred at (0.625, 0.125)");
  fails(g, "  E: 1\n  nu: 0.3\n  faces: {x-: glued}\n", "elasticity.faces.x-: expected free, clamped, roller or traction, got 'glued'");
  fails(g, "  E: 1\n  nu: 0.3\n  faces: {x-: {type: hinge}}\n", "expected free, clamped, roller or traction");
  fails(g, "  model: membrane\n" + ok, "expected plane-stress or plane-strain");
  fails(g, "  E: \"0.5 - x\"\n  nu: 0.3\n  faces: {x-: clamped}\n", "elasticity.E: must be a finite number > 0");
  fails(g, "  E: 1\n  nu: 0.3\n", "the supports leave the plate free to move along x and y");
  fails(g, "  E: 1\n  nu: 0.3\n  faces: {x-: roller, x+: roller}\n", "free to move along y");
  fails(g, "  model: plane-strain\n  thickness: 2\n" + ok, "applies to plane stress");
  fails(g, ok + "  loads:\n    - {traction: {x+: [0, 1]}}\n", "expected a map of load cases");
  fails(g, ok + "  loads:\n    a: {traction: {x-: [0, 1]}}\n", "face x- is clamped: only faces of type traction");
  fails(g, ok + "  loads:\n    a: {traction: {z+: [0, 1]}}\n", "unknown face");
  fails(g, ok + "  loads:\n    a b: {body_force: [0, 1]}\n", "letters, digits");
  fails(g, ok + "  body_force: [0, 1, 2]\n", "expected [bx, by]");
  fails(g, ok + "  body_force: [0, \"sin(\"]\n", "elasticity.body_force");
  fails(g, ok + "  body_force: [0, \"t\"]\n", "steady");
  fails(g, "  E: 1\n  nu: 0.3\n  faces: {x-: {type: clamped, value: [0, \"1/(x-0)\"]}}\n", "not finite");
  fails(g, "  E: 1\n  nu: 0.3\n  faces: {x-: {type: free, value: 1}, y-: clamped}\n", "a free face takes no value");
  fails(g, ok + "  tip: [2, 0]\n", "elasticity.tip");
}
