// Tests of the batched CPU block-tridiagonal solver (solvers/block_tridiagonal/batched.hpp):
//  1. every block source (BlockArrays, the CoupledDiffusionRows generator, UniformBlockMatrix)
//     against reference_solve_lines (reference.hpp) and against a banded LAPACK solve (?gbsv,
//     kl = ku = 2M-1) of the same lines: every M = 1..8 (templated kernels) and M = 11 (runtime
//     path); line lengths 1, 2, 3, 31, 257; odd line counts and partial packs; axes 0, 1, 2 of
//     padded 2-D and 3-D arrays; float and double; Pivoting::partial and Pivoting::none;
//  2. a system that needs partial pivoting (pivot blocks with zero diagonal entries, dominant
//     after a row permutation): partial matches the reference and LAPACK, none throws;
//  3. right-hand side and solution through load/store functors (PlanarAccess);
//  4. bad inputs throw tridsim::Error.
//
// Inputs are random and block-row diagonally dominant (|diagonal| >= sum of the other |entries|
// in its row + 1), so every solve is stable and well conditioned (condition numbers of order 10).
// Errors are relative to the largest |x| of the case: double 1e-11, float 2e-4 (rounding in the
// O(M) block operations per row times the condition number stays about 100x below; an indexing
// or elimination mistake gives O(1) errors).
// Arrays are x-fastest: node (i,j,k) at i + s1*j + s2*k, with padded strides (tests/common);
// padding nodes hold NaN in every block array and in the right-hand side, so a solver that reads
// them produces NaN and one that writes them is seen (padding must stay NaN).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/coupled_diffusion.hpp"
#include "core/errors.hpp"
#include "solvers/block_tridiagonal/batched.hpp"
#include "solvers/block_tridiagonal/reference.hpp"
#include "solvers/block_tridiagonal/uniform_blocks.hpp"
#include "tests/common/padded_layout.hpp"

