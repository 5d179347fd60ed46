// Tests of the fast Poisson solvers (solvers/cyclic_reduction/): every method (bcr, bcr4, fft)
// in 1D, 2D and 3D, float and double, against independent truths:
//  1. the residual ||f - A u|| / ||f|| (A applied in long double) for random right-hand sides
//     at awkward sizes (1, 2, primes, 2^k - 1, 2^k, 2^k + 1, mixed), with and without a shift;
//     double: <= 1e-12. (A backward-stable solve leaves about eps * ||A|| ||u|| / ||f||, which
//     for a random f grows like n for the transforms (3.4e-13 at 8191^2) and faster for BCR
//     (9e-13 at 4095^2, 1.5e-12 at 3000 x 2501), which therefore refines once from 2048^2 nodes
//     on: 6e-14 at 8191^2, see the slow test.)
//  2. all methods agree with each other (relative max difference <= 1e-12 in double), and BCR
//     gives bitwise the same result when run again;
//  3. second-order convergence of the discrete solution to a smooth exact solution;
//  4. the scalar Toeplitz cyclic reduction against Thomas;
//  5. float: residual <= 2e-4 relative (cond * eps_float with cond ~ (n/pi)^2 for n <= 64);
//  6. one step of iterative refinement (Refine::on; automatic for bcr/bcr4 from 2048^2 nodes);
//  7. the transform-tridiagonal solver (transform_poisson.hpp) for every face mix, 1D-3D: the
//     residual of its stencil (written apart from the transforms) for random right-hand sides,
//     made compatible where no end is Dirichlet, and then a solution of weighted mean 0.
// The sizes 8191^2 and 255^3 (past the refinement threshold) are in poisson_solvers_large (label slow).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/aligned.hpp"
#include "solvers/cyclic_reduction/poisson.hpp"
#include "solvers/cyclic_reduction/toeplitz_cr.hpp"
#include "solvers/cyclic_reduction/transform_poisson.hpp"
#include "tests/common/poisson_residual.hpp"

using namespace tridsim;
using namespace tridsim::cr;
using tridsim::testing::relative_residual;

namespace {

bool g_slow = false;  // --slow: the large sizes only

template <class T>
AlignedVector<T> random_rhs(index_t size, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  AlignedVector<T> f(size);
  for (auto& v : f) v = T(dist(rng));
  return f;
}


PoissonBox box(int dim, std::array<index_t, 3> m, double sigma = 0) {
  PoissonBox b;
  b.dim = dim;
  b.m = m;
  for (int a = 0; a < 3; ++a) b.h[a] = a < dim ? (1.0 + 0.3 * a) / double(m[a] + 1) : 1.0;  // a non-square box
  b.sigma = sigma;
  return b;
}

const PoissonMethod methods[] = {PoissonMethod::bcr, PoissonMethod::bcr4, PoissonMethod::fft};

template <class T>
double check_residual(const PoissonBox& b, PoissonMethod method, unsigned seed) {
  const auto f = random_rhs<T>(b.size(), seed);
  auto u = f;
  PoissonSolver<T>(b, method).solve(u.data());
  return relative_residual(b, u.data(), f.data());
}

std::string name(const PoissonBox& b, PoissonMethod m) {
  std::string s = to_string(m);
  s += " ";
  for (int a = 0; a < b.dim; ++a) s += (a ? "x" : "") + std::to_string(b.m[a]);
  if (b.sigma > 0) s += " sigma=" + std::to_string(b.sigma);
  return s;
}

}  // namespace

