// Poisson with any face mix (fft-tridiagonal, solvers/cyclic_reduction/transform_poisson.hpp):
// every Dirichlet / Neumann mix against the multifrontal solve of the same discrete system, every
// mix with periodic axes against a dense solve of the system assembled here, exact solutions with
// periodic and Neumann faces at order 2, the compatibility refusal and projection of the singular
// problems, and one clear error for each face mix a method cannot take. A stretched last axis
// (tanh-clustered nodes): every face mix against the dense solve, manufactured solutions at order
// 2, the singular problem's mean, the refusals of the methods that need a uniform grid.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/errors.hpp"
#include "physics/poisson/poisson.hpp"

using namespace tridsim;

namespace {

// The kinds of an axis's two faces.
enum Ends { DD, DN, ND, NN, PP };
const char* kind(Ends e, int side) {
  if (e == PP) return "periodic";
  const bool dirichlet = side == 0 ? (e == DD || e == DN) : (e == DD || e == ND);
  return dirichlet ? "dirichlet" : "neumann";
}
std::string ends_text(const std::vector<Ends>& ends) {
  std::string s;
  for (Ends e : ends) s += std::string(kind(e, 0)).substr(0, 1) + kind(e, 1)[0] + " ";
  return s;
}
bool singular(const std::vector<Ends>& ends) {
  return std::all_of(ends.begin(), ends.end(), [](Ends e) { return e == NN || e == PP; });
}

// The data of the comparisons: f, the Dirichlet values and the Neumann derivatives, as deck text
// and as functions (for the dense system).
const char* f_text = "1 + sin(3*x + 2*y - z) + x*y";
const char* d_text = "cos(x) + y^2 - z";
const char* n_text = "x - 2*y + 0.5*z + 0.3";
double f_of(double x, double y, double z) { return 1 + std::sin(3 * x + 2 * y - z) + x * y; }
double d_of(double x, double y, double z) { return std::cos(x) + y * y - z; }
double n_of(double x, double y, double z) { return x - 2 * y + 0.5 * z + 0.3; }

std::string deck(const std::string& method, const std::vector<Ends>& ends, const std::string& f,
                 const std::string& extra = "") {
  std::string s = "poisson:\n  method: " + method + "\n  source: \"" + f + "\"\n" + extra + "  boundary:\n";
  for (std::size_t a = 0; a < ends.size(); ++a)
    for (int side = 0; side < 2; ++side) {
      const std::string k = kind(ends[a], side);
      s += "    " + std::string("xyz").substr(a, 1) + (side ? "+" : "-") + ": {type: " + k;
      if (k == "dirichlet") s += ", value: \"" + std::string(d_text) + "\"";
      if (k == "neumann") s += ", value: \"" + std::string(n_text) + "\"";
      s += "}\n";
    }
  return s;
}

// n nodes on [0, length] clustered toward both ends: the tanh mapping of the uniform coordinate.
std::vector<double> tanh_nodes(index_t n, double length, double gamma = 2.0) {
  std::vector<double> z(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    const double s = double(i) / double(n - 1);
    z[std::size_t(i)] = 0.5 * length * (1 + std::tanh(gamma * (2 * s - 1)) / std::tanh(gamma));
  }
  z.front() = 0;
  z.back() = length;
  return z;
}

// A grid on [0, hi]; `stretched`: its last axis on tanh_nodes.
Grid grid(int dim, std::array<index_t, 3> n, std::array<double, 3> hi, const std::vector<Ends>& ends,
          bool stretched = false) {
  Grid g;
  g.dim = dim;
  g.n = n;
  g.hi = hi;
  for (int a = 0; a < dim; ++a) g.periodic[a] = ends[std::size_t(a)] == PP;
  if (stretched) g.nodes[dim - 1] = tanh_nodes(n[dim - 1], hi[dim - 1]);
  return g;
}

template <class T>
std::vector<double> solve(const Grid& g, const std::string& text, PoissonModule<T>* keep = nullptr) {
  Deck d = Deck::parse(text, "test");
  PoissonModule<T> local;
  PoissonModule<T>& m = keep ? *keep : local;
  SetupContext ctx;
  ctx.precision = precision_of<T>();
  m.setup(g, d.root().child("poisson"), ctx, 0.0);
  m.step(0.0, 0.0);
  CHECK(m.relative_residual() < (sizeof(T) == 8 ? 1e-12 : 1e-4));
  return std::vector<double>(m.solution().begin(), m.solution().end());
}

// The discrete system over every node, assembled from its definition: Dirichlet nodes u = d; any
// other node sum over the axes of 2/(h_- + h_+) ((u - u_-)/h_- + (u - u_+)/h_+) = f + sum over its
// Neumann faces of 2 g / h_-, h_- and h_+ the distances to the neighbours (h_a on a uniform axis):
// the neighbour past a Neumann face mirrored (at the inner one's distance), past a periodic one
// wrapped. Solved densely.
std::vector<double> dense_solve(const Grid& g, const std::vector<Ends>& ends) {
  const index_t n = g.size();
  std::vector<double> A(std::size_t(n * n), 0.0), b(std::size_t(n), 0.0);
  for (index_t p = 0; p < n; ++p) {
    const index_t ijk[3] = {p % g.n[0], (p / g.n[0]) % g.n[1], p / (g.n[0] * g.n[1])};
    const double x = g.coord(0, ijk[0]), y = g.coord(1, ijk[1]), z = g.coord(2, ijk[2]);
    bool dirichlet = false;
    for (int a = 0; a < g.dim; ++a)
      for (int side = 0; side < 2; ++side)
        if (std::string(kind(ends[std::size_t(a)], side)) == "dirichlet" && ijk[a] == (side ? g.n[a] - 1 : 0))
          dirichlet = true;
    double* row = &A[std::size_t(p * n)];
    if (dirichlet) {
      row[p] = 1;
      b[std::size_t(p)] = d_of(x, y, z);
      continue;
    }
    b[std::size_t(p)] = f_of(x, y, z);
    const index_t stride[3] = {1, g.n[0], g.n[0] * g.n[1]};
    for (int a = 0; a < g.dim; ++a) {
      const index_t i = ijk[a], last = g.n[a] - 1;
      const Ends e = ends[std::size_t(a)];
      const index_t left = i > 0 ? i - 1 : e == PP ? last : 1, right = i < last ? i + 1 : e == PP ? 0 : last - 1;
      const double hm = g.stretched(a) ? std::abs(g.coord(a, i) - g.coord(a, left)) : g.h(a);
      const double hp = g.stretched(a) ? std::abs(g.coord(a, right) - g.coord(a, i)) : g.h(a);
      const double wm = 2 / (hm * (hm + hp)), wp = 2 / (hp * (hm + hp));
      row[p] += wm + wp;
      row[p + (left - i) * stride[a]] -= wm;
      row[p + (right - i) * stride[a]] -= wp;
      if (e != PP && (i == 0 || i == last)) b[std::size_t(p)] += 2 * n_of(x, y, z) / hm;  // (a Neumann face)
    }
  }
  for (index_t c = 0; c < n; ++c) {  // Gaussian elimination, partial pivoting
    index_t piv = c;
    for (index_t r = c + 1; r < n; ++r)
      if (std::abs(A[std::size_t(r * n + c)]) > std::abs(A[std::size_t(piv * n + c)])) piv = r;
    for (index_t k = 0; k < n; ++k) std::swap(A[std::size_t(c * n + k)], A[std::size_t(piv * n + k)]);
    std::swap(b[std::size_t(c)], b[std::size_t(piv)]);
    for (index_t r = c + 1; r < n; ++r) {
      const double l = A[std::size_t(r * n + c)] / A[std::size_t(c * n + c)];
      if (l == 0) continue;
      for (index_t k = c; k < n; ++k) A[std::size_t(r * n + k)] -= l * A[std::size_t(c * n + k)];
      b[std::size_t(r)] -= l * b[std::size_t(c)];
    }
  }
  for (index_t r = n - 1; r >= 0; --r) {
    double s = b[std::size_t(r)];
    for (index_t k = r + 1; k < n; ++k) s -= A[std::size_t(r * n + k)] * b[std::size_t(k)];
    b[std::size_t(r)] = s / A[std::size_t(r * n + r)];
  }
  return b;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d = std::max(d, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return d / scale;
}

// Every mix of `dim` axes' ends.
std::vector<std::vector<Ends>> mixes(int dim) {
  std::vector<std::vector<Ends>> out;
  int count = 1;
  for (int a = 0; a < dim; ++a) count *= 5;
  for (int c = 0; c < count; ++c) {
    std::vector<Ends> e;
    for (int a = 0, r = c; a < dim; ++a, r /= 5) e.push_back(Ends(r % 5));
    out.push_back(e);
  }
  return out;
}

}  // namespace

TEST_CASE("fft-tridiagonal matches multifrontal for every Dirichlet / Neumann mix, 2D 7x9 and 3D 5x6x7") {
  // One thread: on 63 to 210 unknowns a team's barriers cost more than the solves, many times more
  // when ctest runs tests side by side on the same cores.
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  for (int dim : {2, 3}) {
    for (const auto& ends : mixes(dim)) {
      if (singular(ends) || std::find(ends.begin(), ends.end(), PP) != ends.end()) continue;
      const Grid g = dim == 2 ? grid(2, {7, 9, 1}, {1, 1.3, 1}, ends) : grid(3, {5, 6, 7}, {1, 1.2, 0.9}, ends);
      INFO(dim << "D " << ends_text(ends));
      const auto fast = solve<double>(g, deck("fft-tridiagonal", ends, f_text));
      CHECK(max_diff(fast, solve<double>(g, deck("multifrontal", ends, f_text))) < 1e-12);
    }
  }
  omp_set_num_threads(threads);
}

TEST_CASE("fft-tridiagonal matches a dense solve for every mix with a periodic axis, 2D 7x9 and 3D 5x6x7") {
  const int threads = omp_get_max_threads();  // (one thread, as above)
  omp_set_num_threads(1);
  for (int dim : {2, 3}) {
    for (const auto& ends : mixes(dim)) {
      if (singular(ends) || std::find(ends.begin(), ends.end(), PP) == ends.end()) continue;
      const Grid g = dim == 2 ? grid(2, {7, 9, 1}, {1, 1.3, 1}, ends) : grid(3, {5, 6, 7}, {1, 1.2, 0.9}, ends);
      INFO(dim << "D " << ends_text(ends));
      CHECK(max_diff(solve<double>(g, deck("auto", ends, f_text)), dense_solve(g, ends)) < 1e-12);
    }
  }
  omp_set_num_threads(threads);
}

TEST_CASE("float agrees with double") {
  for (const std::vector<Ends>& ends : {std::vector<Ends>{PP, DN}, std::vector<Ends>{ND, PP, DD}}) {
    const Grid g = ends.size() == 2 ? grid(2, {33, 40, 1}, {1, 1.3, 1}, ends) : grid(3, {12, 13, 11}, {1, 1.2, 0.9}, ends);
    INFO(ends_text(ends));
    CHECK(max_diff(solve<float>(g, deck("fft-tridiagonal", ends, f_text)),
                   solve<double>(g, deck("fft-tridiagonal", ends, f_text))) < 1e-5);
  }
}

namespace {

// A manufactured solution u (source f) for the order tests: the axes before the last periodic or
// Dirichlet (u's values), the last axis's faces Neumann derivatives or Dirichlet values lo, hi.
struct ExactCase {
  std::vector<Ends> ends;
  std::string u, f, lo, hi;
  std::array<index_t, 3> coarse;

