// Heat with periodic faces: a Fourier mode on a periodic line or box is an eigenvector of every
// scheme's step, so after S steps u = G^S u0 at every node, G the scheme's amplification factor
// for that mode from the discrete dispersion relation (checked to rounding, for Crank-Nicolson,
// Douglas and Peaceman-Rachford; periodic axes with Dirichlet, Neumann or periodic ones beside
// them). A variable diffusivity: shifting kappa and u0 by one node shifts the solution by one node
// (the wrap-around couples like any other face). Moving Dirichlet data beside a periodic axis:
// order 2. The example deck against its exact solution. And what is refused, at which key.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "physics/heat/heat.hpp"
#include "tests/common/deck_grid.hpp"

using namespace tridsim;

namespace {

const double pi = std::acos(-1.0);

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The heat section's text: kappa, u0 (and exact), boundary lines, extra keys.
std::string heat_yaml(const std::string& scheme, const std::string& kappa, const std::string& u0,
                      const std::vector<std::string>& faces, const std::string& extra = "") {
  std::string text = "heat:\n  scheme: " + scheme + "\n  diffusivity: \"" + kappa + "\"\n  initial: \"" + u0 + "\"\n" +
                     extra + "  boundary:\n";
  for (const auto& f : faces) text += "    " + f + "\n";
  return text;
}

Grid box(std::vector<index_t> n, std::vector<double> lo = {}, std::vector<double> hi = {}) {
  Grid g;
  g.dim = int(n.size());
  for (int a = 0; a < g.dim; ++a) {
    g.n[a] = n[a];
    if (!lo.empty()) g.lo[a] = lo[a];
    if (!hi.empty()) g.hi[a] = hi[a];
  }
  return g;
}

// u after `steps` steps of dt from t = 0, and the module's grid (periodic axes marked).
struct Result {
  std::vector<double> u;
  Grid grid;
};
Result run(const std::string& text, const Grid& g, double dt, int steps) {
  Deck deck = Deck::parse(text, "periodic");
  HeatModule<double> m;
  SetupContext ctx;
  ctx.dt = dt;
  ctx.end = dt * steps;
  m.setup(g, deck.root().child("heat"), ctx, 0.0);
  deck.check_unknown_keys();
  for (int s = 0; s < steps; ++s) m.step(s * dt, dt);
  Result r;
  r.u.assign(m.solution().begin(), m.solution().end());
  r.grid = g;
  r.grid.periodic = m.periodic_axes(deck.root().child("heat"), g.dim);
  return r;
}

// One axis of a mode: its eigenvalue's angle theta (lambda = -4 kappa / h^2 sin^2(theta/2)) and
// its value at node i.
struct AxisMode {
  enum Kind { wave, sine, cosine } kind;  // periodic cos(k x + phase); Dirichlet sin; Neumann cos
  int k;                                   // wave number along the period, or half-waves over the box
  double phase = 0;
  double theta(const Grid& g, int a) const {
    return kind == wave ? 2 * pi * k / double(g.n[a]) : pi * k * g.h(a) / (g.hi[a] - g.lo[a]);
  }
  double value(const Grid& g, int a, index_t i) const {
    const double s = (g.coord(a, i) - g.lo[a]) / (g.hi[a] - g.lo[a]);  // 0..1 over the box or period
    return kind == wave ? std::cos(2 * pi * k * s + phase) : kind == sine ? std::sin(pi * k * s) : std::cos(pi * k * s);
  }
  // The same as an expression of the axis's coordinate `x` (lo, L: the box's or period's).
  std::string text(const std::string& x, double lo, double L) const {
    char buf[160];
    const std::string s = "((" + x + ") - (" + num(lo) + ")) / " + num(L);
    if (kind == wave) std::snprintf(buf, sizeof buf, "cos(2*pi*%d*%s + %.17g)", k, s.c_str(), phase);
    else std::snprintf(buf, sizeof buf, "%s(pi*%d*%s)", kind == sine ? "sin" : "cos", k, s.c_str());
    return buf;
  }
};

// z_a = dt/2 lambda_a per axis; G by scheme.
double amplification(const std::string& scheme, const std::vector<double>& z) {
  double num = 1, den = 1, sum = 0;
  for (double za : z) {
    num *= 1 + za;
    den *= 1 - za;
    sum += za;
  }
  if (scheme == "peaceman-rachford") return num / den;
  return 1 + 2 * sum / den;  // douglas in delta form; crank-nicolson in 1D is its 1D case
}

// Runs the mode and checks u = G^steps u0 at every node.
void check_mode(const std::string& scheme, const Grid& g0, const std::vector<AxisMode>& modes,
                const std::vector<std::string>& faces, double kappa, double dt, int steps) {
  const char* names[3] = {"x", "y", "z"};
  std::string u0;
  for (int a = 0; a < g0.dim; ++a)
    u0 += (a ? "*" : "") + modes[a].text(names[a], g0.lo[a], g0.hi[a] - g0.lo[a]);
  const Result r = run(heat_yaml(scheme, num(kappa), u0, faces), g0, dt, steps);
  const Grid& g = r.grid;
  std::vector<double> z;
  for (int a = 0; a < g.dim; ++a) {
    const double s = std::sin(modes[a].theta(g, a) / 2);
    z.push_back(-0.5 * dt * 4 * kappa / (g.h(a) * g.h(a)) * s * s);
  }
  const double G = std::pow(amplification(scheme, z), steps);
  CHECK(G < 0.9);  // the mode has decayed: the check below measures the scheme, not a constant
  double worst = 0;
  for (index_t k = 0; k < g.n[2]; ++k)
    for (index_t j = 0; j < g.n[1]; ++j)
      for (index_t i = 0; i < g.n[0]; ++i) {
        const index_t ijk[3] = {i, j, k};
        double want = G;
        for (int a = 0; a < g.dim; ++a) want *= modes[a].value(g, a, ijk[a]);
        worst = std::max(worst, std::abs(r.u[std::size_t(g.index(i, j, k))] - want));
      }
  INFO(scheme, ": G^steps = ", G, ", largest difference ", worst);
  CHECK(worst < 1e-13);
}

std::string face(const std::string& name, const std::string& type, const std::string& value = "0") {
  return name + ": {type: " + type + (type == "periodic" ? "" : ", value: \"" + value + "\"") + "}";
}
const std::string px = face("x-", "periodic") + "\n    " + face("x+", "periodic");
const std::string py = face("y-", "periodic") + "\n    " + face("y+", "periodic");
const std::string pz = face("z-", "periodic") + "\n    " + face("z+", "periodic");

// The DeckError of setting up `text` on g (with `backend`), or "" if it sets up.
std::string setup_error(const std::string& text, const Grid& g, Backend backend = Backend::cpu) {
  Deck deck = Deck::parse(text, "deck");
  HeatModule<double> m;
  SetupContext ctx;
  ctx.backend = backend;
  ctx.dt = 1e-3;
  try {
    m.setup(g, deck.root().child("heat"), ctx, 0.0);
  } catch (const DeckError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("1D: a Fourier mode decays by (1 + z) / (1 - z) per step (crank-nicolson, douglas)") {
  for (const char* scheme : {"crank-nicolson", "douglas"}) {
    check_mode(scheme, box({17}), {{AxisMode::wave, 3, 0.3}}, {px}, 1.0, 2e-3, 20);
    check_mode(scheme, box({31}, {-1}, {2}), {{AxisMode::wave, 5, -1.1}}, {px}, 0.7, 1e-2, 12);
  }
}

TEST_CASE("2D: periodic x beside Dirichlet or Neumann y, and a periodic box: the schemes' G") {
  for (const char* scheme : {"douglas", "peaceman-rachford"}) {
    CAPTURE(scheme);
    check_mode(scheme, box({24, 17}), {{AxisMode::wave, 2, 0.3}, {AxisMode::sine, 2}},
               {px, face("y-", "dirichlet"), face("y+", "dirichlet")}, 1.0, 2e-3, 15);
    check_mode(scheme, box({20, 13}, {0, -1}, {2, 1}), {{AxisMode::wave, 3, 0.7}, {AxisMode::cosine, 1}},
               {px, face("y-", "neumann"), face("y+", "neumann")}, 0.5, 5e-3, 15);
    check_mode(scheme, box({18, 12}, {0, 0}, {1, 3}), {{AxisMode::sine, 1}, {AxisMode::wave, 2, 1.3}},
               {face("x-", "dirichlet"), face("x+", "dirichlet"), py}, 1.0, 2e-3, 15);
    check_mode(scheme, box({16, 21}), {{AxisMode::wave, 1, 0.2}, {AxisMode::wave, 4, -0.4}}, {px, py}, 1.0, 2e-3, 15);
  }
}

TEST_CASE("3D Douglas: periodic x and z with Neumann y; a periodic box") {
  check_mode("douglas", box({12, 9, 10}), {{AxisMode::wave, 2, 0.3}, {AxisMode::cosine, 2}, {AxisMode::wave, 1, 0.9}},
             {px, face("y-", "neumann"), face("y+", "neumann"), pz}, 1.0, 2e-3, 10);
  check_mode("douglas", box({10, 11, 12}), {{AxisMode::wave, 1, 0.1}, {AxisMode::wave, 2, 0.5}, {AxisMode::wave, 3, 2.0}},
             {px, py, pz}, 1.0, 2e-3, 10);
}

// kappa and u0 shifted by one node along the periodic axis: the solution shifts with them, the
// wrap-around face coupling as every other face does (a mirrored or dropped face would not).
TEST_CASE("variable diffusivity: a shift by one node along the periodic axis shifts the solution") {
  for (int axis : {0, 1}) {
    for (const char* scheme : {"douglas", "peaceman-rachford"}) {
      CAPTURE(axis);
      CAPTURE(scheme);
      const Grid g = box({16, 14});
      const double h = 1.0 / double(g.n[axis]);  // the period 1 over n distinct nodes
      const std::string p = axis == 0 ? "x" : "y", q = axis == 0 ? "y" : "x";
      auto text = [&](double shift) {
        const std::string s = "(" + p + " + " + num(shift) + ")";
        const std::string kappa = "1.5 + sin(2*pi*" + s + ") * " + q;
        const std::string u0 = "exp(cos(2*pi*" + s + ")) * sin(pi*" + q + ") + " + q;
        const std::vector<std::string> faces = {axis == 0 ? px : py,
                                                face(q + "-", "dirichlet", "0"), face(q + "+", "dirichlet", "1")};
        return heat_yaml(scheme, kappa, u0, faces);
      };
      const Result a = run(text(0), g, 4e-3, 12), b = run(text(h), g, 4e-3, 12);
      const auto s = g.strides();
      double worst = 0, change = 0;
      for (index_t j = 0; j < g.n[1]; ++j)
        for (index_t i = 0; i < g.n[0]; ++i) {
          const index_t ij[2] = {i, j}, next = (ij[axis] + 1) % g.n[axis];
          const index_t o = g.index(i, j, 0), shifted = o + (next - ij[axis]) * s[axis];
          worst = std::max(worst, std::abs(b.u[std::size_t(o)] - a.u[std::size_t(shifted)]));
          change = std::max(change, std::abs(a.u[std::size_t(o)] - b.u[std::size_t(o)]));
        }
      CHECK(change > 0.01);  // (the shift moves the solution)
      CHECK(worst < 1e-12);
    }
  }
}

// u = cos(2 pi y) (x + t) + x^2 y: Dirichlet x faces whose data move, periodic in y, source to match;
// the stage values of the x faces (face_data.hpp) apply the periodic y operator.
TEST_CASE("moving Dirichlet faces beside a periodic axis: order 2 (douglas, peaceman-rachford)") {
  const std::string u = "cos(2*pi*y)*(x + t) + x^2*sin(2*pi*y)";
  const std::string f = "cos(2*pi*y)*(1 + 4*pi^2*(x + t)) - 2*sin(2*pi*y) + 4*pi^2*x^2*sin(2*pi*y)";
  for (const char* scheme : {"douglas", "peaceman-rachford"}) {
    std::vector<double> err;
    for (int n : {16, 32, 64}) {
      const std::string text = heat_yaml(scheme, "1", u, {face("x-", "dirichlet", u), face("x+", "dirichlet", u), py},
                                         "  source: \"" + f + "\"\n  exact: \"" + u + "\"\n");
      Deck deck = Deck::parse(text, "moving");
      HeatModule<double> m;
      SetupContext ctx;
      const double dt = 0.25 / n, end = 0.25;
      m.setup(box({n + 1, n}), deck.root().child("heat"), ctx, 0.0);
      const int steps = int(std::lround(end / dt));
      for (int s = 0; s < steps; ++s) m.step(s * dt, dt);
      err.push_back(m.error_norms(steps * dt)->max);
    }
    const double order = std::log2(err[1] / err[2]);
    std::printf("%-18s max errors %.3e %.3e %.3e, order %.3f\n", scheme, err[0], err[1], err[2], order);
    CHECK(order == doctest::Approx(2.0).epsilon(0.06));
  }
}

TEST_CASE("inputs/heat-periodic.yaml: the error against its exact solution falls 4x per halving of h and dt") {
  Deck deck = Deck::load(std::string(TRIDSIM_SOURCE_DIR) + "/inputs/heat-periodic.yaml");
  const Grid g = testing::deck_grid(deck.root().child("grid"));
  const double dt = deck.root().child("time").get<double>("dt"), end = 0.5;
  std::vector<double> err;
  for (int r : {4, 2}) {  // the deck's grid and step coarsened by 4 and by 2
    Grid c = g;
    for (int a = 0; a < c.dim; ++a) c.n[a] = (g.n[a] - 1) / r + 1;
    c.n[0] = g.n[0] / r;  // (x is periodic: n distinct nodes)
    HeatModule<double> m;
    SetupContext ctx;
    m.setup(c, deck.root().child("heat"), ctx, 0.0);
    const double step = dt * r;
    const int steps = int(std::lround(end / step));
    for (int s = 0; s < steps; ++s) m.step(s * step, step);
    err.push_back(m.error_norms(steps * step)->max);
  }
  std::printf("heat-periodic.yaml: max errors %.3e %.3e\n", err[0], err[1]);
  CHECK(err[1] < 1e-3);
  CHECK(std::log2(err[0] / err[1]) == doctest::Approx(2.0).epsilon(0.08));
}

TEST_CASE("refused: one face of a pair periodic, a value, few nodes, cuda, unsplit crank-nicolson, pcr") {
  const std::string u0 = "sin(2*pi*x)";
  const std::vector<std::string> mixed = {face("x-", "periodic"), face("x+", "dirichlet")};
  std::string e = setup_error(heat_yaml("douglas", "1", u0, mixed), box({9}));
  CHECK(e.find("heat.boundary.x+.type: face x- is periodic, so x+ must be too") != std::string::npos);
  e = setup_error(heat_yaml("douglas", "1", u0, {face("x-", "dirichlet"), face("x+", "periodic")}), box({9}));
  CHECK(e.find("heat.boundary.x-.type: face x+ is periodic, so x- must be too") != std::string::npos);
  e = setup_error(heat_yaml("douglas", "1", u0, {"x-: {type: periodic, value: 0}", face("x+", "periodic")}), box({9}));
  CHECK(e.find("heat.boundary.x-.value: a periodic face takes no value") != std::string::npos);
  e = setup_error(heat_yaml("douglas", "1", u0, {px}), box({2}));
  CHECK(e.find("heat.boundary.x-.type: periodic faces of x: a periodic axis needs at least 3 nodes") != std::string::npos);
  e = setup_error(heat_yaml("douglas", "1", u0, {px}), box({9}), Backend::cuda);
  CHECK(e.find("heat.boundary.x-.type: periodic faces of x: the cuda backend has no periodic") != std::string::npos);
  const std::vector<std::string> box2 = {px, face("y-", "dirichlet"), face("y+", "dirichlet")};
  e = setup_error(heat_yaml("crank-nicolson", "1", u0, box2), box({9, 9}));
  CHECK(e.find("heat.scheme: the unsplit crank-nicolson step") != std::string::npos);
  e = setup_error(heat_yaml("douglas", "1", u0, box2, "  solver: {x: pcr, y: pcr}\n"), box({9, 9}));
  CHECK(e.find("heat.solver: the periodic lines of x are solved by the cyclic Thomas") != std::string::npos);
  CHECK(setup_error(heat_yaml("douglas", "1", u0, box2, "  solver: {x: thomas, y: pcr}\n"), box({9, 9})).empty());
  // A module without periodic faces (poisson, bvp) reads the two kinds it has.
  Deck other = Deck::parse("poisson:\n  boundary:\n    all: {type: periodic}\n", "deck");
  Boundary bc;
  try {
    bc.read(other.root().child("poisson"), box({9, 9}), {});
    FAIL("a periodic face was read");
  } catch (const DeckError& err) {
    CHECK(std::string(err.what()).find("expected dirichlet or neumann, got 'periodic'") != std::string::npos);
  }
}
