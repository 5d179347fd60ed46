// Tests of the tridiagonal line solvers (solvers/tridiagonal/):
//  1. thomas_reference against dense Gaussian elimination and by residual, in long double;
//  2. pcr_solve and cr_solve against thomas_reference, for every n up to 70 and awkward larger n;
//  3. the batched solve_lines (batched.hpp) for every axis of padded 1-, 2- and 3-D arrays, with
//     every coefficient source (UniformMatrix, ArrayCoeffs, DiffusionCoeffs with both face means
//     and Dirichlet/Neumann ends), every Algorithm, in place and through load/store functors,
//     against thomas_reference applied line by line to gathered copies;
//  4. error handling (singular UniformMatrix, bad strides) and small consistency checks;
//  5. the cyclic (periodic) lines of cyclic.hpp against dense elimination of the cyclic system and
//     against the exact discrete Fourier mode of a circulant matrix, on every axis.
//
// Inputs are random and diagonally dominant (|b| >= |a| + |c| + 0.5), so every solver here is
// stable without pivoting and the condition number is small (at most ~15 for the random rows,
// ~21 for the diffusion rows used: w = 2.5, kappa in [0.1, 2]).
// Tolerances are relative to the largest |x| on the line:
//   double: 1e-12, float: 1e-4. Both solvers err by O(cond * eps) each (eps = 1.1e-16 / 6e-8);
//   with cond <= ~21 and a small constant that is ~1e-14 / ~1e-5 in the worst case, and the
//   tolerances leave a margin of about 10x to 100x above that while still catching any
//   indexing or elimination mistake (which produces O(1) errors).
// Arrays are x-fastest: element (i,j,k) at i*stride[0] + j*stride[1] + k*stride[2], with
// stride[0] = 1 and padded strides stride[1] > n[0], stride[2] > n[1]*stride[1]. Padding holds
// NaN (or a sentinel), so a solver that reads it produces NaN and one that writes it is seen.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/errors.hpp"
#include "solvers/tridiagonal/batched.hpp"
#include "solvers/tridiagonal/coefficients.hpp"
#include "solvers/tridiagonal/cyclic.hpp"
#include "solvers/tridiagonal/cyclic_reduction.hpp"
#include "solvers/tridiagonal/line_set.hpp"
#include "solvers/tridiagonal/line_solvers.hpp"
#include "tests/common/padded_layout.hpp"
#include "solvers/tridiagonal/thomas_reference.hpp"