namespace {

using namespace tridsim;
using namespace tridsim::blocktri;
using tridsim::testing::Layout;

template <class T>
constexpr double tol() {
  return std::is_same_v<T, float> ? 2e-4 : 1e-11;
}
template <class T>
T nan_v() {
  return std::numeric_limits<T>::quiet_NaN();
}

const std::vector<int> kBlockSizes = {1, 2, 3, 4, 5, 6, 7, 8, 11};  // 11: the runtime-m path

// The cases of one block size: (layout, axis). Line lengths 1, 2, 3, 31, 257 along every axis of
// 2-D arrays, and 1, 3, 31 along every axis of 3-D arrays; line counts odd, with partial packs
// (8 double / 16 float lanes) and several packs per y tile (37 lines across x).
struct Case {
  Layout layout;
  int axis;
};
std::vector<Case> cases() {
  std::vector<Case> out;
  for (index_t len : {1, 2, 3, 31, 257}) {
    out.push_back({Layout::padded({len, 19, 1}), 0});
    out.push_back({Layout::padded({37, len, 1}), 1});
  }
  for (index_t len : {1, 3, 31}) {
    out.push_back({Layout::padded({len, 3, 5}), 0});
    out.push_back({Layout::padded({9, len, 3}), 1});
    out.push_back({Layout::padded({7, 5, len}), 2});
  }
  return out;
}

// Row-dominant random blocks; `permuted`: the dominant entry of row i of B sits in column
// (i+1) % m and B_ii = 0, so the pivot blocks need row exchanges.
template <class T>
struct RandomBlocks {
  std::vector<T> a, b, c;
  RandomBlocks(const Layout& lay, int m, std::mt19937& rng, bool permuted = false) {
    const std::size_t mm = std::size_t(m) * m, nodes = std::size_t(lay.size());
    a.assign(nodes * mm, nan_v<T>());
    b = a;
    c = a;
    std::uniform_real_distribution<double> u(-1, 1);
    for (std::size_t o = 0; o < nodes; ++o) {
      if (lay.is_padding(index_t(o))) continue;
      for (int i = 0; i < m; ++i) {
        const int dcol = permuted && m > 1 ? (i + 1) % m : i;
        double sum = 0;
        for (int j = 0; j < m; ++j) {
          const std::size_t k = o * mm + i * m + j;
          a[k] = T(u(rng));
          c[k] = T(u(rng));
          b[k] = j == dcol || (permuted && j == i) ? T(0) : T(u(rng));
          sum += std::abs(double(a[k])) + std::abs(double(b[k])) + std::abs(double(c[k]));
        }
        b[o * mm + i * m + dcol] = T((u(rng) < 0 ? -1 : 1) * (sum + 1));
      }
    }
  }
  BlockArrays<T> view(int m) const { return {a.data(), b.data(), c.data(), m}; }
};

// Rows shared by every line (random, row-dominant): a generator and UniformBlockMatrix's source.
template <class T>
struct RandomUniformRows {
  std::vector<T> a, b, c;
  int m;
  RandomUniformRows(int m_, index_t n, std::mt19937& rng) : m(m_) {
    std::uniform_real_distribution<double> u(-1, 1);
    const std::size_t mm = std::size_t(m) * m;
    a.resize(n * mm); b.resize(n * mm); c.resize(n * mm);
    for (index_t r = 0; r < n; ++r)
      for (int i = 0; i < m; ++i) {
        double sum = 0;
        for (int j = 0; j < m; ++j) {
          const std::size_t k = r * mm + i * m + j;
          a[k] = T(u(rng)); b[k] = i == j ? T(0) : T(u(rng)); c[k] = T(u(rng));
          sum += std::abs(double(a[k])) + std::abs(double(b[k])) + std::abs(double(c[k]));
        }
        b[r * mm + i * m + i] = T(sum + 1);
      }
  }
  void entry(index_t, index_t r, int i, int j, T& A, T& B, T& C) const {
    const std::size_t k = r * std::size_t(m) * m + i * m + j;
    A = a[k]; B = b[k]; C = c[k];
  }
  void operator()(index_t r, int i, int j, T& A, T& B, T& C) const { entry(0, r, i, j, A, B, C); }
};

// A coupled diffusion with a random row-dominant diffusion matrix D (positive diagonal).
template <class T>
CoupledDiffusionRows<T> random_diffusion(int m, index_t n, bool dirichlet, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  CoupledDiffusionRows<T> rows;
  rows.m = m;
  rows.n = n;
  rows.dirichlet_lo = dirichlet;
  rows.dirichlet_hi = !dirichlet;  // one end of each kind in each run
  const double w = 0.7;
  for (int i = 0; i < m; ++i) {
    double sum = 0;
    for (int j = 0; j < m; ++j)
      if (j != i) sum += std::abs(rows.wd[i * m + j] = T(w * u(rng)));
    rows.wd[i * m + i] = T(w + sum);
  }
  return rows;
}

// Right-hand side: interleaved M-vectors per node, NaN at padding nodes.
template <class T>
std::vector<T> random_rhs(const Layout& lay, int m, std::mt19937& rng) {
  std::vector<T> d(std::size_t(lay.size()) * m, nan_v<T>());
  std::uniform_real_distribution<double> u(-1, 1);
  for (index_t o = 0; o < lay.size(); ++o)
    if (!lay.is_padding(o))
      for (int s = 0; s < m; ++s) d[o * m + s] = T(u(rng));
  return d;
}

inline lapack_int gbsv(lapack_int n, lapack_int kl, lapack_int ku, double* ab, lapack_int ldab, lapack_int* ipiv,
                       double* b) {
  return LAPACKE_dgbsv(LAPACK_COL_MAJOR, n, kl, ku, 1, ab, ldab, ipiv, b, n);
}
inline lapack_int gbsv(lapack_int n, lapack_int kl, lapack_int ku, float* ab, lapack_int ldab, lapack_int* ipiv,
                       float* b) {
  return LAPACKE_sgbsv(LAPACK_COL_MAJOR, n, kl, ku, 1, ab, ldab, ipiv, b, n);
}

// Line q of L as a band matrix (kl = ku = 2M-1, LAPACK column-major band storage) solved by ?gbsv.
template <class T, class Blocks>
std::vector<T> banded_solve(int m, const LineSet& L, const Blocks& blocks, const std::vector<T>& rhs, index_t q) {
  const index_t n = L.length(), N = n * m;
  const int kl = 2 * m - 1, ku = kl, ldab = 2 * kl + ku + 1;
  std::vector<T> ab(std::size_t(ldab) * N, T(0)), x(N);
  std::vector<lapack_int> ipiv(N);
  auto put = [&](index_t I, index_t J, T v) { ab[(kl + ku + I - J) + J * ldab] = v; };
  for (index_t r = 0; r < n; ++r) {
    const index_t o = line_offset(L, q, r);
    for (int i = 0; i < m; ++i) {
      x[r * m + i] = rhs[o * m + i];
      for (int j = 0; j < m; ++j) {
        T a, b, c;
        blocks.entry(o, r, i, j, a, b, c);
        if (r > 0) put(r * m + i, (r - 1) * m + j, a);
        put(r * m + i, r * m + j, b);
        if (r + 1 < n) put(r * m + i, (r + 1) * m + j, c);
      }
    }
  }
  REQUIRE(gbsv(lapack_int(N), kl, ku, ab.data(), ldab, ipiv.data(), x.data()) == 0);
  return x;
}

// Solves the case with `opt` (the optimized solver's block source) in place and compares with the
// reference (on `ref`, the same matrix as entries) and with LAPACK on a few lines; checks padding.
template <class T, class Opt, class Ref>
void check(int m, const Layout& lay, int axis, const Opt& opt, const Ref& ref, Pivoting piv, std::mt19937& rng) {
  const LineSet L = lay.lines(axis);
  CAPTURE(m);
  CAPTURE(lay.describe(axis));
  CAPTURE(std::string(name_of(kPivotingNames, piv)));
  const std::vector<T> rhs = random_rhs<T>(lay, m, rng);
  std::vector<T> x = rhs, xr = rhs;
  solve_lines<T>(m, L, opt, x.data(), piv);
  InterleavedAccess<T> acc{xr.data(), m};
  reference_solve_lines<T>(m, L, ref, [&](index_t o, index_t k, T* out) { acc.load(o, k, out); },
                           [&](index_t o, index_t k, const T* in) { acc.store(o, k, in); });
  double scale = 0, err = 0;
  bool padding_ok = true, finite = true;
  for (index_t o = 0; o < lay.size(); ++o)
    for (int s = 0; s < m; ++s) {
      const std::size_t k = o * m + s;
      if (lay.is_padding(o)) {
        padding_ok = padding_ok && std::isnan(x[k]);
        continue;
      }
      finite = finite && std::isfinite(x[k]);
      scale = std::max(scale, std::abs(double(xr[k])));
      err = std::max(err, std::abs(double(x[k]) - double(xr[k])));
    }
  CHECK(padding_ok);
  REQUIRE(finite);
  CHECK(err <= tol<T>() * scale);
  // LAPACK on the first, second and last lines.
  const index_t lines = L.count();
  double lerr = 0;
  for (index_t q : {index_t(0), std::min<index_t>(1, lines - 1), lines - 1}) {
    const std::vector<T> xb = banded_solve<T>(m, L, ref, rhs, q);
    for (index_t r = 0; r < L.length(); ++r)
      for (int s = 0; s < m; ++s)
        lerr = std::max(lerr, std::abs(double(x[line_offset(L, q, r) * m + s]) - double(xb[r * m + s])));
  }
  CHECK(lerr <= tol<T>() * scale);
}

}  // namespace

