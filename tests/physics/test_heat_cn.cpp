// Heat module, the unsplit Crank-Nicolson step (scheme crank-nicolson in 2D and 3D, solver
// multifrontal): max-norm order 2 where time-dependent Neumann faces meet (beside the ADI
// schemes' orders on the same problems), the exact discrete decay of a Dirichlet mode,
// refactorization when dt changes, agreement with the 1D tridiagonal Crank-Nicolson, deck errors.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/expression.hpp"
#include "physics/heat/heat.hpp"

using namespace tridsim;

namespace {

struct Problem {
  std::string name;
  int dim;
  std::string kappa, source, exact;
  std::vector<std::string> faces;  // "    x-: {type: ..., value: ...}" lines
};

std::string face_yaml(const std::string& face, const std::string& type, const std::string& value) {
  return "    " + face + ": {type: " + type + ", value: \"" + value + "\"}\n";
}

std::string deck_text(const Problem& p, const std::string& scheme, const std::string& extra = "") {
  std::string text = "heat:\n  scheme: " + scheme + "\n  diffusivity: \"" + p.kappa + "\"\n  source: \"" + p.source +
                     "\"\n  initial: \"" + p.exact + "\"\n  exact: \"" + p.exact + "\"\n" + extra + "  boundary:\n";
  for (const auto& f : p.faces) text += f;
  return text;
}

Grid unit_grid(int dim, int cells) {
  Grid g;
  g.dim = dim;
  for (int a = 0; a < dim; ++a) g.n[a] = cells + 1;
  return g;
}

template <class T>
void setup(HeatModule<T>& m, const Problem& p, const std::string& scheme, int cells, double t0 = 0,
           const std::string& extra = "") {
  Deck deck = Deck::parse(deck_text(p, scheme, extra), p.name);
  SetupContext ctx;
  m.setup(unit_grid(p.dim, cells), deck.root().child("heat"), ctx, t0);
  deck.check_unknown_keys();
}

// Steps of dt = courant h from 0 to `end`, the last one shortened to end there (as the driver
// does at an output time); the max-norm error at `end`.
template <class T = double>
double max_error(const Problem& p, const std::string& scheme, int cells, double end, double courant,
                 int* factorizations = nullptr) {
  HeatModule<T> m;
  setup(m, p, scheme, cells);
  const double dt = courant / cells;
  const long steps = long(std::ceil(end / dt - 1e-9));
  for (long s = 0; s < steps; ++s) {
    const double t = double(s) * dt;
    m.step(t, std::min(dt, end - t));
  }
  if (factorizations) *factorizations = m.factorizations();
  return m.error_norms(end)->max;
}

// Max-norm errors of a scheme on successive grids, with the observed orders between them.
std::vector<double> orders(const Problem& p, const std::string& scheme, const std::vector<int>& cells, double end,
                           double courant) {
  std::vector<double> err, out;
  for (int c : cells) err.push_back(max_error(p, scheme, c, end, courant));
  for (std::size_t i = 1; i < err.size(); ++i) {
    out.push_back(std::log(err[i - 1] / err[i]) / std::log(double(cells[i]) / cells[i - 1]));
    std::printf("%-40s %-18s h=1/%-3d max error %.3e  order %.3f\n", p.name.c_str(), scheme.c_str(), cells[i],
                err[i], out.back());
  }
  return out;
}

// u = exp(-t) cos(x + y) + t x y: Neumann data that vary in time on every face, with tangential
// derivatives at the corners, so the flux terms of two faces meet there.
const std::string uc = "exp(-t)*cos(x + y) + t*x*y";
const std::string fc = "exp(-t)*cos(x + y) + x*y";
const std::string kcv = "1 + x*y/2";
const std::string fcv =
    "exp(-t)*cos(x + y) + x*y + x*y*exp(-t)*cos(x + y) - (y/2)*(-exp(-t)*sin(x + y) + t*y) - "
    "(x/2)*(-exp(-t)*sin(x + y) + t*x)";
const std::vector<std::string> corner2 = {
    face_yaml("x-", "neumann", "exp(-t)*sin(x + y) - t*y"), face_yaml("x+", "dirichlet", uc),
    face_yaml("y-", "neumann", "exp(-t)*sin(x + y) - t*x"), face_yaml("y+", "dirichlet", uc)};
const std::vector<std::string> neumann2 = {
    corner2[0], face_yaml("x+", "neumann", "-exp(-t)*sin(x + y) + t*y"), corner2[2],
    face_yaml("y+", "neumann", "-exp(-t)*sin(x + y) + t*x")};

// 3D: u = exp(-t) cos(x + y + z) + t x y z; Neumann faces meet on edges and at corners.
const std::string u3 = "exp(-t)*cos(x + y + z) + t*x*y*z";
const std::string f3 = "2*exp(-t)*cos(x + y + z) + x*y*z";
const std::string k3v = "1 + x*y*z/2";
const std::string f3v =
    "-exp(-t)*cos(x + y + z) + x*y*z + 3*(1 + x*y*z/2)*exp(-t)*cos(x + y + z) - "
    "(y*z/2)*(-exp(-t)*sin(x + y + z) + t*y*z) - (x*z/2)*(-exp(-t)*sin(x + y + z) + t*x*z) - "
    "(x*y/2)*(-exp(-t)*sin(x + y + z) + t*x*y)";
std::vector<std::string> neumann3(bool all) {
  const std::string s = "exp(-t)*sin(x + y + z)";
  return {face_yaml("x-", "neumann", s + " - t*y*z"),
          all ? face_yaml("x+", "neumann", "-" + s + " + t*y*z") : face_yaml("x+", "dirichlet", u3),
          face_yaml("y-", "neumann", s + " - t*x*z"),
          all ? face_yaml("y+", "neumann", "-" + s + " + t*x*z") : face_yaml("y+", "dirichlet", u3),
          face_yaml("z-", "neumann", s + " - t*x*y"),
          all ? face_yaml("z+", "neumann", "-" + s + " + t*x*y") : face_yaml("z+", "dirichlet", u3)};
}

}  // namespace

