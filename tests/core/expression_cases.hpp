#pragma once
// Deck expressions shared by the translator tests (tests/core/test_expression_translate.cpp)
// and the GPU comparison (test_gpu_expression.cpp): every operator, function, precedence corner,
// constant, the ternary and nested variadic min/max.
#include <string>
#include <vector>

#include "core/expression.hpp"

namespace tridsim::test {

inline const Constants expression_constants{{"k", 2.5}, {"D", 0.1}, {"amp", -1.75}, {"two", 2}, {"third", 1.0 / 3}};

inline const std::vector<std::string> expression_cases{
    "1e-3",
    "3.5",
    "x",
    "x + y*z - t",
    "x - y - z",
    "x / y / 2",
    "-x^2",
    "-2^2 + x",
    "2^3^x",
    "x^2 + y^3 + z^4",
    "(x + 1)^2.5",
    "x^-2",
    "2^-x*4",
    "k*sin(pi*x)*exp(-D*t)",
    "_pi*_e + pi*e",
    "amp*cos(y) + tan(z/2)",
    "asin(x/2) + acos(y/2) + atan(z)",
    "atan2(y, x)",
    "sinh(x) + cosh(y) + tanh(z)",
    "asinh(x) + acosh(y + 2) + atanh(z/2)",
    "log2(y + 1) + log10(y + 1) + log(y + 1) + ln(y + 2)",
    "exp(x) * sqrt(y)",
    "sqrt(x)",
    "sign(x) + sign(0) + sign(-3)",
    "rint(4*x) + rint(-2.5) + rint(2.5)",
    "abs(x - y)",
    "min(x, y)",
    "max(x, y, z, t)",
    "min(max(x, y), min(z, t, 0.5), max(min(x, z), y))",
    "sum(x, y, z)",
    "avg(x, y, z, t)",
    "x < y",
    "(x > 0) + (y >= 0.5) + (z <= 0) + (x == x) + (y != y)",
    "x > 0 && y > 0.5 || z < -1",
    "x > 0 ? sin(x) : cos(y)",
    "x < -0.3 ? 1 : x < 0.3 ? 2 : 3",
    "x > 0 ? y > 1 ? 1 : 2 : 3",
    "1 + 0 ? x : y",
    "2*-x + +y",
    "two^x + x^two + third",
    "1e3*x*1e-3 + .5 + 5. + 1E1",
    "t*t*exp(-t)",
    "sin(x)^2 + cos(x)^2",
    "(x)^3 + (y)^4",
};

// Refused on the CPU (by muparser, or by Expression: an assignment, several comma-separated
// expressions) and by the translator alike.
inline const std::vector<std::string> invalid_expression_cases{
    "", "foo(x)", "a + x", "sin", "sin(1, 2)", "atan2(1)", "min()", "1e", "(x", "x)", "--x", "1 ? 2", "x y", "2x",
    "1, 2", "x = 1", "x=x+1", "min(x, 1), y", "(x >= 1) = 2",
};

}  // namespace tridsim::test
