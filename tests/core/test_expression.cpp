// Deck expressions on the CPU (core/expression.hpp): eval_block, which runs muparser's bytecode over
// a block of points, against eval() point by point, bit for bit, on the shared awkward cases and
// on expressions of further variables; fill() against the same points; the C++ code compiled at run
// time (native_code(), core/native_code.hpp) against eval() bit for bit, and its fallbacks; a
// NativeBatch's line kernels (fill, boundary faces) against the interpreted fill.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>

#include <unistd.h>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/expression.hpp"
#include "core/native_code.hpp"
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

// Patterns that muparser's optimizer folds into one token (v * a + b, constants multiplied or added
// together), which compiled code must compute as the folded token does, not as written.
const std::vector<std::string> kOptimizerCases{
    "x*2*3", "(x + 1) + 2", "2*x + 3*x", "x + x", "x - x*3", "0.1*x*0.3 - 0.7", "3 - (x - 0.1)", "-(x)",
    "-(-x)", "+x", "x*third*third", "u*0.1 + u*0.2 + 0.3", "-u^2", "(u + 0.1)*(v - 0.2)", "sin(1)*x"};

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

// Every case (shared, of the species, of the optimizer) compiled into one shared object, a function
// per case over n points, against eval() at each, including 0, -0, +-1, infinities and NaN.
TEST_CASE("compiled code matches eval point by point, bit for bit") {
  std::vector<std::string> cases = test::expression_cases;
  cases.insert(cases.end(), kVariableCases.begin(), kVariableCases.end());
  cases.insert(cases.end(), kOptimizerCases.begin(), kOptimizerCases.end());
  const std::vector<std::string> inputs = {"x[p]", "y[p]", "z[p]", "t[p]", "u[p]", "v[p]"};
  std::string source = Expression::native_prelude();
  std::vector<Expression> exprs;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    exprs.emplace_back(cases[c], test::expression_constants, std::vector<std::string>{"u", "v"});
    const auto code = exprs.back().native_code(inputs, "out[p]");
    CAPTURE(cases[c]);
    REQUIRE(code);
    source += "extern \"C\" void case" + std::to_string(c) +
              "(int n, const double* x, const double* y, const double* z, const double* t, const double* u, "
              "const double* v, double* out) {\n  for (int p = 0; p < n; ++p)\n" + *code + "}\n";
  }
  std::string why;
  const auto lib = NativeCode::compile(source, &why);
  INFO(why);
  REQUIRE(lib);
  using Case = void (*)(int, const double*, const double*, const double*, const double*, const double*, const double*,
                        double*);
  std::mt19937_64 rng(6);
  const int n = 4096;
  std::vector<double> in[6];
  for (auto& v : in) v = sample(rng, n);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double special[] = {0.0, -0.0, 1.0, -1.0, inf, -inf, nan, 1e300, -1e-300, 0.5, 2.0, 1e-20};
  for (std::size_t k = 0; k < std::size(special); ++k)  // each special value at x, then at u
    in[0][k + 20] = in[4][k + 40] = in[5][k + 60] = special[k];
  std::vector<double> out(std::size_t(n), 0.0);
  for (std::size_t c = 0; c < cases.size(); ++c) {
    CAPTURE(cases[c]);
    const auto f = reinterpret_cast<Case>(lib->symbol(("case" + std::to_string(c)).c_str()));
    f(n, in[0].data(), in[1].data(), in[2].data(), in[3].data(), in[4].data(), in[5].data(), out.data());
    int mismatches = 0;
    for (std::size_t p = 0; p < std::size_t(n); ++p) {
      const double vars[] = {in[4][p], in[5][p]};
      mismatches += !same(out[p], exprs[c].eval(in[0][p], in[1][p], in[2][p], in[3][p], vars));
    }
    CHECK(mismatches == 0);
  }
}