TEST_CASE_TEMPLATE("BlockArrays matches reference", T, float, double) {
  std::mt19937 rng(1);
  for (int m : kBlockSizes)
    for (const Case& c : cases()) {
      const RandomBlocks<T> blocks(c.layout, m, rng);
      for (Pivoting piv : {Pivoting::partial, Pivoting::none})
        check<T>(m, c.layout, c.axis, blocks.view(m), blocks.view(m), piv, rng);
    }
}

TEST_CASE_TEMPLATE("CoupledDiffusionRows matches reference", T, float, double) {
  std::mt19937 rng(2);
  for (int m : {1, 2, 3, 4, 5, 6, 7, 8})  // kMaxSpecies = 8
    for (const Case& c : cases())
      for (bool dirichlet : {false, true}) {
        const auto rows = random_diffusion<T>(m, c.layout.n[c.axis], dirichlet, rng);
        check<T>(m, c.layout, c.axis, rows, rows, dirichlet ? Pivoting::none : Pivoting::partial, rng);
      }
}

TEST_CASE_TEMPLATE("UniformBlockMatrix matches reference", T, float, double) {
  std::mt19937 rng(3);
  for (int m : kBlockSizes)
    for (const Case& c : cases()) {
      const index_t n = c.layout.n[c.axis];
      const RandomUniformRows<T> rows(m, n, rng);
      check<T>(m, c.layout, c.axis, UniformBlockMatrix<T>(m, n, rows), rows, Pivoting::partial, rng);
      if (m <= kMaxSpecies) {
        const auto diff = random_diffusion<T>(m, n, m % 2 == 0, rng);
        check<T>(m, c.layout, c.axis, UniformBlockMatrix<T>(m, n, diff), diff, Pivoting::partial, rng);
      }
    }
}

