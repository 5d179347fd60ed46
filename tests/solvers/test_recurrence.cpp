// Tests of the linear-recurrence BVP solvers (solvers/recurrence/):
//  1. sequential (A1) and divide-and-conquer (A2) in double against the Thomas algorithm in long
//     double on the explicit matrix, for every end combination, awkward m (1, 2, 3, primes, m not
//     a multiple of the column length s, fewer unknowns than one group of columns) and several s;
//  2. the float variants (float, mixed, compensated) against the same reference;
//  3. the paper's problems P1, P2: double errors (14) at n = 2^20, 2^22 below 1e-11 (against the
//     exact solution: discretization error is O(h^2) ~ 1e-13, rounding O(n eps) at most), and
//     compensated float at least 10x more accurate than mixed;
//  4. the discretization (physics/bvp) with Dirichlet/Neumann ends: second order against exact
//     solutions, and the singular Neumann-Neumann case rejected;
//  5. a system split into parts (threads standing in for ranks, including empty parts) against
//     the same reference, in double and in compensated float.
// Tolerances for 1 and 2: the solvers only add (prefix and suffix sums), so the error relative
// to max|u| is at most ~ 2 m eps (each u_i is a sum of at most 2m rounded terms of size <= max|u|)
// plus the Sherman-Morrison term; we allow 4 m eps (double: eps = 1.1e-16; float 6e-8).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <barrier>
#include <cmath>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "physics/bvp/discretization.hpp"
#include "physics/bvp/paper_problems.hpp"
#include "solvers/recurrence/divide_conquer.hpp"
#include "solvers/recurrence/sequential.hpp"
#include "solvers/tridiagonal/thomas_reference.hpp"

using namespace tridsim;
using rec::EndRow;

namespace {

std::vector<long double> reference(const std::vector<double>& d, rec::Ends e) {
  const index_t m = index_t(d.size());
  std::vector<long double> a(m, -1), b(m, 2), c(m, -1), dd(d.begin(), d.end()), x(m);
  if (e.first == EndRow::free) b[0] = 1;
  if (e.last == EndRow::free) b[m - 1] = 1;
  if (m == 1 && e.first != e.last) b[0] = 1;  // one unknown, one free end: the row is (1)
  tridiag::thomas_reference<long double>(m, a.data(), b.data(), c.data(), dd.data(), x.data());
  return x;
}

template <class T>
double max_rel_error(const std::vector<long double>& ref, const std::vector<T>& u) {
  long double scale = 0, err = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    scale = std::max(scale, std::abs(ref[i]));
    err = std::max(err, std::abs(ref[i] - (long double)u[i]));
  }
  return double(err / scale);
}

const rec::Ends kEnds[] = {{EndRow::free, EndRow::fixed}, {EndRow::fixed, EndRow::free}, {EndRow::fixed, EndRow::fixed}};
const index_t kSizes[] = {1, 2, 3, 5, 7, 8, 31, 97, 512, 4099, 8 * 64 * 3 + 17, 20011};
const index_t kColumns[] = {1, 2, 3, 7, 64, 512};

std::vector<double> random_rhs(index_t m, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> d(m);
  for (auto& v : d) v = dist(gen);
  return d;
}

}  // namespace

TEST_CASE("sequential and divide-and-conquer (double) agree with Thomas in long double") {
  for (const auto e : kEnds)
    for (const index_t m : kSizes) {
      if (m == 1 && e.first != e.last) continue;  // one unknown cannot be free at one end only
      const auto d = random_rhs(m, unsigned(m));
      const auto ref = reference(d, e);
      const double tol = 4.0 * double(m + 2) * 1.1e-16;
      auto u = d;
      rec::solve_sequential(u.data(), m, e);
      CHECK_MESSAGE(max_rel_error(ref, u) < tol, "sequential m=" << m);
      for (const index_t s : kColumns) {
        u = d;
        rec::solve_divide_conquer(u.data(), m, e, rec::Arithmetic::float64, s);
        CHECK_MESSAGE(max_rel_error(ref, u) < tol, "divide-and-conquer m=" << m << " s=" << s << " ends " << int(e.first)
                                                                            << int(e.last));
      }
    }
}