// Every shared case compiled by one NativeBatch (the same text twice shares a kernel): fill() and
// fill_lines() along y and z (as boundary faces run it) give the interpreted values bit for bit, in
// double and float; copies keep the compiled code; without a compiler nothing is attached.
TEST_CASE("a batch's line kernels give the interpreted fill, bit for bit") {
  Grid g;
  g.dim = 3;
  g.n = {Expression::kBlock + 7, 5, 3};  // lines of x: a whole block and a partial one
  g.lo = {-1, 0, -0.5};
  g.hi = {1.5, 2, 0.5};
  std::vector<std::string> cases = test::expression_cases;
  cases.push_back(cases.back());
  std::vector<Expression> compiled, interpreted;
  for (const std::string& text : cases) {
    compiled.emplace_back(text, test::expression_constants);
    interpreted.emplace_back(text, test::expression_constants);
  }
  NativeBatch batch;
  for (Expression& e : compiled) batch.add(e);
  REQUIRE(batch.compile("test", "cases"));
  const std::size_t N = std::size_t(g.size());
  for (std::size_t c = 0; c < cases.size(); ++c) {
    CAPTURE(cases[c]);
    const Expression& e = compiled[c];
    CHECK(e.compiled() != e.is_constant());  // (a constant's fill evaluates it once)
    CHECK(Expression(e).compiled() == e.compiled());
    std::vector<double> a(N), b(N);
    std::vector<float> af(N), bf(N);
    e.fill(g, 0.25, a.data());
    interpreted[c].fill(g, 0.25, b.data());
    e.fill(g, -1.5, af.data());
    interpreted[c].fill(g, -1.5, bf.data());
    int mismatches = 0;
    for (std::size_t o = 0; o < N; ++o) mismatches += !same(a[o], b[o]) || !same(af[o], bf[o]);
    for (int axis : {1, 2}) {  // lines of y (or z), one per node of the other two axes
      std::vector<double> along(std::size_t(g.n[axis]));
      for (index_t i = 0; i < g.n[axis]; ++i) along[std::size_t(i)] = g.coord(axis, i);
      const int p = axis == 1 ? 0 : 1, q = axis == 1 ? 2 : 0;
      const auto place = [&](index_t l, double* xyz) {
        xyz[p] = g.coord(p, l % g.n[p]);
        xyz[q] = g.coord(q, l / g.n[p]);
        return l * g.n[axis];
      };
      e.fill_lines(g.n[p] * g.n[q], axis, g.n[axis], along.data(), place, 0.75, a.data());
      interpreted[c].fill_lines(g.n[p] * g.n[q], axis, g.n[axis], along.data(), place, 0.75, b.data());
      for (std::size_t o = 0; o < N; ++o) mismatches += !same(a[o], b[o]);
    }
    CHECK(mismatches == 0);
  }
  ::setenv("TRIDSIM_CXX", "none", 1);
  Expression off("sin(x)*t", {});
  NativeBatch none;
  none.add(off);
  CHECK_FALSE(none.compile("test", "cases"));
  CHECK_FALSE(off.compiled());
  ::unsetenv("TRIDSIM_CXX");
  CHECK_FALSE(NativeBatch().compile("test", "nothing"));
}

// The fallbacks say why: compiling turned off, a compiler that does not exist, source that does not
// compile (its messages kept in the cache); a source compiled once is found in the cache.
TEST_CASE("compiling falls back with a reason, and caches what it compiled") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("tridsim-native-test-" + std::to_string(::getpid()));
  ::setenv("TRIDSIM_CACHE_DIR", dir.c_str(), 1);
  std::string why;
  ::setenv("TRIDSIM_CXX", "none", 1);
  CHECK_FALSE(NativeCode::compile("extern \"C\" int f() { return 1; }", &why));
  CHECK(why == "TRIDSIM_CXX=none");
  ::setenv("TRIDSIM_CXX", "/nonexistent/c++", 1);
  CHECK_FALSE(NativeCode::compile("extern \"C\" int f() { return 1; }", &why));
  CHECK(why.find("cannot run the C++ compiler '/nonexistent/c++'") != std::string::npos);
  ::unsetenv("TRIDSIM_CXX");
  CHECK_FALSE(NativeCode::compile("extern \"C\" int f() { return undeclared; }", &why));
  CHECK(why.find("failed (exit status") != std::string::npos);
  CHECK(why.find(dir.string()) != std::string::npos);  // the log's path
  const std::string source = "extern \"C\" int f() { return 42; }";
  const auto a = NativeCode::compile(source, &why);
  REQUIRE(a);
  CHECK(reinterpret_cast<int (*)()>(a->symbol("f"))() == 42);
  CHECK(NativeCode::compile(source) == a);  // (once per process)
  CHECK(std::filesystem::exists(a->path()));
  CHECK(std::filesystem::path(a->path()).parent_path() == dir);
  CHECK_THROWS_AS(a->symbol("g"), Error);
  std::filesystem::remove_all(dir);
  ::unsetenv("TRIDSIM_CACHE_DIR");
}