TEST_CASE_TEMPLATE("partial pivoting matches reference", T, float, double) {
  std::mt19937 rng(4);
  for (int m : {2, 3, 4, 5, 8, 11})
    for (const Case& c : cases()) {
      const RandomBlocks<T> blocks(c.layout, m, rng, true);
      check<T>(m, c.layout, c.axis, blocks.view(m), blocks.view(m), Pivoting::partial, rng);
      // Without row exchanges the first pivot is an exact zero.
      std::vector<T> x = random_rhs<T>(c.layout, m, rng);
      CHECK_THROWS_AS(solve_lines<T>(m, c.layout.lines(c.axis), blocks.view(m), x.data(), Pivoting::none), Error);
    }
}

TEST_CASE_TEMPLATE("load/store functors (PlanarAccess) match reference", T, float, double) {
  std::mt19937 rng(5);
  const Layout lay = Layout::padded({21, 13, 4});
  for (int m : {3, 8})
    for (int axis : {0, 1, 2}) {
      const RandomBlocks<T> blocks(lay, m, rng);
      const LineSet L = lay.lines(axis);
      const std::vector<T> rhs = random_rhs<T>(lay, m, rng);
      // Species planes: component s of node o at s*plane + o.
      const index_t plane = lay.size();
      std::vector<T> planar(plane * m), xr = rhs;
      for (index_t o = 0; o < plane; ++o)
        for (int s = 0; s < m; ++s) planar[s * plane + o] = rhs[o * m + s];
      PlanarAccess<T> pa{planar.data(), plane, m};
      solve_lines<T>(m, L, blocks.view(m), [&](index_t o, index_t k, T* out) { pa.load(o, k, out); },
                     [&](index_t o, index_t k, const T* in) { pa.store(o, k, in); });
      InterleavedAccess<T> acc{xr.data(), m};
      reference_solve_lines<T>(m, L, blocks.view(m), [&](index_t o, index_t k, T* out) { acc.load(o, k, out); },
                               [&](index_t o, index_t k, const T* in) { acc.store(o, k, in); });
      double err = 0, scale = 0;
      for (index_t o = 0; o < plane; ++o)
        if (!lay.is_padding(o))
          for (int s = 0; s < m; ++s) {
            scale = std::max(scale, std::abs(double(xr[o * m + s])));
            err = std::max(err, std::abs(double(planar[s * plane + o]) - double(xr[o * m + s])));
          }
      CHECK(err <= tol<T>() * scale);
    }
}

TEST_CASE("bad inputs throw") {
  std::mt19937 rng(6);
  const Layout lay = Layout::dense({8, 6, 1});
  const RandomBlocks<double> blocks(lay, 2, rng);
  std::vector<double> u = random_rhs<double>(lay, 2, rng);
  const LineSet L = lay.lines(1);
  CHECK_THROWS_AS(solve_lines<double>(0, L, blocks.view(2), u.data()), Error);  // m < 1
  CHECK_THROWS_AS(solve_lines<double>(3, L, blocks.view(2), u.data()), Error);  // blocks of another m
  LineSet strided = L;
  strided.stride = {2, 16, 96};
  CHECK_THROWS_AS(solve_lines<double>(2, strided, blocks.view(2), u.data()), Error);  // x stride != 1
  const RandomUniformRows<double> rows(2, 6, rng);
  const UniformBlockMatrix<double> uni(2, 6, rows);
  CHECK_NOTHROW(solve_lines<double>(2, L, uni, u.data()));
  CHECK_THROWS_AS(solve_lines<double>(2, lay.lines(0), uni, u.data()), Error);  // 6 rows, lines of 8
  const RandomUniformRows<double> rows3(3, 6, rng);
  CHECK_THROWS_AS(solve_lines<double>(2, L, UniformBlockMatrix<double>(3, 6, rows3), u.data()), Error);  // m
  // A singular pivot block (B = 0 on every row) is reported, with either pivoting.
  RandomBlocks<double> zero(lay, 2, rng);
  std::fill(zero.b.begin(), zero.b.end(), 0.0);
  std::fill(zero.a.begin(), zero.a.end(), 0.0);
  for (Pivoting piv : {Pivoting::partial, Pivoting::none})
    CHECK_THROWS_AS(solve_lines<double>(2, L, zero.view(2), u.data(), piv), Error);
}