namespace {

using namespace tridsim;
using namespace tridsim::tridiag;
using tridsim::testing::Layout;
using tridsim::testing::Shape;

template <class T>
constexpr double tol() {
  return std::is_same_v<T, float> ? 1e-4 : 1e-12;
}

template <class T>
T nan_v() {
  return std::numeric_limits<T>::quiet_NaN();
}

template <class T>
bool same_bits(T x, T y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

constexpr index_t kLengths[] = {1, 2, 3, 7, 31, 100, 257, 1000};

struct Rng {
  std::mt19937_64 g;
  explicit Rng(std::uint64_t seed) : g(seed) {}
  double uni(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(g); }
};

// One random diagonally dominant row; a missing neighbour's coefficient is set to NaN to check
// that a_0 and c_{n-1} are really ignored.
template <class T>
void dominant_row(Rng& rng, bool has_a, bool has_c, T& a, T& b, T& c) {
  const double av = has_a ? rng.uni(-1, 1) : 0.0, cv = has_c ? rng.uni(-1, 1) : 0.0;
  double bv = std::abs(av) + std::abs(cv) + rng.uni(0.5, 1.5);
  if (rng.uni(0, 1) < 0.3) bv = -bv;
  a = has_a ? T(av) : nan_v<T>();
  b = T(bv);
  c = has_c ? T(cv) : nan_v<T>();
}

template <class T>
struct System {
  std::vector<T> a, b, c, d;
};

template <class T>
System<T> random_system(index_t n, Rng& rng) {
  System<T> s{std::vector<T>(n), std::vector<T>(n), std::vector<T>(n), std::vector<T>(n)};
  for (index_t r = 0; r < n; ++r) {
    dominant_row(rng, r > 0, r + 1 < n, s.a[r], s.b[r], s.c[r]);
    s.d[r] = T(rng.uni(-1, 1));
  }
  return s;
}

// max_i |x_i - y_i| / max_i |y_i| (NaN anywhere gives +inf).
template <class T, class U>
double rel_error(index_t n, const T* x, const U* y) {
  long double num = 0, den = 0;
  for (index_t i = 0; i < n; ++i) {
    const long double xi = x[i], yi = y[i];
    if (std::isnan(xi) || std::isnan(yi)) return std::numeric_limits<double>::infinity();
    num = std::max(num, std::abs(xi - yi));
    den = std::max(den, std::abs(yi));
  }
  return double(num / std::max(den, 1e-300L));
}

// Dense Gaussian elimination with partial pivoting in long double (the reference's reference).
// Cyclic (n >= 3): a_0 in column n-1 and c_{n-1} in column 0.
template <class T>
std::vector<long double> dense_solve(const System<T>& s, bool cyclic = false) {
  const index_t n = index_t(s.b.size());
  std::vector<long double> A(n * n, 0.0L), x(s.d.begin(), s.d.end());
  for (index_t r = 0; r < n; ++r) {
    if (r > 0) A[r * n + r - 1] = s.a[r];
    A[r * n + r] = s.b[r];
    if (r + 1 < n) A[r * n + r + 1] = s.c[r];
  }
  if (cyclic) {
    A[n - 1] = s.a[0];
    A[(n - 1) * n] = s.c[n - 1];
  }
  for (index_t k = 0; k < n; ++k) {
    index_t p = k;
    for (index_t i = k + 1; i < n; ++i)
      if (std::abs(A[i * n + k]) > std::abs(A[p * n + k])) p = i;
    if (p != k) {
      for (index_t j = 0; j < n; ++j) std::swap(A[k * n + j], A[p * n + j]);
      std::swap(x[k], x[p]);
    }
    for (index_t i = k + 1; i < n; ++i) {
      const long double f = A[i * n + k] / A[k * n + k];
      if (f == 0) continue;
      for (index_t j = k; j < n; ++j) A[i * n + j] -= f * A[k * n + j];
      x[i] -= f * x[k];
    }
  }
  for (index_t k = n - 1; k >= 0; --k) {
    long double v = x[k];
    for (index_t j = k + 1; j < n; ++j) v -= A[k * n + j] * x[j];
    x[k] = v / A[k * n + k];
  }
  return x;
}

// ---- padded N-d layouts ----------------------------------------------------------------------

// Lines of length len along each axis of 1-, 2- and 3-D arrays; the other extents are small and
// awkward (17 lines > 16 SIMD lanes; 67 x-columns span several y/z tiles and end in a partial
// one for tile widths up to 64; extents of 1).
std::vector<Shape> shapes(index_t len) {
  return {
      {{len, 1, 1}, 0},                                    // 1-D
      {{len, 17, 1}, 0}, {{67, len, 1}, 1}, {{1, len, 1}, 1},  // 2-D
      {{len, 5, 3}, 0}, {{17, len, 3}, 1}, {{5, 3, len}, 2},   // 3-D
  };
}

// ---- the batched check -----------------------------------------------------------------------

// Solve all lines of `lay` along `axis` with matrix source M, every algorithm, in place and with
// load/store functors; compare with thomas_reference on each gathered line. ref(base, a, b, c)
// fills the reference coefficients of the line whose row 0 sits at offset base.
template <class T, class Matrix, class Ref>
void check_batched(const Layout& lay, int axis, const Matrix& M, const Ref& ref, Rng& rng, const char* source) {
  const LineSet L = lay.lines(axis);
  const index_t S = lay.size(), n = L.length(), s = L.stride[axis];
  const std::vector<index_t> bases = lay.line_bases(axis);
  INFO(source, ": ", lay.describe(axis));

  std::vector<T> rhs(S, nan_v<T>());
  for (index_t o = 0; o < S; ++o)
    if (!lay.is_padding(o)) rhs[o] = T(rng.uni(-1, 1));

  // Expected solution by the reference on gathered copies.
  std::vector<T> expected(S, nan_v<T>());
  std::vector<T> a(n), b(n), c(n), d(n), x(n);
  for (index_t base : bases) {
    ref(base, a.data(), b.data(), c.data());
    for (index_t r = 0; r < n; ++r) d[r] = rhs[base + r * s];
    thomas_reference(n, a.data(), b.data(), c.data(), d.data(), x.data());
    for (index_t r = 0; r < n; ++r) expected[base + r * s] = x[r];
  }

  // Worst relative error over the lines of `got` against scale * expected.
  auto worst_error = [&](const std::vector<T>& got, T scale) {
    double worst = 0;
    std::vector<T> g(n), e(n);
    for (index_t base : bases) {
      for (index_t r = 0; r < n; ++r) {
        g[r] = got[base + r * s];
        e[r] = scale * expected[base + r * s];
      }
      worst = std::max(worst, rel_error(n, g.data(), e.data()));
    }
    return worst;
  };

  for (const LineSolver* solver : cpu_line_solvers()) {  // every CPU row of the table
    const Algorithm alg = solver->cpu;
    INFO("algorithm ", solver->name);
    {  // in place; padding must be left bit for bit as it was
      std::vector<T> sol = rhs;
      if (alg == Algorithm::thomas) solve_lines<T>(L, M, sol.data());
      else solve_lines<T>(L, M, sol.data(), alg);
      const double err = worst_error(sol, T(1));
      CHECK_MESSAGE(err <= tol<T>(), "in place: relative error ", err);
      index_t touched = 0;
      for (index_t o = 0; o < S; ++o)
        if (lay.is_padding(o) && !same_bits(sol[o], rhs[o])) ++touched;
      CHECK_MESSAGE(touched == 0, "in place: ", touched, " padding elements changed");
    }
    {  // functors: out of place, load scales the right-hand side by 2 (so x doubles); every
       // element is loaded once and stored once, padding never.
      const T sentinel = T(-12345.5);
      std::vector<T> out(S, sentinel);
      std::vector<std::atomic<int>> loads(S), stores(S);
      auto load = [&](index_t o, index_t k, T* dst) {
        for (index_t i = 0; i < k; ++i) {
          dst[i] = T(2) * rhs[o + i];
          loads[o + i].fetch_add(1, std::memory_order_relaxed);
        }
      };
      auto store = [&](index_t o, index_t k, const T* src) {
        for (index_t i = 0; i < k; ++i) {
          out[o + i] = src[i];
          stores[o + i].fetch_add(1, std::memory_order_relaxed);
        }
      };
      solve_lines<T>(L, M, load, store, alg);
      const double err = worst_error(out, T(2));
      CHECK_MESSAGE(err <= tol<T>(), "functors: relative error ", err);
      index_t bad_pad = 0, bad_count = 0;
      for (index_t o = 0; o < S; ++o) {
        const int want = lay.is_padding(o) ? 0 : 1;
        if (loads[o].load() != want || stores[o].load() != want) ++bad_count;
        if (lay.is_padding(o) && !same_bits(out[o], sentinel)) ++bad_pad;
      }
      CHECK_MESSAGE(bad_count == 0, "functors: ", bad_count, " elements not loaded/stored exactly once");
      CHECK_MESSAGE(bad_pad == 0, "functors: ", bad_pad, " padding elements written");
    }
  }
}

// Reference diffusion rows, written from the documented formulas (independently of
// DiffusionCoeffs): interior rows of I - w d/dx(kappa d/dx); a Dirichlet end is the identity
// row; a Neumann end is the half cell with doubled face coupling; a line of one node is (0,1,0).
template <class T, FaceMean Mean>
T ref_face(T k0, T k1) {
  if constexpr (Mean == FaceMean::arithmetic) return T(0.5) * (k0 + k1);
  else return T(2) * k0 * k1 / (k0 + k1);
}

template <class T, FaceMean Mean>
void ref_diffusion_line(index_t n, const T* k, T w, BoundaryKind lo, BoundaryKind hi, T* a, T* b, T* c) {
  for (index_t r = 0; r < n; ++r) {
    const T kl = r > 0 ? ref_face<T, Mean>(k[r - 1], k[r]) : T(0);
    const T kr = r + 1 < n ? ref_face<T, Mean>(k[r], k[r + 1]) : T(0);
    a[r] = -w * kl;
    c[r] = -w * kr;
    b[r] = 1 + w * (kl + kr);
  }
  if (n == 1) {
    a[0] = 0; b[0] = 1; c[0] = 0;
    return;
  }
  const T k_lo = ref_face<T, Mean>(k[0], k[1]), k_hi = ref_face<T, Mean>(k[n - 2], k[n - 1]);
  a[0] = 0;
  if (lo == BoundaryKind::dirichlet) { b[0] = 1; c[0] = 0; }
  else { b[0] = 1 + 2 * w * k_lo; c[0] = -2 * w * k_lo; }
  c[n - 1] = 0;
  if (hi == BoundaryKind::dirichlet) { a[n - 1] = 0; b[n - 1] = 1; }
  else { a[n - 1] = -2 * w * k_hi; b[n - 1] = 1 + 2 * w * k_hi; }
}

const char* kind_name(BoundaryKind k) { return k == BoundaryKind::dirichlet ? "dirichlet" : "neumann"; }

}  // namespace

// ---- 1. the reference ------------------------------------------------------------------------

TEST_CASE_TEMPLATE("thomas_reference agrees with dense elimination and has a small residual", T, float, double) {
  Rng rng(1);
  for (index_t n : {1, 2, 3, 4, 5, 7, 31, 100, 257, 1000}) {
    CAPTURE(n);
    const System<T> s = random_system<T>(n, rng);
    std::vector<T> x(n);
    thomas_reference(n, s.a.data(), s.b.data(), s.c.data(), s.d.data(), x.data());

    // Backward error: |d - A x| / (|A| |x| + |d|), in long double; Thomas on a diagonally
    // dominant matrix is backward stable with a small constant independent of n.
    long double res = 0, anorm = 0, xnorm = 0, dnorm = 0;
    for (index_t r = 0; r < n; ++r) {
      long double ax = (long double)s.b[r] * x[r], rown = std::abs((long double)s.b[r]);
      if (r > 0) { ax += (long double)s.a[r] * x[r - 1]; rown += std::abs((long double)s.a[r]); }
      if (r + 1 < n) { ax += (long double)s.c[r] * x[r + 1]; rown += std::abs((long double)s.c[r]); }
      res = std::max(res, std::abs((long double)s.d[r] - ax));
      anorm = std::max(anorm, rown);
      xnorm = std::max(xnorm, std::abs((long double)x[r]));
      dnorm = std::max(dnorm, std::abs((long double)s.d[r]));
    }
    const double backward = double(res / (anorm * xnorm + dnorm));
    CHECK(backward <= 16 * std::numeric_limits<T>::epsilon());

    if (n <= 257) {  // forward error against dense partial-pivoting elimination (O(n^3))
      const std::vector<long double> xd = dense_solve(s);
      CHECK(rel_error(n, x.data(), xd.data()) <= tol<T>());
    }
  }
}

TEST_CASE_TEMPLATE("thomas_reference solves a known system and allows x to alias d", T, float, double) {
  // [2 1 0; 1 2 1; 0 1 2] x = [4 8 8]  =>  x = [1 2 3]
  const std::vector<T> a{nan_v<T>(), 1, 1}, b{2, 2, 2}, c{1, 1, nan_v<T>()};
  std::vector<T> d{4, 8, 8};
  thomas_reference(index_t(3), a.data(), b.data(), c.data(), d.data(), d.data());
  CHECK(d[0] == doctest::Approx(1.0));
  CHECK(d[1] == doctest::Approx(2.0));
  CHECK(d[2] == doctest::Approx(3.0));
  T x1 = 0, d1 = 6, b1 = 3;
  thomas_reference(index_t(1), &d1, &b1, &d1, &d1, &x1);  // n = 1: a_0, c_0 ignored
  CHECK(x1 == T(2));
}

// ---- 2. PCR and CR ---------------------------------------------------------------------------

TEST_CASE_TEMPLATE("pcr_solve and cr_solve agree with thomas_reference for any n", T, float, double) {
  Rng rng(2);
  std::vector<index_t> lengths;
  for (index_t n = 1; n <= 70; ++n) lengths.push_back(n);
  for (index_t n : {100, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4097}) lengths.push_back(n);
  for (index_t n : lengths) {
    CAPTURE(n);
    const System<T> s = random_system<T>(n, rng);
    std::vector<T> ref(n);
    thomas_reference(n, s.a.data(), s.b.data(), s.c.data(), s.d.data(), ref.data());
    for (int method = 0; method < 2; ++method) {
      CAPTURE(method);  // 0: pcr, 1: cr
      System<T> t = s;  // the solver's own copy, checked afterwards for writes to a, b, c
      // Exactly the advertised workspace (so ASan sees overruns), filled with NaN.
      std::vector<T> work(std::size_t(cyclic_reduction_workspace(n)), nan_v<T>());
      if (method == 0) pcr_solve(n, t.a.data(), t.b.data(), t.c.data(), t.d.data(), work.data());
      else cr_solve(n, t.a.data(), t.b.data(), t.c.data(), t.d.data(), work.data());
      const double err = rel_error(n, t.d.data(), ref.data());
      CHECK_MESSAGE(err <= tol<T>(), "relative error ", err);
      bool unchanged = true;
      for (index_t r = 0; r < n; ++r)
        unchanged = unchanged && same_bits(t.a[r], s.a[r]) && same_bits(t.b[r], s.b[r]) && same_bits(t.c[r], s.c[r]);
      CHECK_MESSAGE(unchanged, "a, b or c was modified");
    }
  }
}

TEST_CASE("pcr_solve and cr_solve do nothing for n = 0") {
  double d = 5, b = 2;
  pcr_solve(index_t(0), &b, &b, &b, &d, static_cast<double*>(nullptr));
  cr_solve(index_t(0), &b, &b, &b, &d, static_cast<double*>(nullptr));
  CHECK(d == 5);
  CHECK(cyclic_reduction_workspace(0) == 0);
}

// ---- 3. the batched solver -------------------------------------------------------------------

TEST_CASE_TEMPLATE("solve_lines with UniformMatrix", T, float, double) {
  Rng rng(3);
  for (index_t len : kLengths) {
    for (const Shape& sh : shapes(len)) {
      const Layout lay = Layout::padded(sh.n);
      const System<T> sys = random_system<T>(len, rng);  // a_0, c_{n-1} are NaN
      const UniformMatrix<T> M(sys.a, sys.b, sys.c);
      auto ref = [&](index_t, T* a, T* b, T* c) {
        std::copy(sys.a.begin(), sys.a.end(), a);
        std::copy(sys.b.begin(), sys.b.end(), b);
        std::copy(sys.c.begin(), sys.c.end(), c);
      };
      check_batched<T>(lay, sh.axis, M, ref, rng, "UniformMatrix");
    }
  }
}

TEST_CASE_TEMPLATE("solve_lines with ArrayCoeffs", T, float, double) {
  Rng rng(4);
  for (index_t len : kLengths) {
    for (const Shape& sh : shapes(len)) {
      const Layout lay = Layout::padded(sh.n);
      const index_t S = lay.size(), s = lay.stride[sh.axis];
      // Coefficient arrays in the layout of the right-hand side; NaN in the padding and in
      // each line's a_0 and c_{n-1}.
      std::vector<T> A(S, nan_v<T>()), B(S, nan_v<T>()), C(S, nan_v<T>());
      for (index_t base : lay.line_bases(sh.axis))
        for (index_t r = 0; r < len; ++r) {
          const index_t o = base + r * s;
          dominant_row(rng, r > 0, r + 1 < len, A[o], B[o], C[o]);
        }
      const ArrayCoeffs<T> M{A.data(), B.data(), C.data()};
      auto ref = [&](index_t base, T* a, T* b, T* c) {
        for (index_t r = 0; r < len; ++r) {
          a[r] = A[base + r * s];
          b[r] = B[base + r * s];
          c[r] = C[base + r * s];
        }
      };
      check_batched<T>(lay, sh.axis, M, ref, rng, "ArrayCoeffs");
    }
  }
}

template <class T, FaceMean Mean>
void check_diffusion(BoundaryKind lo, BoundaryKind hi, std::uint64_t seed) {
  Rng rng(seed);
  const T w = T(2.5);
  for (index_t len : kLengths) {
    for (const Shape& sh : shapes(len)) {
      const Layout lay = Layout::padded(sh.n);
      const index_t S = lay.size(), s = lay.stride[sh.axis];
      std::vector<T> kappa(S, nan_v<T>());
      for (index_t o = 0; o < S; ++o)
        if (!lay.is_padding(o)) kappa[o] = T(rng.uni(0.1, 2.0));
      const DiffusionCoeffs<T, Mean> M{kappa.data(), w, s, len, lo, hi};
      auto ref = [&](index_t base, T* a, T* b, T* c) {
        std::vector<T> k(len);
        for (index_t r = 0; r < len; ++r) k[r] = kappa[base + r * s];
        ref_diffusion_line<T, Mean>(len, k.data(), w, lo, hi, a, b, c);
      };
      const std::string what = std::string("DiffusionCoeffs ") +
                               (Mean == FaceMean::arithmetic ? "arithmetic" : "harmonic") + ", lo " +
                               kind_name(lo) + ", hi " + kind_name(hi);
      check_batched<T>(lay, sh.axis, M, ref, rng, what.c_str());
    }
  }
}

TEST_CASE_TEMPLATE("solve_lines with DiffusionCoeffs", T, float, double) {
  using BK = BoundaryKind;
  check_diffusion<T, FaceMean::arithmetic>(BK::dirichlet, BK::dirichlet, 5);
  check_diffusion<T, FaceMean::arithmetic>(BK::neumann, BK::neumann, 6);
  check_diffusion<T, FaceMean::harmonic>(BK::dirichlet, BK::neumann, 7);
  check_diffusion<T, FaceMean::harmonic>(BK::neumann, BK::dirichlet, 8);
}

// ---- 4. errors and consistency ---------------------------------------------------------------

TEST_CASE_TEMPLATE("UniformMatrix rejects a singular matrix", T, float, double) {
  // Zero first pivot.
  CHECK_THROWS_AS(UniformMatrix<T>({0, 1, 1}, {0, 2, 2}, {1, 1, 0}), tridsim::Error);
  // Zero second pivot: [1 1; 1 1] is singular (1 - 1*1 = 0).
  CHECK_THROWS_AS(UniformMatrix<T>({0, 1}, {1, 1}, {1, 0}), tridsim::Error);
  // Zero last pivot of a 3 x 3: [1 1 0; 1 2 1; 0 1 1], det = 0.
  CHECK_THROWS_AS(UniformMatrix<T>({0, 1, 1}, {1, 2, 1}, {1, 1, 0}), tridsim::Error);
  CHECK_NOTHROW(UniformMatrix<T>({0, 1, 1}, {4, 4, 4}, {1, 1, 0}));
  // Diagonals of different lengths.
  CHECK_THROWS_AS(UniformMatrix<T>({0, 1, 1}, {4, 4}, {1, 1, 0}), tridsim::Error);
  CHECK_THROWS_AS(UniformMatrix<T>({0, 1}, {4, 4}, {1, 1, 0}), tridsim::Error);
  // Empty matrices are harmless.
  CHECK(UniformMatrix<T>({}, {}, {}).size() == 0);
  CHECK(uniform_diffusion_matrix<T>(0, T(1), BoundaryKind::neumann, BoundaryKind::neumann).size() == 0);
}

TEST_CASE_TEMPLATE("solve_lines rejects a matrix source made for other lines", T, float, double) {
  const Layout lay = Layout::padded({6, 4, 3});
  std::vector<T> d(lay.size(), T(1)), kappa(lay.size(), T(1));
  for (int axis = 0; axis < 3; ++axis) {
    CAPTURE(axis);
    const LineSet L = lay.lines(axis);
    const index_t n = L.length(), s = L.axis_stride();
    const auto bc = BoundaryKind::dirichlet;
    for (const LineSolver* solver : cpu_line_solvers()) {
      const Algorithm alg = solver->cpu;
      CHECK_THROWS_AS(solve_lines<T>(L, uniform_diffusion_matrix<T>(n + 1, T(1), bc, bc), d.data(), alg), tridsim::Error);
      CHECK_THROWS_AS(solve_lines<T>(L, uniform_diffusion_matrix<T>(n - 1, T(1), bc, bc), d.data(), alg), tridsim::Error);
      CHECK_THROWS_AS(solve_lines<T>(L, DiffusionCoeffs<T>{kappa.data(), T(1), s, n + 1, bc, bc}, d.data(), alg),
                      tridsim::Error);
      CHECK_THROWS_AS(solve_lines<T>(L, DiffusionCoeffs<T>{kappa.data(), T(1), s + 1, n, bc, bc}, d.data(), alg),
                      tridsim::Error);
      CHECK_NOTHROW(solve_lines<T>(L, DiffusionCoeffs<T>{kappa.data(), T(1), s, n, bc, bc}, d.data(), alg));
    }
  }
}

TEST_CASE_TEMPLATE("uniform_diffusion_matrix matches DiffusionCoeffs with constant kappa", T, float, double) {
  Rng rng(9);
  for (BoundaryKind lo : {BoundaryKind::dirichlet, BoundaryKind::neumann})
    for (BoundaryKind hi : {BoundaryKind::dirichlet, BoundaryKind::neumann})
      for (index_t n : {1, 2, 3, 31}) {
        CAPTURE(n);
        const Layout lay = Layout::padded({n, 5, 1});
        const index_t S = lay.size();
        const T wk = T(0.75);
        std::vector<T> kappa(S, T(1)), d1(S), d2;
        for (index_t o = 0; o < S; ++o) d1[o] = lay.is_padding(o) ? T(0) : T(rng.uni(-1, 1));
        d2 = d1;
        solve_lines<T>(lay.lines(0), uniform_diffusion_matrix<T>(n, wk, lo, hi), d1.data());
        solve_lines<T>(lay.lines(0), DiffusionCoeffs<T>{kappa.data(), wk, 1, n, lo, hi}, d2.data());
        CHECK(rel_error(S, d1.data(), d2.data()) <= tol<T>());
      }
}

TEST_CASE("solve_lines: empty line sets do nothing; a non-unit x stride is an error") {
  std::vector<double> d(10, 1.0);
  const ArrayCoeffs<double> M{d.data(), d.data(), d.data()};
  LineSet empty{{0, 3, 1}, {1, 1, 1}, 0};
  CHECK_NOTHROW(solve_lines<double>(empty, M, d.data()));
  LineSet empty_other{{4, 0, 1}, {1, 4, 4}, 0};
  CHECK_NOTHROW(solve_lines<double>(empty_other, M, d.data()));
  CHECK(std::all_of(d.begin(), d.end(), [](double v) { return v == 1.0; }));
  LineSet strided{{2, 2, 1}, {2, 4, 8}, 1};
  CHECK_THROWS_AS(solve_lines<double>(strided, M, d.data()), tridsim::Error);
}

// ---- 5. cyclic lines ---------------------------------------------------------------------------

// Solve every line of `lay` along `axis` as a cyclic system with M, in place (padding untouched)
// and through functors (each element loaded and stored once); compare with dense elimination of
// each gathered line. rows(base, a, b, c) gives the line's rows, a_0 and c_{n-1} the wrap.
template <class T, class Matrix, class Rows>
void check_cyclic(const Layout& lay, int axis, const Matrix& M, const Rows& rows, Rng& rng, const char* source) {
  const LineSet L = lay.lines(axis);
  const index_t S = lay.size(), n = L.length(), s = L.stride[axis];
  INFO(source, ": ", lay.describe(axis));
  std::vector<T> rhs(S, nan_v<T>());
  for (index_t o = 0; o < S; ++o)
    if (!lay.is_padding(o)) rhs[o] = T(rng.uni(-1, 1));
  std::vector<T> in_place = rhs, out(S, T(-12345.5));
  std::vector<std::atomic<int>> touched(S);
  solve_cyclic_lines<T>(L, M, in_place.data());
  solve_cyclic_lines<T>(
      L, M,
      [&](index_t o, index_t k, T* dst) {
        for (index_t i = 0; i < k; ++i) {
          dst[i] = rhs[o + i];
          touched[o + i].fetch_add(1);  // a load counts 1, a store 16
        }
      },
      [&](index_t o, index_t k, const T* src) {
        for (index_t i = 0; i < k; ++i) {
          out[o + i] = src[i];
          touched[o + i].fetch_add(16);
        }
      });
  double worst = 0;
  for (index_t base : lay.line_bases(axis)) {
    System<T> sys{std::vector<T>(n), std::vector<T>(n), std::vector<T>(n), std::vector<T>(n)};
    rows(base, sys.a.data(), sys.b.data(), sys.c.data());
    for (index_t r = 0; r < n; ++r) sys.d[r] = rhs[base + r * s];
    const std::vector<long double> want = dense_solve(sys, true);
    std::vector<T> got(n), got_out(n);
    for (index_t r = 0; r < n; ++r) {
      got[r] = in_place[base + r * s];
      got_out[r] = out[base + r * s];
    }
    worst = std::max({worst, rel_error(n, got.data(), want.data()), rel_error(n, got_out.data(), want.data())});
  }
  CHECK_MESSAGE(worst <= tol<T>(), "relative error ", worst);
  index_t bad = 0;
  for (index_t o = 0; o < S; ++o)
    if (lay.is_padding(o) ? !same_bits(in_place[o], rhs[o]) || touched[o] != 0 : touched[o] != 17) ++bad;
  CHECK_MESSAGE(bad == 0, bad, " elements not loaded and stored exactly once, or padding touched");
}

TEST_CASE_TEMPLATE("solve_cyclic_lines against dense elimination of the cyclic system", T, float, double) {
  Rng rng(9);
  for (index_t len : {3, 4, 31, 257}) {
    for (const Shape& sh : shapes(len)) {
      const Layout lay = Layout::padded(sh.n);
      System<T> sys = random_system<T>(len, rng);
      T unused;
      dominant_row(rng, true, true, sys.a[0], sys.b[0], unused);  // the wrap-around coefficients too
      dominant_row(rng, true, true, unused, sys.b[len - 1], sys.c[len - 1]);
      const CyclicUniformMatrix<T> U(sys.a, sys.b, sys.c);
      check_cyclic<T>(lay, sh.axis, U, [&](index_t, T* a, T* b, T* c) {
        std::copy(sys.a.begin(), sys.a.end(), a);
        std::copy(sys.b.begin(), sys.b.end(), b);
        std::copy(sys.c.begin(), sys.c.end(), c);
      }, rng, "CyclicUniformMatrix");

      const index_t S = lay.size(), s = lay.stride[sh.axis];
      std::vector<T> A(S, nan_v<T>()), B(S, nan_v<T>()), C(S, nan_v<T>());
      for (index_t base : lay.line_bases(sh.axis))
        for (index_t r = 0; r < len; ++r) dominant_row(rng, true, true, A[base + r * s], B[base + r * s], C[base + r * s]);
      check_cyclic<T>(lay, sh.axis, ArrayCoeffs<T>{A.data(), B.data(), C.data()}, [&](index_t base, T* a, T* b, T* c) {
        for (index_t r = 0; r < len; ++r) {
          a[r] = A[base + r * s];
          b[r] = B[base + r * s];
          c[r] = C[base + r * s];
        }
      }, rng, "ArrayCoeffs");

      // Periodic diffusion rows from node values (arithmetic face means; the face between the
      // last node and the first closes the ring), and cyclic_diffusion_matrix (kappa = 1).
      std::vector<T> K(S, nan_v<T>());
      for (index_t o = 0; o < S; ++o)
        if (!lay.is_padding(o)) K[o] = T(rng.uni(0.5, 2));
      const T w = T(0.8);
      const auto periodic = BoundaryKind::periodic;
      check_cyclic<T>(lay, sh.axis, DiffusionCoeffs<T>{K.data(), w, s, len, periodic, periodic},
                      [&](index_t base, T* a, T* b, T* c) {
                        for (index_t r = 0; r < len; ++r) {
                          const T k = K[base + r * s], km = K[base + ((r + len - 1) % len) * s],
                                  kp = K[base + ((r + 1) % len) * s];
                          a[r] = -w * (k + km) / 2;
                          c[r] = -w * (k + kp) / 2;
                          b[r] = 1 - a[r] - c[r];
                        }
                      }, rng, "periodic DiffusionCoeffs");
      check_cyclic<T>(lay, sh.axis, cyclic_diffusion_matrix<T>(len, w), [&](index_t, T* a, T* b, T* c) {
        std::fill(a, a + len, -w);
        std::fill(b, b + len, 1 + 2 * w);
        std::fill(c, c + len, -w);
      }, rng, "cyclic_diffusion_matrix");
    }
  }
}

// I - w D2 on a periodic line is circulant: the Fourier mode cos(2 pi k r / n) is an eigenvector
// with eigenvalue 1 + 4 w sin^2(pi k / n), so the solution is the mode divided by it.
TEST_CASE_TEMPLATE("solve_cyclic_lines: a Fourier mode of a periodic diffusion line", T, float, double) {
  const T w = T(3.7);
  for (index_t n : {3, 4, 31, 256})
    for (int axis = 0; axis < 3; ++axis) {
      std::array<index_t, 3> shape{3, 2, 2};
      shape[std::size_t(axis)] = n;
      const Layout lay = Layout::dense(shape);
      const CyclicUniformMatrix<T> M(std::vector<T>(n, -w), std::vector<T>(n, 1 + 2 * w), std::vector<T>(n, -w));
      const index_t k = n / 3 + 1, s = lay.stride[axis];
      const long double pi = 3.141592653589793238462643383279502884L;
      const long double eig = 1 + 4 * (long double)w * std::pow(std::sin(pi * k / n), 2);
      std::vector<T> d(lay.size());
      for (index_t base : lay.line_bases(axis))
        for (index_t r = 0; r < n; ++r) d[base + r * s] = T(std::cos(2 * pi * k * r / n));
      solve_cyclic_lines<T>(lay.lines(axis), M, d.data());
      double worst = 0;
      for (index_t base : lay.line_bases(axis))
        for (index_t r = 0; r < n; ++r)
          worst = std::max(worst, double(std::abs(d[base + r * s] - std::cos(2 * pi * k * r / n) / eig)));
      INFO("n = ", n, ", axis ", axis);
      CHECK(worst <= tol<T>());
    }
}

TEST_CASE("solve_cyclic_lines: lines shorter than 3 and a matrix of another length are errors") {
  const Layout lay = Layout::dense({5, 2, 1});
  std::vector<double> d(lay.size(), 1.0);
  const CyclicUniformMatrix<double> M(std::vector<double>(4, -1), std::vector<double>(4, 3), std::vector<double>(4, -1));
  CHECK_THROWS_WITH_AS(solve_cyclic_lines<double>(lay.lines(0), M, d.data()),
                       "cyclic tridiagonal solver: the matrix has 4 rows but the lines have length 5", Error);
  CHECK_THROWS_WITH_AS(solve_cyclic_lines<double>(lay.lines(1), M, d.data()),
                       "cyclic tridiagonal solver: periodic lines need at least 3 points, not 2", Error);
  CHECK_THROWS_AS(CyclicUniformMatrix<double>({1, 1}, {2, 2}, {1, 1}), Error);
}