  std::string deck() const {
    const int dim = int(ends.size());
    auto axis = [](int a) { return std::string("xyz").substr(std::size_t(a), 1); };
    std::string text = "poisson:\n  source: \"" + f + "\"\n  exact: \"" + u + "\"\n  boundary:\n";
    for (int a = 0; a < dim - 1; ++a) {
      const std::string k = ends[std::size_t(a)] == PP ? "{type: periodic}" : "{type: dirichlet, value: \"" + u + "\"}";
      text += "    " + axis(a) + "-: " + k + "\n    " + axis(a) + "+: " + k + "\n";
    }
    const std::string type = ends.back() == NN ? "neumann" : "dirichlet";
    return text + "    " + axis(dim - 1) + "-: {type: " + type + ", value: \"" + lo + "\"}\n    " + axis(dim - 1) +
           "+: {type: " + type + ", value: \"" + hi + "\"}\n";
  }
  // The nodes per axis of the grid refined `scale` times (a period's nodes on a periodic axis).
  std::array<index_t, 3> shape(index_t scale) const {
    std::array<index_t, 3> n = coarse;
    for (std::size_t a = 0; a < ends.size(); ++a) n[a] = ends[a] == PP ? n[a] * scale : (n[a] - 1) * scale + 1;
    return n;
  }
};

}  // namespace

TEST_CASE("exact solutions with periodic and Neumann faces: order 2, mean 0 when no face is dirichlet") {
  // u has discrete mean 0 over a period: sums of sin / cos(2 pi k x_i) over the nodes of a period vanish.
  const std::vector<ExactCase> cases = {
      {{PP, NN}, "cos(2*pi*x)*cos(pi*y) + sin(2*pi*x)*y^2",
       "5*pi^2*cos(2*pi*x)*cos(pi*y) + 4*pi^2*sin(2*pi*x)*y^2 - 2*sin(2*pi*x)", "0", "2*sin(2*pi*x)", {16, 17, 1}},
      {{PP, DD}, "cos(2*pi*x)*sin(pi*y) + y", "5*pi^2*cos(2*pi*x)*sin(pi*y)", "cos(2*pi*x)*sin(pi*y) + y",
       "cos(2*pi*x)*sin(pi*y) + y", {16, 17, 1}},
      {{PP, PP, NN}, "cos(2*pi*x)*sin(2*pi*y)*cos(pi*z) + sin(2*pi*x)*z^2",
       "9*pi^2*cos(2*pi*x)*sin(2*pi*y)*cos(pi*z) + 4*pi^2*sin(2*pi*x)*z^2 - 2*sin(2*pi*x)", "0", "2*sin(2*pi*x)",
       {12, 10, 9}},
  };
  for (const ExactCase& c : cases) {
    const int dim = int(c.ends.size());
    const std::string text = c.deck();
    std::vector<double> err;
    for (index_t scale : {1, 2}) {
      const Grid g = grid(dim, c.shape(scale), {1, 1, 1}, c.ends);
      PoissonModule<double> m;
      solve<double>(g, text, &m);
      CHECK(m.method() == PoissonModuleMethod::fft_tridiagonal);
      err.push_back(m.error_norms(0.0)->max);
      if (singular(c.ends)) {  // mean 0 (trapezoid weights: 1/2 on the Neumann faces)
        double sum = 0, weights = 0;
        for (index_t o = 0; o < g.size(); ++o) {
          const index_t k = (dim == 2 ? o / g.n[0] : o / (g.n[0] * g.n[1])), nk = g.n[dim - 1];
          const double w = k == 0 || k == nk - 1 ? 0.5 : 1.0;
          sum += w * m.solution()[std::size_t(o)];
          weights += w;
        }
        CHECK(std::abs(sum / weights) < 1e-13);
        CHECK(m.projected_mean() == 0);
      }
    }
    INFO(ends_text(c.ends) << err[0] << " -> " << err[1]);
    CHECK(std::log2(err[0] / err[1]) == doctest::Approx(2.0).epsilon(0.05));
  }
}

TEST_CASE("no face dirichlet: an unbalanced source is refused, or projected when the deck asks") {
  const std::vector<Ends> ends{NN, NN};
  const Grid g = grid(2, {7, 9, 1}, {1, 1.3, 1}, ends);
  // cos(pi x) cos(pi y / 1.3) with zero derivatives: balanced (the trapezoid sums vanish by symmetry).
  const std::string f0 = "cos(pi*x)*cos(pi*y/1.3)";
  auto text = [&](const std::string& f, const std::string& extra) {
    return "poisson:\n  source: \"" + f + "\"\n" + extra + "  boundary:\n    all: {type: neumann, value: 0}\n";
  };
  PoissonModule<double> balanced, projected;
  const auto u0 = solve<double>(g, text(f0, ""), &balanced);
  const auto u1 = solve<double>(g, text(f0 + " + 3", "  compatibility: project\n"), &projected);
  CHECK(max_diff(u1, u0) < 1e-12);
  CHECK(projected.projected_mean() == doctest::Approx(3).epsilon(1e-12));
  // A nonzero flux out through x+ unbalances it too.
  Deck d = Deck::parse("poisson:\n  source: \"" + f0 + "\"\n  boundary:\n    all: {type: neumann, value: 0}\n"
                       "    x+: {type: neumann, value: 1}\n", "bad");
  PoissonModule<double> m;
  SetupContext ctx;
  CHECK_THROWS_WITH_AS(m.setup(g, d.root().child("poisson"), ctx, 0.0),
                       doctest::Contains("poisson.compatibility: no face is dirichlet, so u is fixed only up to a "
                                         "constant"),
                       DeckError);
  Deck d3 = Deck::parse(text(f0 + " + 3", ""), "bad");
  CHECK_THROWS_WITH_AS(m.setup(g, d3.root().child("poisson"), ctx, 0.0),
                       doctest::Contains("or set poisson.compatibility: project"), DeckError);
}

TEST_CASE("face mixes a method cannot take give one clear error") {
  const std::vector<Ends> ends{PP, DD};
  const Grid g = grid(2, {8, 9, 1}, {1, 1, 1}, ends);
  auto fails = [&](const std::string& text, const std::string& part, Backend backend = Backend::cpu) {
    Deck d = Deck::parse(text, "bad");
    PoissonModule<double> m;
    SetupContext ctx;
    ctx.backend = backend;
    INFO(text);
    CHECK_THROWS_WITH_AS(m.setup(g, d.root().child("poisson"), ctx, 0.0), doctest::Contains(part.c_str()), DeckError);
  };
  for (const char* method : {"bcr", "bcr4", "fft"})
    fails(deck(method, ends, "1"), "poisson.method: " + std::string(method) +
                                       " needs type: dirichlet on every face, and face x- is periodic: use method: "
                                       "fft-tridiagonal (or auto)");
  fails(deck("multifrontal", ends, "1"),
        "poisson.boundary.x-: face x-: multifrontal takes dirichlet and neumann faces only: use method: fft-tridiagonal");
  fails(deck("auto", ends, "1", "  conductivity: \"1 + x\"\n"), "which takes a constant conductivity");
  fails(deck("auto", ends, "1"), "poisson.boundary.x-: face x-: periodic faces are solved by fft-tridiagonal, which "
                                 "runs on the cpu backend only", Backend::cuda);
  fails(deck("fft-tridiagonal", {DN, DD}, "1"), "poisson.method: fft-tridiagonal runs on the cpu backend only",
        Backend::cuda);
  fails(deck("auto", {NN, NN}, "0"), "poisson.boundary: no face is dirichlet (a singular problem", Backend::cuda);
  fails(deck("auto", ends, "1", "  refine: on\n"), "poisson.refine: applies to bcr, bcr4 and fft");
  fails(deck("auto", ends, "1", "  compatibility: project\n"), "poisson.compatibility: project applies to fft-tridiagonal "
                                                               "with no dirichlet face");
  fails("poisson:\n  source: 1\n  boundary:\n    all: {type: dirichlet, value: 0}\n    x-: {type: periodic}\n",
        "face x- is periodic, so x+ must be too");
  fails("poisson:\n  source: 1\n  compatibility: sometimes\n  boundary:\n    all: {type: neumann, value: 0}\n",
        "expected require or project");
}

TEST_CASE("a stretched last axis: fft-tridiagonal matches a dense solve, 1D 9, 2D 7x9 and 3D 5x6x7") {
  const int threads = omp_get_max_threads();  // (tiny systems: a team's barriers would dominate)
  omp_set_num_threads(1);
  for (Ends last : {DD, DN, ND}) {
    const std::vector<Ends> ends{last};
    INFO("1D " << kind(last, 0) << " " << kind(last, 1));
    const Grid g = grid(1, {9, 1, 1}, {1.3, 1, 1}, ends, true);
    CHECK(max_diff(solve<double>(g, deck("auto", ends, f_text)), dense_solve(g, ends)) < 1e-12);
  }
  for (Ends first : {DD, DN, NN, PP})
    for (Ends last : {DD, DN, ND, NN}) {
      if ((first == NN || first == PP) && last == NN) continue;  // singular: below
      const std::vector<Ends> ends{first, last};
      INFO("2D " << kind(first, 0) << " " << kind(first, 1) << ", " << kind(last, 0) << " " << kind(last, 1));
      const Grid g = grid(2, {7, 9, 1}, {1, 1.3, 1}, ends, true);
      CHECK(max_diff(solve<double>(g, deck("auto", ends, f_text)), dense_solve(g, ends)) < 1e-12);
    }
  for (const std::vector<Ends>& ends : {std::vector<Ends>{PP, DN, ND}, std::vector<Ends>{NN, PP, DD},
                                        std::vector<Ends>{DD, NN, NN}}) {
    INFO("3D " << kind(ends[0], 0) << " " << kind(ends[1], 0) << " " << kind(ends[2], 0));
    const Grid g = grid(3, {5, 6, 7}, {1, 1.2, 0.9}, ends, true);
    CHECK(max_diff(solve<double>(g, deck("fft-tridiagonal", ends, f_text)), dense_solve(g, ends)) < 1e-12);
  }
  omp_set_num_threads(threads);
}

TEST_CASE("manufactured solutions on tanh-clustered nodes: order 2; a singular channel has mean 0") {
  const std::vector<ExactCase> cases = {
      // a channel: periodic in x, Neumann walls at y = 0, 1 (singular: mean 0 over the x nodes)
      {{PP, NN}, "cos(2*pi*x)*cos(pi*y) + sin(2*pi*x)*y^2",
       "5*pi^2*cos(2*pi*x)*cos(pi*y) + 4*pi^2*sin(2*pi*x)*y^2 - 2*sin(2*pi*x)", "0", "2*sin(2*pi*x)", {16, 17, 1}},
      {{PP, DD, DD}, "cos(2*pi*x)*sin(pi*y)*cos(pi*z) + z^3", "6*pi^2*cos(2*pi*x)*sin(pi*y)*cos(pi*z) - 6*z",
       "cos(2*pi*x)*sin(pi*y)*cos(pi*z) + z^3", "cos(2*pi*x)*sin(pi*y)*cos(pi*z) + z^3", {12, 9, 9}},
  };
  for (const ExactCase& c : cases) {
    const int dim = int(c.ends.size());
    const std::string text = c.deck();
    std::vector<double> err;
    for (index_t scale : {1, 2}) {
      const Grid g = grid(dim, c.shape(scale), {1, 1, 1}, c.ends, true);
      PoissonModule<double> m;
      solve<double>(g, text, &m);
      err.push_back(m.error_norms(0.0)->max);
      if (c.ends.back() == NN) {  // mean 0, the weights the cells' widths (half cells on the walls)
        double sum = 0, weights = 0;
        const auto& z = g.nodes[dim - 1];
        for (index_t o = 0; o < g.size(); ++o) {
          const std::size_t k = std::size_t(o / g.n[0]);
          const double w = 0.5 * ((k > 0 ? z[k] - z[k - 1] : 0.0) + (k + 1 < z.size() ? z[k + 1] - z[k] : 0.0));
          sum += w * m.solution()[std::size_t(o)];
          weights += w;
        }
        CHECK(std::abs(sum / weights) < 1e-13);
      }
    }
    INFO(dim << "D: " << err[0] << " -> " << err[1]);
    CHECK(std::log2(err[0] / err[1]) == doctest::Approx(2.0).epsilon(0.05));
  }
}

TEST_CASE("methods that need a uniform grid refuse a stretched one at their key") {
  const std::vector<Ends> ends{DD, DD};
  const Grid g = grid(2, {9, 9, 1}, {1, 1, 1}, ends, true);
  auto fails = [&](const std::string& text, const std::string& part, Backend backend = Backend::cpu) {
    Deck d = Deck::parse(text, "bad");
    PoissonModule<double> m;
    SetupContext ctx;
    ctx.backend = backend;
    INFO(text);
    CHECK_THROWS_WITH_AS(m.setup(g, d.root().child("poisson"), ctx, 0.0), doctest::Contains(part.c_str()), DeckError);
  };
  for (const char* method : {"bcr", "bcr4", "fft", "multifrontal"})
    fails(deck(method, ends, "1"), "poisson.method: " + std::string(method) +
                                  " needs a uniform grid, and grid.y is stretched: use method: fft-tridiagonal (or auto)");
  fails(deck("auto", ends, "1", "  conductivity: \"1 + x\"\n"), "poisson.conductivity: varies, which only multifrontal solves");
  fails(deck("auto", ends, "1"), "poisson.method: grid.y is stretched, which fft-tridiagonal solves, on the cpu backend only",
        Backend::cuda);
  Grid first = g;  // only the last axis may be stretched
  first.nodes[0] = tanh_nodes(9, 1);
  Deck d = Deck::parse(deck("auto", ends, "1"), "bad");
  PoissonModule<double> m;
  CHECK_THROWS_WITH_AS(m.setup(first, d.root().child("poisson"), SetupContext{}, 0.0),
                       doctest::Contains("axis x is stretched; only the last axis may be"), Error);
  CHECK(m.stretched_axis_refusal(0, 2) != "");
  CHECK(m.stretched_axis_refusal(1, 2) == "");
}