TEST_CASE("scalar Toeplitz cyclic reduction agrees with Thomas") {
  if (g_slow) return;
  for (index_t n : {1, 2, 3, 4, 5, 7, 8, 15, 31, 33, 63, 100, 127, 255, 1023}) {
    const double t = 1.0, d = 2.0 + 0.01;
    auto g = random_rhs<double>(n, unsigned(n));
    auto x = g;
    AlignedVector<double> work(4 * n + 4);
    toeplitz_cr_solve<double>(n, t, d, x.data(), work.data());
    // Thomas in long double
    std::vector<long double> cp(n), dp(n), y(n);
    for (index_t i = 0; i < n; ++i) {  // Thomas for a = c = -t: den = d - a c'_{i-1}
      const long double den = i ? d + t * cp[i - 1] : (long double)d;
      cp[i] = -t / den;
      dp[i] = (g[i] + (i ? t * dp[i - 1] : 0.0L)) / den;
    }
    for (index_t i = n - 1; i >= 0; --i) y[i] = dp[i] - (i + 1 < n ? cp[i] * y[i + 1] : 0.0L);
    double err = 0, scale = 0;
    for (index_t i = 0; i < n; ++i) {
      err = std::max(err, double(std::abs(x[i] - y[i])));
      scale = std::max(scale, double(std::abs(y[i])));
    }
    INFO("n = " << n);
    CHECK(err / scale < 1e-11);
  }
}

TEST_CASE("residual of random right-hand sides, double, 1D and 2D") {
  if (g_slow) return;
  const std::vector<std::array<index_t, 3>> sizes2 = {
      {1, 1, 1},  {1, 5, 1},   {5, 1, 1},   {2, 3, 1},   {3, 3, 1},   {7, 7, 1},     {4, 4, 1},    {8, 16, 1},
      {5, 13, 1}, {17, 9, 1},  {31, 31, 1}, {33, 47, 1}, {64, 65, 1}, {100, 37, 1},  {127, 127, 1}, {61, 255, 1},
      {129, 131, 1}, {256, 200, 1}};
  for (double sigma : {0.0, 3.5}) {
    for (PoissonMethod m : methods) {
      for (index_t n : {1, 2, 3, 7, 10, 64, 127, 200}) {
        const PoissonBox b = box(1, {n, 1, 1}, sigma);
        INFO(name(b, m));
        CHECK(check_residual<double>(b, m, 7) <= 1e-12);
      }
      for (const auto& s : sizes2) {
        const PoissonBox b = box(2, s, sigma);
        INFO(name(b, m));
        CHECK(check_residual<double>(b, m, unsigned(s[0] * 131 + s[1])) <= 1e-12);
      }
    }
  }
}

TEST_CASE("residual of random right-hand sides, double, 3D") {
  if (g_slow) return;
  const std::vector<std::array<index_t, 3>> sizes3 = {{1, 1, 1},   {2, 3, 4},    {7, 5, 3},   {1, 9, 4},
                                                      {15, 15, 15}, {13, 17, 11}, {31, 20, 33}, {16, 16, 17}};
  for (double sigma : {0.0, 2.0})
    for (PoissonMethod m : methods)
      for (const auto& s : sizes3) {
        const PoissonBox b = box(3, s, sigma);
        INFO(name(b, m));
        CHECK(check_residual<double>(b, m, unsigned(s[0] + 7 * s[1] + 49 * s[2])) <= 1e-12);
      }
}

TEST_CASE("all methods agree") {
  if (g_slow) return;
  for (const auto& [dim, m] : std::vector<std::pair<int, std::array<index_t, 3>>>{
           {2, {63, 63, 1}}, {2, {50, 77, 1}}, {3, {15, 9, 23}}, {3, {16, 15, 7}}}) {
    const PoissonBox b = box(dim, m, 0.0);
    const auto f = random_rhs<double>(b.size(), 3);
    auto ref = f;
    PoissonSolver<double>(b, PoissonMethod::fft).solve(ref.data());
    double scale = 0;
    for (double v : ref) scale = std::max(scale, std::abs(v));
    for (PoissonMethod method : {PoissonMethod::bcr, PoissonMethod::bcr4}) {
      auto u = f;
      PoissonSolver<double>(b, method).solve(u.data());
      double diff = 0;
      for (index_t i = 0; i < b.size(); ++i) diff = std::max(diff, std::abs(u[i] - ref[i]));
      INFO(name(b, method));
      CHECK(diff / scale <= 1e-12);
      auto again = f;  // the same numbers from run to run (sums are added in a fixed order)
      PoissonSolver<double>(b, method).solve(again.data());
      CHECK(again == u);
    }
  }
}

