// Deck expressions on the CPU (core/expression.hpp): eval_block, which runs muparser's bytecode over
// a block of points, against eval() point by point, bit for bit, on the shared awkward cases and
// on expressions of further variables; fill() against the same points.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/expression.hpp"
#include "expression_cases.hpp"

using namespace tridsim;

namespace {

// Equal bit for bit, or both NaN (a NaN's payload is not the formula's).
bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

// Expressions of the species u and v besides x, y, z, t: muparser's fused tokens (u^2, 2*u + 1),
// conditionals whose branches are plain variables, constants or nested, variadic functions.
const std::vector<std::string> kVariableCases{
    "k*(D - u + u^2*v)",
    "u^2 + u^3 + u^4 + v^-1",
    "2*u + 1 - -v",
    "u > 0 ? u : v",
    "u > v ? 1 : u < -1 ? x : sin(v)",
    "(u > 0 ? u : 0) + (v < 0 ? 2 : t)",
    "min(u, v, x) + sum(u, t, 1) + avg(v, third)",
    "u >= 0 && v <= 0 || u == v",
    "atan2(u, v) * exp(-t) / (1 + u^2)",
    "sqrt(u) + log(v)",
    "u",
    "two",
    "(u + v)^2.5 + two^u",
};

// Points: random coordinates and values in [-2, 2], with 0, 1 and -1 among them (equalities,
// signs, the ends of branches).
std::vector<double> sample(std::mt19937_64& rng, int n) {
  std::uniform_real_distribution<double> d(-2, 2);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = d(rng);
  const double exact[] = {0, 1, -1, 0.5};
  for (std::size_t k = 0; k < 4 && 3 * k < v.size(); ++k) v[3 * k] = exact[k];
  return v;
}

// eval_block at n points against eval() at each: x, u vary per point; y, z, v vary or are
// uniform as `uniform` says; t is uniform.
void check_block(const std::string& text, int n, bool uniform, std::mt19937_64& rng) {
  CAPTURE(text);
  CAPTURE(n);
  CAPTURE(uniform);
  const Expression e(text, test::expression_constants, {"u", "v"});
  const std::vector<double> x = sample(rng, n), y = sample(rng, n), z = sample(rng, n), u = sample(rng, n),
                            v = sample(rng, n);
  const double t = 0.75;
  const Expression::Input in[] = {{x.data(), false}, {y.data(), uniform}, {z.data(), uniform},
                                  {&t, true},        {u.data(), false}, {v.data(), uniform}};
  std::vector<double> out(static_cast<std::size_t>(n));
  e.eval_block(n, in, out.data());
  for (int p = 0; p < n; ++p) {
    const int q = uniform ? 0 : p;
    const double vars[] = {u[std::size_t(p)], v[std::size_t(q)]};
    const double expected = e.eval(x[std::size_t(p)], y[std::size_t(q)], z[std::size_t(q)], t, vars);
    CAPTURE(p);
    CHECK(same(out[std::size_t(p)], expected));
  }
}

}  // namespace

TEST_CASE("eval_block matches eval point by point, bit for bit") {
  std::mt19937_64 rng(33);
  std::vector<std::string> cases = test::expression_cases;
  cases.insert(cases.end(), kVariableCases.begin(), kVariableCases.end());
  for (const std::string& text : cases)
    for (const int n : {1, 7, Expression::kBlock})
      for (const bool uniform : {false, true}) check_block(text, n, uniform, rng);
}

TEST_CASE("fill matches the expression at each node, bit for bit") {
  Grid g;
  g.dim = 3;
  g.n = {2 * Expression::kBlock + 5, 3, 2};  // lines of x: two whole blocks and a partial one
  g.lo = {-1, 0, -0.5};
  g.hi = {1.5, 2, 0.5};
  for (const std::string& text : test::expression_cases) {
    CAPTURE(text);
    const Expression e(text, test::expression_constants);
    std::vector<double> values(std::size_t(g.size()));
    e.fill(g, 0.25, values.data());
    int mismatches = 0;
    for (index_t k = 0; k < g.n[2]; ++k)
      for (index_t j = 0; j < g.n[1]; ++j)
        for (index_t i = 0; i < g.n[0]; ++i)
          mismatches += !same(values[std::size_t(g.index(i, j, k))], e(g.coord(0, i), g.coord(1, j), g.coord(2, k), 0.25));
    CHECK(mismatches == 0);
  }
}