// The system split at `cuts` (part q: elements cuts[q] .. cuts[q+1]-1), each part solved by its own
// thread, the exchange an all-gather through shared memory.
template <class T>
std::vector<T> solve_in_parts(const std::vector<double>& d, rec::Ends e, rec::Arithmetic a, index_t s,
                              const std::vector<index_t>& cuts) {
  const std::size_t P = cuts.size() - 1;
  std::vector<T> u(d.begin(), d.end());
  std::vector<rec::PartSums> all(P);
  std::barrier sync(std::ptrdiff_t(P), []() noexcept {});
  std::vector<std::thread> parts;
  for (std::size_t q = 0; q < P; ++q)
    parts.emplace_back([&, q] {
      rec::Part part{cuts[q], [&](const rec::PartSums& mine) {
                       all[q] = mine;
                       sync.arrive_and_wait();
                       auto every = all;
                       sync.arrive_and_wait();
                       return every;
                     }};
      rec::solve_divide_conquer_part(u.data() + cuts[q], cuts[q + 1] - cuts[q], e, a, part, s);
    });
  for (auto& t : parts) t.join();
  return u;
}

TEST_CASE("a system split into parts gives the whole system's solution") {
  for (const auto e : kEnds)
    for (const auto& cuts : std::vector<std::vector<index_t>>{
             {0, 1, 2}, {0, 5, 7}, {0, 3, 3, 97}, {0, 0, 40, 97}, {0, 1000, 2051, 4099}, {0, 17, 999, 3001, 4099}}) {
      const index_t m = cuts.back();
      const auto d = random_rhs(m, 11u + unsigned(m));
      const auto ref = reference(d, e);
      for (const index_t s : {index_t(1), index_t(7), index_t(64)}) {
        const auto u = solve_in_parts<double>(d, e, rec::Arithmetic::float64, s, cuts);
        CHECK_MESSAGE(max_rel_error(ref, u) < 4.0 * double(m + 2) * 1.1e-16,
                      "double m=" << m << " parts " << cuts.size() - 1 << " s=" << s << " ends " << int(e.first) << int(e.last));
        const auto v = solve_in_parts<float>(d, e, rec::Arithmetic::compensated, s, cuts);
        CHECK_MESSAGE(max_rel_error(ref, v) < 4.0 * double(m + 2) * 6e-8, "compensated m=" << m << " s=" << s);
      }
    }
}

TEST_CASE("float, mixed and compensated divide-and-conquer agree with the reference") {
  for (const auto e : kEnds)
    for (const index_t m : {index_t(3), index_t(97), index_t(4099), index_t(20011)}) {
      const auto d = random_rhs(m, 7u + unsigned(m));
      const auto ref = reference(d, e);
      const double tol = 4.0 * double(m + 2) * 6e-8;
      for (const auto a : {rec::Arithmetic::float32, rec::Arithmetic::mixed, rec::Arithmetic::compensated})
        for (const index_t s : {index_t(3), index_t(64)}) {
          std::vector<float> u(d.begin(), d.end());
          rec::solve_divide_conquer(u.data(), m, e, a, s);
          CHECK_MESSAGE(max_rel_error(ref, u) < tol, rec::to_string(a) << " m=" << m << " s=" << s);
        }
      std::vector<float> u(d.begin(), d.end());
      rec::solve_sequential(u.data(), m, e);
      CHECK(max_rel_error(ref, u) < tol);
    }
}

TEST_CASE("paper P1, P2: double errors (14) at n = 2^20 and 2^22 below 1e-11") {
  for (const int p : {1, 2})
    for (const index_t n : {index_t(1) << 20, index_t(1) << 22}) {
      const auto prob = bvp::paper_problem(p);
      std::vector<double> u(n + 1);
      const auto sys = bvp::assemble_paper(prob, n, u.data());
      auto v = u;
      rec::solve_sequential(u.data() + sys.first, sys.m, sys.ends);
      rec::solve_divide_conquer(v.data() + sys.first, sys.m, sys.ends, rec::Arithmetic::float64);
      const double e1 = bvp::relative_error(prob, n, u.data()), e2 = bvp::relative_error(prob, n, v.data());
      MESSAGE("P" << p << " n=" << n << " A1D " << e1 << " A2D " << e2);
      if (p == 1) {
        CHECK(e1 < 1e-11);
        CHECK(e2 < 1e-11);
      } else {  // P2's discretization error is ~1e-11 at 2^20 (paper: 1.3e-11): its own bound
        CHECK(e2 < 5e-11);
      }
    }
}