// The split schemes' orders are printed beside, for contrast (not checked here: test_heat.cpp does).
TEST_CASE("unsplit crank-nicolson: max-norm order 2 where time-dependent Neumann faces meet (2D)") {
  const std::vector<Problem> problems = {{"2D corner, two neumann faces", 2, "1", fc, uc, corner2},
                                         {"2D all neumann, variable kappa", 2, kcv, fcv, uc, neumann2}};
  for (const Problem& p : problems) {
    for (double o : orders(p, "crank-nicolson", {16, 32, 64, 128}, 0.5, 1.0)) {
      CHECK(o >= 1.9);
      CHECK(o <= 2.1);
    }
    orders(p, "douglas", {16, 32, 64, 128}, 0.5, 1.0);
    orders(p, "peaceman-rachford", {16, 32, 64, 128}, 0.5, 1.0);
  }
}

TEST_CASE("unsplit crank-nicolson: max-norm order 2 where time-dependent Neumann faces meet (3D)") {
  const std::vector<Problem> problems = {{"3D corner, three neumann faces", 3, "1", f3, u3, neumann3(false)},
                                         {"3D all neumann, variable kappa", 3, k3v, f3v, u3, neumann3(true)}};
  for (const Problem& p : problems) {
    const auto cn = orders(p, "crank-nicolson", {8, 16, 32}, 0.25, 1.0);
    CHECK(cn.back() >= 1.9);
    CHECK(cn.back() <= 2.1);
    orders(p, "douglas", {8, 16, 32}, 0.25, 1.0);
  }
}

