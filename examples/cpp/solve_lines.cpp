// tridsim as a library: solve every line along y of a 2-D grid with the batched CPU tridiagonal
// solver, once with coefficients stored per node and once with one matrix shared by every line,
// and compare with a known solution. Build it against an installed tridsim (CMakeLists.txt here):
//   cmake -S examples/cpp -B build-example -DCMAKE_PREFIX_PATH=PREFIX && cmake --build build-example
//   build-example/solve_lines
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "core/grid.hpp"                    // tridsim::Grid
#include "solvers/tridiagonal/batched.hpp"  // solve_lines, LineSet, UniformMatrix, ArrayCoeffs

namespace tridiag = tridsim::tridiag;
using tridsim::index_t;

int main() {
  // 1. A grid of 97 x 61 nodes on [0, 1]^2. Arrays over it are x-fastest: node (i, j) at i + nx*j.
  tridsim::Grid grid;
  grid.dim = 2;
  grid.n = {97, 61, 1};
  const index_t nx = grid.n[0], ny = grid.n[1];
  const tridiag::LineSet lines = tridiag::LineSet::dense(grid, 1);  // the nx lines along y (axis 1)

  // 2. A known solution, and the right-hand side d = A x of each line, where row r of a line reads
  //    a_r x_{r-1} + b_r x_r + c_r x_{r+1} = d_r. coef(o, r) gives (a_r, b_r, c_r) at node o.
  std::vector<double> exact(grid.size());
  for (index_t j = 0; j < ny; ++j)
    for (index_t i = 0; i < nx; ++i)
      exact[grid.index(i, j, 0)] = std::sin(3 * grid.coord(0, i)) * std::cos(2 * grid.coord(1, j));
  auto multiply = [&](auto coef) {
    std::vector<double> d(grid.size());
    for (index_t j = 0; j < ny; ++j)
      for (index_t i = 0; i < nx; ++i) {
        const index_t o = grid.index(i, j, 0);  // neighbours along y: o - nx, o + nx
        const auto [a, b, c] = coef(o, j);
        d[o] = b * exact[o] + (j > 0 ? a * exact[o - nx] : 0.0) + (j + 1 < ny ? c * exact[o + nx] : 0.0);
      }
    return d;
  };
  auto max_error = [&](const std::vector<double>& u) {
    double e = 0;
    for (std::size_t o = 0; o < u.size(); ++o) e = std::max(e, std::abs(u[o] - exact[o]));
    return e;
  };

  // 3. Coefficients stored per node, in the layout of d. a at a line's first row and c at its last
  //    are never used (NaN here to show it). Diagonally dominant rows: Thomas does not pivot.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> a(grid.size()), b(grid.size()), c(grid.size());
  for (index_t j = 0; j < ny; ++j)
    for (index_t i = 0; i < nx; ++i) {
      const index_t o = grid.index(i, j, 0);
      const double x = grid.coord(0, i), y = grid.coord(1, j);
      a[o] = j > 0 ? -1 - x : nan;
      b[o] = 4 + x + y;
      c[o] = j + 1 < ny ? -1 + y / 2 : nan;
    }
  std::vector<double> u = multiply([&](index_t o, index_t) { return std::array{a[o], b[o], c[o]}; });
  tridiag::solve_lines<double>(lines, tridiag::ArrayCoeffs<double>{a.data(), b.data(), c.data()}, u.data());
  const double error_arrays = max_error(u);  // u held d on entry, holds the solution now

  // 4. One matrix for every line, tridiag(-1, 3, -1) of ny rows: factored once, then each solve
  //    streams only d and x.
  const tridiag::UniformMatrix<double> A(std::vector<double>(ny, -1.0), std::vector<double>(ny, 3.0),
                                         std::vector<double>(ny, -1.0));
  u = multiply([](index_t, index_t) { return std::array{-1.0, 3.0, -1.0}; });
  tridiag::solve_lines<double>(lines, A, u.data());
  const double error_uniform = max_error(u);

  std::printf("%td lines of %td rows: max error %.2e (stored coefficients), %.2e (uniform matrix)\n",
              lines.count(), lines.length(), error_arrays, error_uniform);
  const bool ok = error_arrays < 1e-12 && error_uniform < 1e-12;  // false for NaN too
  if (!ok) std::printf("FAIL: the error should be at rounding level\n");
  return ok ? 0 : 1;
}