// Mixed's error grows with the column length s (its in-column sums are plain float); the
// compensated one stays at float's rounding of u (~2e-8) for every s.
TEST_CASE("compensated float is at least 10x more accurate than mixed (P1, n = 2^20, s = 8192)") {
  const index_t n = index_t(1) << 20;
  const auto prob = bvp::paper_problem(1);
  std::vector<float> u(n + 1);
  const auto sys = bvp::assemble_paper(prob, n, u.data());
  auto v = u;
  rec::solve_divide_conquer(u.data() + sys.first, sys.m, sys.ends, rec::Arithmetic::mixed, 8192);
  rec::solve_divide_conquer(v.data() + sys.first, sys.m, sys.ends, rec::Arithmetic::compensated, 8192);
  const double em = bvp::relative_error(prob, n, u.data()), ec = bvp::relative_error(prob, n, v.data());
  MESSAGE("mixed " << em << " compensated " << ec);
  CHECK(ec * 10 < em);
  CHECK(ec < 1e-7);  // float's own rounding of u is ~3e-8
}

TEST_CASE("discretization: second order for every end combination; Neumann-Neumann rejected") {
  // u = sin(2x) + x on [0.5, 2]: -u'' = 4 sin(2x), u' = 2 cos(2x) + 1.
  const double lo = 0.5, hi = 2;
  auto ue = [](double x) { return std::sin(2 * x) + x; };
  auto du = [](double x) { return 2 * std::cos(2 * x) + 1; };
  for (int combo = 0; combo < 3; ++combo) {
    const bool dl = combo != 0, dr = combo != 1;
    double prev = 0;
    for (const index_t N : {index_t(101), index_t(201), index_t(401)}) {
      const double h = (hi - lo) / double(N - 1);
      std::vector<double> u(N);
      const bvp::EndCondition left{dl, dl ? ue(lo) : -du(lo)}, right{dr, dr ? ue(hi) : du(hi)};
      const auto sys = bvp::assemble<double>(N, lo, hi, left, right,
                                             [&](index_t i) { return 4 * std::sin(2 * (lo + double(i) * h)); }, u.data());
      rec::solve_divide_conquer(u.data() + sys.first, sys.m, sys.ends, rec::Arithmetic::float64, 7);
      bvp::finish(sys, N, u.data());
      double err = 0;
      for (index_t i = 0; i < N; ++i) err = std::max(err, std::abs(u[i] - ue(lo + double(i) * h)));
      if (prev > 0) CHECK_MESSAGE(prev / err == doctest::Approx(4).epsilon(0.1), "combo " << combo << " N=" << N);
      prev = err;
    }
  }
  std::vector<double> u(10);
  CHECK_THROWS(bvp::assemble<double>(10, 0, 1, {false, 0}, {false, 0}, [](index_t) { return 1.0; }, u.data()));
}

TEST_CASE("two Dirichlet ends with large values keep double accuracy at n = 2^20 (the linear lift)") {
  // u = cos(pi x / 2) + 1000 (1 + x): the values 1001 and 2000 would cost ~6 digits if fed into d.
  const index_t N = (index_t(1) << 20) + 1;
  const double h = 1.0 / double(N - 1);
  std::vector<double> u(N);
  const auto sys = bvp::assemble<double>(N, 0, 1, {true, 1001.0}, {true, 2000.0}, [&](index_t i) {
    return bvp::p1_f(double(i) * h);
  }, u.data());
  rec::solve_divide_conquer(u.data() + sys.first, sys.m, sys.ends, rec::Arithmetic::float64);
  bvp::finish(sys, N, u.data());
  double err = 0;
  for (index_t i = 0; i < N; ++i) err = std::max(err, std::abs(u[i] - (bvp::p1_u(double(i) * h) + 1000 * (1 + double(i) * h))));
  MESSAGE("max error " << err);
  CHECK(err < 1e-9);  // relative to |u| ~ 2000: ~5e-13
}