// A Dirichlet mode sin(pi x) sin(pi y) [sin(pi z)] is an eigenvector of the discrete operator,
// eigenvalue lambda = -kappa sum_a (4 / h^2) sin^2(pi h / 2); Crank-Nicolson multiplies it by
// (1 + dt/2 lambda) / (1 - dt/2 lambda) per step: the discrete solution is known exactly.
TEST_CASE("unsplit crank-nicolson, all faces Dirichlet: the exact decay of a mode") {
  const double pi = 3.14159265358979323846, kappa = 0.5;
  for (int dim : {2, 3}) {
    std::string mode = "sin(pi*x)*sin(pi*y)" + std::string(dim == 3 ? "*sin(pi*z)" : "");
    const std::string exact = "exp(-" + std::to_string(dim) + "*pi^2*" + std::to_string(kappa) + "*t)*" + mode;
    Problem p{std::to_string(dim) + "D decaying mode", dim, std::to_string(kappa), "0", exact, {}};
    for (const char* f : {"x-", "x+", "y-", "y+", "z-", "z+"})
      if (dim == 3 || f[0] != 'z') p.faces.push_back(face_yaml(f, "dirichlet", "0"));
    std::vector<double> err;
    const std::vector<int> cells = dim == 2 ? std::vector<int>{16, 32, 64} : std::vector<int>{8, 16, 32};
    for (int c : cells) {
      HeatModule<double> m;
      setup(m, p, "crank-nicolson", c);
      const double h = 1.0 / c, dt = h / 2, end = 0.1;
      const int steps = int(std::lround(end / dt));
      for (int s = 0; s < steps; ++s) m.step(s * dt, dt);
      const double lambda = -kappa * dim * 4 / (h * h) * std::pow(std::sin(pi * h / 2), 2);
      const double factor = std::pow((1 + dt / 2 * lambda) / (1 - dt / 2 * lambda), steps);
      const Grid g = unit_grid(dim, c);
      std::vector<double> discrete(g.size());
      Expression(mode, {}).fill(g, 0.0, discrete.data());
      double diff = 0;
      for (index_t i = 0; i < g.size(); ++i) diff = std::max(diff, std::abs(m.solution()[i] - factor * discrete[i]));
      CHECK(diff < 1e-13);
      err.push_back(m.error_norms(steps * dt)->max);
    }
    for (std::size_t i = 1; i < err.size(); ++i) {
      const double o = std::log2(err[i - 1] / err[i]);
      std::printf("%-40s h=1/%-3d max error %.3e  order %.3f\n", p.name.c_str(), cells[i], err[i], o);
      if (i + 1 == err.size()) CHECK(o == doctest::Approx(2.0).epsilon(0.05));  // 3D: 1.81 from 1/8 to 1/16
    }
  }
}

// A run that changes dt at t1 refactors (same analysis) and continues exactly as a run that had
// the new dt from the start, started at t1 from the first run's state.
TEST_CASE("unsplit crank-nicolson: refactorization when dt changes") {
  for (int dim : {2, 3}) {
    const Problem p = dim == 2 ? Problem{"2D", 2, kcv, fcv, uc, neumann2} : Problem{"3D", 3, k3v, f3v, u3, neumann3(false)};
    const int cells = dim == 2 ? 40 : 12;
    const double dt1 = 1.0 / 32, dt2 = 0.0137, t1 = 8 * dt1;
    HeatModule<double> a, b;
    setup(a, p, "crank-nicolson", cells);
    for (int s = 0; s < 8; ++s) a.step(s * dt1, dt1);
    CHECK(a.factorizations() == 1);
    setup(b, p, "crank-nicolson", cells, t1);
    const auto sa = a.state(), sb = b.state();
    REQUIRE(sa.size() == 1);
    std::copy_n(static_cast<const double*>(sa[0].data), sa[0].count, static_cast<double*>(sb[0].data));
    b.state_restored();
    for (int s = 0; s < 5; ++s) {
      a.step(t1 + s * dt2, dt2);
      b.step(t1 + s * dt2, dt2);
    }
    CHECK(a.factorizations() == 2);
    CHECK(b.factorizations() == 1);
    double diff = 0;
    for (std::size_t i = 0; i < a.solution().size(); ++i)
      diff = std::max(diff, std::abs(a.solution()[i] - b.solution()[i]));
    CHECK(diff < 1e-13);
  }
  // An irregular last step (courant 0.7: end is no multiple of dt): one refactorization, order 2.
  const Problem p{"2D corner, irregular last step", 2, "1", fc, uc, corner2};
  std::vector<double> err;
  for (int c : {32, 64, 128}) {
    int factorizations = 0;
    err.push_back(max_error(p, "crank-nicolson", c, 0.5, 0.7, &factorizations));
    CHECK(factorizations == 2);
  }
  for (std::size_t i = 1; i < err.size(); ++i) {
    const double o = std::log2(err[i - 1] / err[i]);
    std::printf("%-40s h=1/%-3d max error %.3e  order %.3f\n", p.name.c_str(), 32 << i, err[i], o);
    CHECK(o >= 1.9);
  }
}

