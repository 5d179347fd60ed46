// Translator of deck expressions to CUDA C++ (core/expression_translate.hpp), on the CPU:
//  1. token-level expectations: precedence and associativity as muparser's, constants inlined
//     exactly, muparser's products for var^2..4, helpers for variadic functions;
//  2. errors: the offending token, its position and what is valid, and DeckErrors at the deck line;
//  3. every shared case translates, every case muparser rejects is rejected, and (CUDA builds)
//     NVRTC compiles every translation for sm_90 (no GPU needed). Numeric agreement with muparser
//     is checked on the device by test_gpu_expression.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdlib>
#include <numbers>
#include <string>

#include "core/deck.hpp"
#include "core/expression_translate.hpp"
#include "expression_cases.hpp"
#include "tridsim_build_info.hpp"
#if TRIDSIM_HAVE_CUDA
#include "core/device_expression.hpp"
#endif

using namespace tridsim;

namespace {

std::string tr(const std::string& text, const Constants& c = {}) { return translate_expression(text, c); }

// The message of the Error that translating `text` raises ("" if none).
std::string error_of(const std::string& text, const Constants& c = {}) {
  try {
    tr(text, c);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("translator: precedence and associativity as muparser") {
  CHECK(tr("x - y - z") == "((x - y) - z)");
  CHECK(tr("x / y / 2") == "((x / y) / 2.0)");
  CHECK(tr("2^3^x") == "pow(2.0, pow(3.0, x))");           // ^ right-associative
  CHECK(tr("-2^2") == "(-pow(2.0, 2.0))");                   // -2^2 = -(2^2) = -4
  CHECK(tr("-x^2") == "(-(x * x))");
  CHECK(tr("2^-3*4") == "(pow(2.0, (-3.0)) * 4.0)");        // (2^-3)*4 = 0.5
  CHECK(tr("2^-x^2") == "pow(2.0, (-(x * x)))");
  CHECK(tr("1 + 2*x") == "(1.0 + (2.0 * x))");
  CHECK(tr("2*-x + +y") == "((2.0 * (-x)) + y)");
  CHECK(tr("x < y == 1") == "((double)(((double)(x < y)) == 1.0))");
  CHECK(tr("x || y && z") == "((double)(x || ((double)(y && z))))");
  CHECK(tr("1 + 0 ? x : y") == "(((1.0 + 0.0)) ? x : y)");  // ternary lowest
  CHECK(tr("x ? 1 : y ? 2 : 3") == "((x) ? 1.0 : ((y) ? 2.0 : 3.0))");
  CHECK(tr("x ? y ? 1 : 2 : 3") == "((x) ? ((y) ? 1.0 : 2.0) : 3.0)");
}

TEST_CASE("translator: powers, numbers and constants") {
  // muparser evaluates var^2, var^3, var^4 as products; other powers with pow.
  CHECK(tr("x^2") == "(x * x)");
  CHECK(tr("y^3") == "((y * y) * y)");
  CHECK(tr("(t)^4") == "(((t * t) * t) * t)");
  CHECK(tr("x^n", {{"n", 2}}) == "(x * x)");
  CHECK(tr("x^5") == "pow(x, 5.0)");
  CHECK(tr("(x+1)^2") == "pow((x + 1.0), 2.0)");
  CHECK(tr("1e-3") == "0.001");
  CHECK(tr(".5 + 5. + 1E2") == "((0.5 + 5.0) + 100.0)");
  // Constants inlined with every digit; user constants shadow pi, e and even x, as in muparser.
  const std::string third = tr("c", {{"c", 1.0 / 3}});
  CHECK(std::strtod(third.c_str(), nullptr) == 1.0 / 3);
  CHECK(std::strtod(tr("pi").c_str(), nullptr) == std::numbers::pi);
  CHECK(std::strtod(tr("e").c_str(), nullptr) == std::numbers::e);
  CHECK(tr("pi", {{"pi", 3}}) == "3.0");
  CHECK(tr("x", {{"x", 3}}) == "3.0");
  CHECK(tr("c", {{"c", -2}}) == "(-2.0)");
  // _pi and _e are muparser's own values (3.141592653589 in muparser 2.3).
  for (const char* name : {"_pi", "_e"})
    CHECK(std::strtod(tr(name).c_str(), nullptr) == Expression(name, {})(0, 0, 0, 0));
}

TEST_CASE("translator: functions") {
  CHECK(tr("sin(x)") == "sin(x)");
  CHECK(tr("ln(x) + log(x)") == "(log(x) + log(x))");  // log is the natural logarithm
  CHECK(tr("atan2(y, x)") == "atan2(y, x)");
  CHECK(tr("abs(x)") == "tr_abs(x)");
  CHECK(tr("rint(x)") == "tr_rint(x)");
  CHECK(tr("sign(x)") == "tr_sign(x)");
  CHECK(tr("min(x, y, z)") == "tr_min(tr_min(x, y), z)");
  CHECK(tr("max(x)") == "x");
  CHECK(tr("min(max(x, y), z)") == "tr_min(tr_max(x, y), z)");
  CHECK(tr("sum(x, y)") == "((0.0 + x) + y)");
  CHECK(tr("avg(x, y, z)") == "((((0.0 + x) + y) + z) / 3.0)");
  for (const char* helper : {"tr_abs", "tr_sign", "tr_rint", "tr_log2", "tr_asinh", "tr_acosh", "tr_atanh", "tr_min",
                             "tr_max"})
    CHECK(contains(device_expression_prelude(), helper));
}

TEST_CASE("translator: errors name the token, its position and what is valid") {
  std::string m = error_of("2*foo(x)");
  CHECK(contains(m, "'2*foo(x)'"));
  CHECK(contains(m, "unknown function 'foo'"));
  CHECK(contains(m, "position 2"));
  CHECK(contains(m, "sin, cos"));
  m = error_of("x + a", {{"k", 1}});
  CHECK(contains(m, "unknown name 'a'"));
  CHECK(contains(m, "x, y, z, t"));
  CHECK(contains(m, "pi, e, _pi, _e, k"));
  CHECK(contains(error_of("sin + 1"), "function 'sin' needs its arguments in parentheses"));
  CHECK(contains(error_of("sin(1, 2)"), "takes 1 argument, got 2"));
  CHECK(contains(error_of("atan2(1)"), "takes 2 arguments, got 1"));
  CHECK(contains(error_of("min()"), "at least one argument"));
  CHECK(contains(error_of("1, 2"), "comma-separated"));
  CHECK(contains(error_of("x = 1"), "assignment"));
  CHECK(contains(error_of("1e+"), "malformed number '1e+'"));
  CHECK(contains(error_of("(x"), "unexpected end of expression, expected ')'"));
  CHECK(contains(error_of("x)"), "unexpected ')'"));
  CHECK(contains(error_of("--x"), "unexpected '-'"));
  CHECK(contains(error_of("1 ? 2"), "':' of the ternary"));
  CHECK(contains(error_of("x # y"), "unexpected character '#'"));
  CHECK(contains(error_of(""), "empty"));
}

TEST_CASE("translator: errors from a deck are DeckErrors at the line") {
  const Deck deck = Deck::parse("heat:\n  source: 1\n  value: 2*bar(x)\n", "test.yaml");
  const DeckNode heat = deck.root().child("heat");
  CHECK(translate_expression_from_deck(heat, "source", {}) == "1.0");
  try {
    translate_expression_from_deck(heat, "value", {});
    FAIL("no error");
  } catch (const DeckError& e) {
    CHECK(contains(e.what(), "test.yaml:3"));
    CHECK(contains(e.what(), "heat.value"));
    CHECK(contains(e.what(), "unknown function 'bar'"));
  }
}

TEST_CASE("translator: accepts what muparser accepts, rejects what it rejects") {
  for (const auto& text : test::expression_cases) {
    CAPTURE(text);
    CHECK_NOTHROW(Expression(text, test::expression_constants));
    CHECK_NOTHROW(tr(text, test::expression_constants));
  }
  for (const auto& text : test::invalid_expression_cases) {
    CAPTURE(text);
    CHECK_THROWS_AS(Expression(text, test::expression_constants), Error);
    CHECK_THROWS_AS(tr(text, test::expression_constants), Error);
  }
}

#if TRIDSIM_HAVE_CUDA
TEST_CASE("translator: NVRTC compiles every translation (no GPU needed)") {
  for (const auto& text : test::expression_cases) {
    CAPTURE(text);
    const std::string code = tr(text, test::expression_constants);
    for (const auto p : {Precision::float64, Precision::float32})
      CHECK(contains(device_expression_ptx(code, p, 90), ".entry tridsim_expression"));
  }
  // A compile error carries the NVRTC log.
  try {
    device_expression_ptx("undefined_function(x)", Precision::float64, 90);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(contains(e.what(), "NVRTC could not compile"));
    CHECK(contains(e.what(), "undefined_function"));
  }
}
#endif
