#pragma once
// The test problems P1 (12) and P2 (13) of the paper (namespace tridsim::bvp): -u'' = f on [0, 1],
// u'(0) = 0, u(1) = 0, with n unknowns x_i = i/n, i = 0..n-1 (grid of n+1 nodes), and the relative
// error (14).
#include <cmath>
#include <numbers>
#include <vector>

#include "physics/bvp/discretization.hpp"

namespace tridsim::bvp {

struct PaperProblem {
  double (*f)(double);
  double (*exact)(double);
};

inline double p1_f(double x) {
  const double p = std::numbers::pi / 2;
  return p * p * std::cos(p * x);
}
inline double p1_u(double x) { return std::cos(std::numbers::pi / 2 * x); }
inline double p2_f(double x) { return 20000 * std::exp(-100 * x * x) * (1 - 200 * x * x); }
inline double p2_u(double x) { return 100 * std::exp(-100 * x * x) - 100 * std::exp(-100.0); }
inline PaperProblem paper_problem(int which) { return which == 1 ? PaperProblem{p1_f, p1_u} : PaperProblem{p2_f, p2_u}; }

// u (n+1 nodes) receives the right-hand side d of (4) at nodes 0..n-1 and u(1) = 0 at node n.
template <class T>
System assemble_paper(const PaperProblem& p, index_t n, T* u) {
  const double h = 1.0 / double(n);
  return assemble<T>(n + 1, 0.0, 1.0, {false, 0.0}, {true, 0.0}, [&](index_t i) { return p.f(double(i) * h); }, u);
}

// (14): ||u - u_computed||_2 / ||u||_2 over the n unknowns, accumulated in long double.
template <class T>
double relative_error(const PaperProblem& p, index_t n, const T* u) {
  long double num = 0, den = 0;
  const double h = 1.0 / double(n);
#pragma omp parallel for reduction(+ : num, den) schedule(static)
  for (index_t i = 0; i < n; ++i) {
    const long double ex = p.exact(double(i) * h), e = ex - (long double)u[i];
    num += e * e;
    den += ex * ex;
  }
  return double(std::sqrt(num / den));
}

}  // namespace tridsim::bvp