// In 1D the unsplit step is the tridiagonal Crank-Nicolson: with data constant in time (where both
// take the same terms) solver multifrontal and solver lines agree to rounding.
TEST_CASE("1D crank-nicolson: multifrontal agrees with the tridiagonal lines") {
  const Problem p{"1D", 1, "0.7", "1 + x", "sin(3*x) + 1",
                  {face_yaml("x-", "neumann", "0.3"), face_yaml("x+", "dirichlet", "2")}};
  HeatModule<double> lines, sparse;
  setup(lines, p, "crank-nicolson", 50);
  setup(sparse, p, "crank-nicolson", 50, 0, "  solver: multifrontal\n");
  CHECK(lines.solver() == HeatModule<double>::Solver::lines);
  CHECK(sparse.solver() == HeatModule<double>::Solver::multifrontal);
  for (int s = 0; s < 20; ++s) {
    lines.step(s * 0.01, 0.01);
    sparse.step(s * 0.01, 0.01);
  }
  double diff = 0;
  for (std::size_t i = 0; i < lines.solution().size(); ++i)
    diff = std::max(diff, std::abs(lines.solution()[i] - sparse.solution()[i]));
  CHECK(diff < 1e-13);
}

TEST_CASE("unsplit crank-nicolson in float: error at the level of the discretization") {
  const Problem p{"2D corner, float", 2, kcv, fcv, uc, corner2};
  const double e64 = max_error<double>(p, "crank-nicolson", 32, 0.5, 1.0);
  const double e32 = max_error<float>(p, "crank-nicolson", 32, 0.5, 1.0);
  CHECK(e32 < 1.5 * e64 + 1e-5);
}

TEST_CASE("heat.solver: choices and deck errors") {
  const Problem p{"bad.yaml", 2, "1", fc, uc, corner2};
  auto setup_error = [&](const std::string& scheme, const std::string& extra, Backend backend = Backend::cpu,
                         int dim = 2) {
    Problem q = p;
    q.dim = dim;
    if (dim == 3) q.faces.push_back(face_yaml("z-", "dirichlet", "0")), q.faces.push_back(face_yaml("z+", "dirichlet", "0"));
    Deck deck = Deck::parse(deck_text(q, scheme, extra), q.name);
    SetupContext ctx;
    ctx.backend = backend;
    HeatModule<double> m;
    try {
      m.setup(unit_grid(dim, 8), deck.root().child("heat"), ctx, 0.0);
    } catch (const DeckError& e) {
      return e.key() + " | " + e.what();
    }
    return std::string("no error");
  };
  // The split schemes refuse multifrontal, naming crank-nicolson.
  std::string e = setup_error("douglas", "  solver: multifrontal\n");
  CHECK(e.find("heat.solver") == 0);
  CHECK(e.find("crank-nicolson") != std::string::npos);
  CHECK(setup_error("peaceman-rachford", "  solver: multifrontal\n").find("crank-nicolson") != std::string::npos);
  // The unsplit step has no lines to solve.
  for (const char* lines : {"lines", "thomas", "pcr", "{x: thomas, y: pcr}"}) {
    e = setup_error("crank-nicolson", std::string("  solver: ") + lines + "\n");
    CHECK(e.find("heat.solver") == 0);
    CHECK(e.find("multifrontal") != std::string::npos);
  }
  // An unknown name lists both kinds of choice.
  e = setup_error("crank-nicolson", "  solver: multifrontl\n");
  CHECK(e.find("heat.solver") == 0);
  CHECK(e.find("multifrontal") != std::string::npos);
  CHECK(e.find("thomas") != std::string::npos);
  // Still refused: peaceman-rachford in 3D.
  CHECK(setup_error("peaceman-rachford", "", Backend::cpu, 3).find("heat.scheme") == 0);
  // Accepted: auto picks multifrontal for crank-nicolson, lines for the split schemes.
  CHECK(setup_error("crank-nicolson", "") == "no error");
  CHECK(setup_error("crank-nicolson", "  solver: auto\n") == "no error");
  CHECK(setup_error("crank-nicolson", "", Backend::cpu, 3) == "no error");
  CHECK(setup_error("douglas", "  solver: lines\n") == "no error");
  CHECK(setup_error("douglas", "  solver: {x: pcr, y: thomas}\n") == "no error");
  CHECK(setup_error("peaceman-rachford", "  solver: cr\n") == "no error");
  HeatModule<double> cn, adi;
  setup(cn, p, "crank-nicolson", 8);
  CHECK(cn.solver() == HeatModule<double>::Solver::multifrontal);
  setup(adi, p, "douglas", 8, 0, "  solver: lines\n");
  CHECK(adi.solver() == HeatModule<double>::Solver::lines);
}
