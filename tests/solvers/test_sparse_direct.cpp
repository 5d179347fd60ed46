// Sparse direct solver (solvers/sparse_direct/): the analysis's structure, and the multifrontal
// factorization's solutions against a dense LAPACK Cholesky solve of the same matrix (small
// grids) and against the matrix itself (residuals of random right-hand sides at awkward sizes).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <vector>

#include "core/errors.hpp"
#include "solvers/sparse_direct/dense_kernels.hpp"
#include "solvers/sparse_direct/multifrontal.hpp"
#include "tests/common/sparse_test_matrices.hpp"

using namespace tridsim;
using namespace tridsim::sparse;

using namespace tridsim::sparse::testing;

TEST_CASE("every unknown is eliminated once, and every front after its children") {
  for (const int threads : {1, 2, 3})
    for (const auto& p : {grid(2, 37, 23, 1, 1, Stencil::star), grid(3, 9, 11, 7, 1, Stencil::star),
                          grid(2, 15, 16, 1, 2, Stencil::box), grid(1, 100, 1, 1, 1, Stencil::star)}) {
      SolverOptions o;
      o.threads = threads;
      const Analysis an(p, o);
      std::vector<int> seen(std::size_t(p.unknowns()), 0);
      for (std::size_t f = 0; f < an.fronts().size(); ++f) {
        const Front& fr = an.fronts()[f];
        for (index_t q = fr.first; q < fr.first + fr.size; ++q) ++seen[an.unknown_at()[q]];
        for (const int c : fr.children) CHECK(c < int(f));
        for (const index_t q : fr.update) CHECK(q >= fr.first + fr.size);
      }
      for (const int s : seen) CHECK(s == 1);
      for (index_t u = 0; u < p.unknowns(); ++u) CHECK(an.unknown_at()[an.position_of()[u]] == u);
    }
}

TEST_CASE("multifrontal Cholesky matches a dense LAPACK solve") {
  for (const auto& p : {grid(1, 1, 1, 1, 1, Stencil::star), grid(1, 2, 1, 1, 1, Stencil::star),
                        grid(2, 3, 5, 1, 1, Stencil::star), grid(2, 13, 7, 1, 1, Stencil::star),
                        grid(3, 5, 4, 6, 1, Stencil::star), grid(2, 6, 7, 1, 2, Stencil::box),
                        grid(3, 4, 3, 5, 3, Stencil::box), grid(3, 9, 8, 7, 3, Stencil::box)}) {
    CAPTURE(p.n[0]);
    CAPTURE(p.n[1]);
    CAPTURE(p.n[2]);
    CAPTURE(p.dofs);
    const StencilMatrix<double> a = random_spd<double>(p, 7);
    const index_t n = p.unknowns();
    std::vector<double> dense(std::size_t(n * n), 0.0);
    std::vector<index_t> rs, col;
    std::vector<double> val;
    a.to_csr(rs, col, val);
    for (index_t i = 0; i < n; ++i)
      for (index_t k = rs[i]; k < rs[i + 1]; ++k) dense[i + col[k] * n] = val[k];
    const index_t nrhs = 3;
    std::vector<double> b = random_vector<double>(n * nrhs, 3), want = b;
    REQUIRE(dense::potrf(int(n), dense.data(), int(n)) == 0);
    dense::trsm<double>('L', 'N', int(n), int(nrhs), 1.0, dense.data(), int(n), want.data(), int(n));
    dense::trsm<double>('L', 'T', int(n), int(nrhs), 1.0, dense.data(), int(n), want.data(), int(n));
    for (const int threads : {1, 2, 16}) {  // 16: more threads than subtrees worth the name
      SolverOptions o;
      o.threads = threads;
      o.leaf_nodes = 4;
      Multifrontal<double> mf(p, o);
      mf.factor(a);
      std::vector<double> x = b;
      mf.solve(x.data(), nrhs);
      for (index_t i = 0; i < n * nrhs; ++i) CHECK(x[i] == doctest::Approx(want[i]).epsilon(1e-10));
    }
  }
}

TEST_CASE("multifrontal residuals at awkward sizes, refactorization and refinement") {
  for (const auto& p : {grid(2, 1, 97, 1, 1, Stencil::star), grid(2, 101, 2, 1, 1, Stencil::star),
                        grid(2, 127, 61, 1, 1, Stencil::star), grid(3, 17, 1, 13, 1, Stencil::star),
                        grid(3, 19, 23, 11, 1, Stencil::star), grid(2, 41, 29, 1, 2, Stencil::box),
                        grid(3, 9, 8, 7, 3, Stencil::box)}) {
    CAPTURE(p.n[0]);
    CAPTURE(p.n[1]);
    CAPTURE(p.n[2]);
    Multifrontal<double> mf(p);
    for (unsigned seed : {1u, 2u}) {  // the second factorization reuses the analysis and memory
      const StencilMatrix<double> a = random_spd<double>(p, seed);
      mf.factor(a);
      const std::vector<double> b = random_vector<double>(p.unknowns(), seed + 10);
      std::vector<double> x = b;
      mf.solve(x.data());
      CHECK(relative_residual(a, x, b) < 1e-13);
      x = b;
      const Refinement r = mf.solve_refined(a, x.data());
      CHECK(r.residual < 1e-14);
      CHECK(relative_residual(a, x, b) == doctest::Approx(r.residual).epsilon(1e-6));
    }
  }
}

TEST_CASE("float factorization refined against the matrix reaches double-precision residuals") {
  const GridPattern p = grid(2, 64, 48, 1, 1, Stencil::star);
  const StencilMatrix<float> a = random_spd<float>(p, 5);
  Multifrontal<float> mf(p);
  mf.factor(a);
  std::vector<float> b = random_vector<float>(p.unknowns(), 6), x = b;
  const Refinement r = mf.solve_refined(a, x.data(), 1, 1e-7);
  CHECK(r.residual < 1e-6);
}

TEST_CASE("a matrix that is not positive definite is refused, naming the unknown") {
  const GridPattern p = grid(2, 10, 10, 1, 1, Stencil::star);
  StencilMatrix<double> a = random_spd<double>(p, 1);
  a.block(57, 0)[0] = -5;
  Multifrontal<double> mf(p);
  CHECK_THROWS_AS(mf.factor(a), SingularMatrix);
  CHECK_THROWS_WITH(mf.solve(a.values.data()), doctest::Contains("before factor"));
}

TEST_CASE("the memory the factorization needs is checked before it is taken") {
  SolverOptions o;
  o.memory_limit = 1e5;
  Multifrontal<double> mf(grid(2, 100, 100, 1, 1, Stencil::star), o);
  CHECK(mf.working_bytes() > 1e5);
  const StencilMatrix<double> a = random_spd<double>(grid(2, 100, 100, 1, 1, Stencil::star), 1);
  CHECK_THROWS_WITH(mf.factor(a), doctest::Contains("needs"));
}