TEST_CASE("second-order convergence to a smooth solution") {
  if (g_slow) return;
  // u = sin(pi x) sin(2 pi y) (sin(pi z)) on the unit square / cube, f = -Lap u.
  for (int dim : {2, 3})
    for (PoissonMethod method : methods) {
      std::vector<double> err;
      for (index_t n : dim == 2 ? std::vector<index_t>{31, 63, 127} : std::vector<index_t>{15, 31}) {
        PoissonBox b;
        b.dim = dim;
        for (int a = 0; a < dim; ++a) {
          b.m[a] = n;
          b.h[a] = 1.0 / double(n + 1);
        }
        const double k2 = M_PI * M_PI * (dim == 2 ? 5 : 6);
        AlignedVector<double> u(b.size()), exact(b.size());
        for (index_t k = 0; k < b.m[2]; ++k)
          for (index_t j = 0; j < b.m[1]; ++j)
            for (index_t i = 0; i < b.m[0]; ++i) {
              const double x = (i + 1) * b.h[0], y = (j + 1) * b.h[1], z = (k + 1) * b.h[2];
              const double v = std::sin(M_PI * x) * std::sin(2 * M_PI * y) * (dim == 3 ? std::sin(M_PI * z) : 1.0);
              exact[i + b.m[0] * (j + b.m[1] * k)] = v;
              u[i + b.m[0] * (j + b.m[1] * k)] = k2 * v;
            }
        PoissonSolver<double>(b, method).solve(u.data());
        double e = 0;
        for (index_t i = 0; i < b.size(); ++i) e = std::max(e, std::abs(u[i] - exact[i]));
        err.push_back(e);
      }
      for (std::size_t i = 1; i < err.size(); ++i) {
        const double order = std::log2(err[i - 1] / err[i]);  // h halves (n+1 doubles)
        INFO(dim << "D " << std::string(to_string(method)) << ": max errors " << err[i - 1] << " -> " << err[i]);
        CHECK(order == doctest::Approx(2.0).epsilon(0.03));
      }
    }
}

TEST_CASE("one step of refinement brings the residual to the rounding floor") {
  if (g_slow) return;
  const PoissonBox b = box(2, {300, 200, 1});
  const auto f = random_rhs<double>(b.size(), 21);
  for (PoissonMethod m : methods) {
    auto u = f;
    const PoissonSolver<double> s(b, m, false, Refine::on);
    CHECK(s.refines());
    s.solve(u.data());
    INFO(to_string(m));
    CHECK(relative_residual(b, u.data(), f.data()) <= 2e-14);  // unrefined: 1e-14 (fft) to 4e-14 (bcr)
  }
  CHECK_FALSE(PoissonSolver<double>(b, PoissonMethod::bcr).refines());                 // automatic: from 2048^2 on
  CHECK(PoissonSolver<double>(box(2, {2048, 2048, 1}), PoissonMethod::bcr4).refines());
  CHECK_FALSE(PoissonSolver<double>(box(2, {2048, 2048, 1}), PoissonMethod::fft).refines());
}

TEST_CASE("float") {
  if (g_slow) return;
  for (PoissonMethod m : methods) {
    for (const auto& [dim, s] : std::vector<std::pair<int, std::array<index_t, 3>>>{
             {2, {1, 1, 1}}, {2, {37, 64, 1}}, {2, {63, 63, 1}}, {3, {9, 17, 13}}, {3, {15, 15, 15}}}) {
      const PoissonBox b = box(dim, s, 0.0);
      INFO(name(b, m));
      CHECK(check_residual<float>(b, m, 11) <= 2e-4);
    }
  }
}

