// The bvp module (physics/bvp/) through its deck interface:
//  1. the paper's P1 deck (inputs/bvp.yaml's problem) at 2^16 unknowns: relative error (14)
//     against the exact solution below 6e-11 in double for both algorithms (the discretization
//     error, 256 x the paper's 1.9e-13 at 2^20: O(h^2)); float variants ordered as the paper
//     reports (compensated <= mixed < float's A1S);
//  2. second order with Dirichlet/Neumann ends on a shifted interval (max errors on 3 grids);
//  3. bad decks: one clear error each (DeckError), never a crash.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "core/deck.hpp"
#include "core/errors.hpp"
#include "physics/bvp/bvp.hpp"

using namespace tridsim;

namespace {

const char* kP1 =
    "  source: \"pi^2/4*cos(pi*x/2)\"\n  exact: \"cos(pi*x/2)\"\n"
    "  boundary:\n    x-: {type: neumann, value: 0}\n    x+: {type: dirichlet, value: 0}\n";

template <class T>
double run(const std::string& body, index_t n, double lo = 0, double hi = 1, bool max_norm = false) {
  Deck deck = Deck::parse("bvp:\n" + body, "test_bvp");
  Grid g;
  g.dim = 1;
  g.n[0] = n;
  g.lo[0] = lo;
  g.hi[0] = hi;
  BvpModule<T> m;
  SetupContext ctx;
  ctx.precision = precision_of<T>();
  m.setup(g, deck.root().child("bvp"), ctx, 0.0);
  deck.check_unknown_keys();
  m.step(0, 0);
  return max_norm ? m.error_norms(0)->max : *m.relative_error();
}

}  // namespace

TEST_CASE("P1 through the module: errors (14)") {
  const index_t n = (index_t(1) << 16) + 1;
  const double seq = run<double>(std::string("  algorithm: sequential\n") + kP1, n);
  const double dc = run<double>(std::string("  algorithm: divide-and-conquer\n") + kP1, n);
  const double a1s = run<float>(std::string("  algorithm: sequential\n  arithmetic: float\n") + kP1, n);
  const double mixed = run<float>(std::string("  arithmetic: mixed\n  column_length: 4096\n") + kP1, n);
  const double comp = run<float>(std::string("  arithmetic: compensated\n  column_length: 4096\n") + kP1, n);
  MESSAGE("A1D " << seq << " A2D " << dc << " A1S " << a1s << " mixed " << mixed << " compensated " << comp);
  CHECK(seq < 6e-11);
  CHECK(dc < 6e-11);
  CHECK(std::abs(dc - seq) < 1e-13);  // same discretization, rounding far below it
  CHECK(comp <= mixed);
  CHECK(mixed < a1s);
  CHECK(comp < 1e-7);
}

TEST_CASE("second order with Dirichlet and Neumann ends on [0.5, 2]") {
  // u = sin(2x) + x: -u'' = 4 sin(2x); outward derivatives -u'(0.5) and u'(2).
  const std::string src = "  source: \"4*sin(2*x)\"\n  exact: \"sin(2*x) + x\"\n  boundary:\n";
  const std::string dl = "    x-: {type: dirichlet, value: \"sin(2*x) + x\"}\n";
  const std::string nl = "    x-: {type: neumann, value: \"-(2*cos(2*x) + 1)\"}\n";
  const std::string dr = "    x+: {type: dirichlet, value: \"sin(2*x) + x\"}\n";
  const std::string nr = "    x+: {type: neumann, value: \"2*cos(2*x) + 1\"}\n";
  for (const std::string& ends : {dl + dr, nl + dr, dl + nr}) {
    const double e1 = run<double>(src + ends, 201, 0.5, 2, true), e2 = run<double>(src + ends, 401, 0.5, 2, true);
    CHECK(e1 / e2 == doctest::Approx(4).epsilon(0.05));
  }
}

TEST_CASE("bad decks give one clear error") {
  const std::string bc = "  boundary:\n    all: {type: dirichlet, value: 0}\n";
  CHECK_THROWS_AS(run<double>("  source: 1\n  algorithm: fastest\n" + bc, 17), DeckError);
  CHECK_THROWS_AS(run<double>("  source: 1\n  arithmetic: mixed\n" + bc, 17), DeckError);   // needs precision float
  CHECK_THROWS_AS(run<float>("  source: 1\n  arithmetic: double\n" + bc, 17), DeckError);  // needs precision double
  CHECK_THROWS_AS(run<float>("  source: 1\n  algorithm: sequential\n  arithmetic: mixed\n" + bc, 17), DeckError);
  CHECK_THROWS_AS(run<double>("  source: \"x*t\"\n" + bc, 17), DeckError);
  CHECK_THROWS_AS(run<double>("  source: 1\n  boundary:\n    all: {type: neumann, value: 0}\n", 17), DeckError);
  CHECK_THROWS_AS(run<double>("  source: 1\n  column_length: -1\n" + bc, 17), DeckError);
  CHECK_THROWS_AS(run<double>("  source: 1\n  carries: cpu\n" + bc, 17), DeckError);
  CHECK_THROWS_AS(run<double>("  source: 1/0\n" + bc, 17), DeckError);
  CHECK_THROWS_WITH_AS(run<double>("  source: 1\n  exact: \"x > 0.5 ? 1/0 : 0\"\n" + bc, 17),
                       doctest::Contains("bvp.exact: is +inf at node"), DeckError);
}