// ||b - A u|| / ||b|| of the transform solver for random b over `nodes` with each axis's ends
// (0: Dirichlet-Dirichlet, 1: Dirichlet-Neumann, 2: Neumann-Dirichlet, 3: Neumann-Neumann,
// 4: periodic) taken from the digits of `mix` in base 5.
template <class T>
double transform_residual(int dim, std::array<index_t, 3> nodes, int mix, unsigned seed) {
  using K = BoundaryKind;
  const K kinds[5][2] = {{K::dirichlet, K::dirichlet}, {K::dirichlet, K::neumann}, {K::neumann, K::dirichlet},
                         {K::neumann, K::neumann}, {K::periodic, K::periodic}};
  TransformPoissonBox b;
  b.dim = dim;
  for (int a = 0; a < dim; ++a, mix /= 5) {
    b.n[a] = nodes[a];
    b.ends[a] = {kinds[mix % 5][0], kinds[mix % 5][1]};
    b.h[a] = (1.0 + 0.3 * a) / double(b.periodic(a) ? nodes[a] : nodes[a] - 1);
  }
  const TransformPoisson<T> solver(b);
  auto f = random_rhs<T>(b.size(), seed);
  if (b.singular()) solver.remove_mean(f.data());
  auto u = f;
  solver.solve(u.data());
  if (b.singular()) CHECK(std::abs(solver.weighted_mean(u.data())) <= 1e3 * std::numeric_limits<T>::epsilon() *
                                                                        solver.weighted_mean(u.data(), true));
  AlignedVector<T> r(b.size());
  solver.residual(u.data(), f.data(), r.data());
  double rr = 0, ff = 0;
  for (index_t i = 0; i < b.size(); ++i) {
    rr += double(r[i]) * double(r[i]);
    ff += double(f[i]) * double(f[i]);
  }
  return std::sqrt(rr / ff);
}

TEST_CASE("transform-tridiagonal solver: residual for every face mix, 1D to 3D, double and float") {
  const std::vector<std::pair<int, std::array<index_t, 3>>> shapes = {
      {1, {3, 1, 1}}, {1, {4, 1, 1}}, {1, {31, 1, 1}}, {2, {3, 4, 1}}, {2, {7, 9, 1}},
      {2, {33, 20, 1}}, {3, {3, 4, 5}}, {3, {9, 6, 7}}};
  for (const auto& [dim, nodes] : shapes) {
    const int mixes = dim == 1 ? 5 : dim == 2 ? 25 : 125;
    for (int mix = 0; mix < mixes; ++mix) {
      INFO(dim << "D " << nodes[0] << "x" << nodes[1] << "x" << nodes[2] << " mix " << mix);
      CHECK(transform_residual<double>(dim, nodes, mix, unsigned(mix + 1)) <= 1e-12);
      if (dim == 2) CHECK(transform_residual<float>(dim, nodes, mix, unsigned(mix + 1)) <= 2e-4);
    }
  }
}

TEST_CASE("large sizes (--slow)") {
  if (!g_slow) return;
  for (PoissonMethod m : methods) {
    for (const auto& s : std::vector<std::array<index_t, 3>>{{8191, 8191, 1}, {4095, 4097, 1}}) {
      const PoissonBox b = box(2, s);
      const double r = check_residual<double>(b, m, 5);
      INFO(name(b, m) << ": residual " << r);
      CHECK(r <= 1e-12);
    }
    for (const auto& s : std::vector<std::array<index_t, 3>>{{255, 255, 255}, {300, 257, 129}}) {
      const PoissonBox b = box(3, s);
      const double r = check_residual<double>(b, m, 9);
      INFO(name(b, m) << ": residual " << r);
      CHECK(r <= 1e-12);
    }
  }
}

int main(int argc, char** argv) {
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--slow") g_slow = true;
    else args.push_back(argv[i]);
  }
  doctest::Context ctx(int(args.size()), args.data());
  return ctx.run();
}
