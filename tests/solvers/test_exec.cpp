// The host executor of the backend-generic layer (solvers/exec/host.hpp): for_each_point calls its
// functor once at every node with the node's mirrored neighbour offsets and the grid's dimension,
// and exec::sweep with point loads and stores (which the executor calls across runs, cut at the
// box faces) solves every line as the reference Thomas solver does on the same right-hand sides,
// along each axis of 1-, 2- and 3-D grids of awkward sizes.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "solvers/exec/host.hpp"
#include "solvers/tridiagonal/thomas_reference.hpp"

using namespace tridsim;

namespace {

Grid grid_of(int dim, std::array<index_t, 3> n) {
  Grid g;
  g.dim = dim;
  g.n = n;
  return g;
}

const std::vector<Grid> kGrids = {grid_of(1, {7, 1, 1}), grid_of(2, {5, 4, 1}), grid_of(3, {3, 4, 5}),
                                  grid_of(3, {67, 2, 3}), grid_of(2, {2, 131, 1})};

// The offsets as the layer promises them, from (i, j, k) directly.
index_t minus_of(index_t p, index_t s) { return p > 0 ? -s : s; }
index_t plus_of(index_t p, index_t n, index_t s) { return p + 1 < n ? s : -s; }

struct Visit {
  int* count;
  exec::Neighbours* seen;
  int* dims;
  template <class Dim>
  void operator()(index_t o, const exec::Neighbours& nb, Dim dim) const {
    ++count[o];
    seen[o] = nb;
    dims[o] = int(dim);
  }
};

// A right-hand side that reads neighbours: u at o and along each axis' plus neighbour.
struct NeighbourLoad {
  const double* u;
  template <class Dim>
  double operator()(index_t o, const exec::Neighbours& nb, Dim dim) const {
    double s = u[o];
    for (int a = 0; a < int(dim); ++a) s += 0.5 * u[o + nb.plus[a]] - 0.25 * u[o + nb.minus[a]];
    return s;
  }
};
struct DoubleStore {
  double* out;
  void operator()(index_t o, double x) const { out[o] = 2 * x; }
};

}  // namespace

TEST_CASE("host for_each_point visits every node once with its mirrored neighbours") {
  for (const Grid& g : kGrids) {
    const exec::HostExec<double> ex(g, nullptr, {});
    const index_t N = g.size();
    std::vector<int> count(N, 0), dims(N, 0);
    std::vector<exec::Neighbours> seen(N);
    ex.for_each_point(Visit{count.data(), seen.data(), dims.data()});
    for (index_t k = 0; k < g.n[2]; ++k)
      for (index_t j = 0; j < g.n[1]; ++j)
        for (index_t i = 0; i < g.n[0]; ++i) {
          const index_t o = g.index(i, j, k), ijk[3] = {i, j, k};
          CHECK(count[o] == 1);
          CHECK(dims[o] == g.dim);
          for (int a = 0; a < g.dim; ++a) {
            const index_t s = g.strides()[a];
            CHECK(seen[o].minus[a] == minus_of(ijk[a], s));
            CHECK(seen[o].plus[a] == plus_of(ijk[a], g.n[a], s));
          }
        }
  }
}

TEST_CASE("host sweep with point loads and stores matches the reference solver") {
  for (const Grid& g : kGrids)
    for (int axis = 0; axis < g.dim; ++axis) {
      CAPTURE(g.n[0]); CAPTURE(g.n[1]); CAPTURE(g.n[2]); CAPTURE(axis);
      const index_t N = g.size(), n = g.n[axis], s = g.strides()[axis];
      std::vector<double> u(N), out(N, 0.0);
      for (index_t o = 0; o < N; ++o) u[o] = std::sin(0.37 * double(o) + 0.1);
      std::vector<double> A(N), B(N), C(N);  // rows that differ from node to node
      for (index_t o = 0; o < N; ++o) {
        const index_t r = (o / s) % n;
        A[o] = r > 0 ? -1 - 0.3 * std::cos(double(o)) : 0.0;
        B[o] = 4 + 0.2 * std::sin(double(o));
        C[o] = r + 1 < n ? -1.5 : 0.0;
      }
      const exec::HostExec<double> ex(g, nullptr, {});
      exec::sweep(ex, axis, [&](int, index_t) { return tridiag::ArrayCoeffs<double>{A.data(), B.data(), C.data()}; },
                  NeighbourLoad{u.data()}, DoubleStore{out.data()});
      double worst = 0;
      for (index_t k = 0; k < g.n[2]; ++k)
        for (index_t j = 0; j < g.n[1]; ++j)
          for (index_t i = 0; i < g.n[0]; ++i) {
            const index_t ijk[3] = {i, j, k};
            if (ijk[axis] != 0) continue;  // one line from its first node
            const index_t o0 = g.index(i, j, k);
            std::vector<double> a(n), b(n), c(n), d(n), x(n);
            for (index_t r = 0; r < n; ++r) {
              index_t p[3] = {i, j, k};
              p[axis] = r;
              const index_t o = o0 + r * s;
              a[r] = A[o], b[r] = B[o], c[r] = C[o];
              double v = u[o];
              for (int e = 0; e < g.dim; ++e) {
                const index_t se = g.strides()[e];
                v += 0.5 * u[o + plus_of(p[e], g.n[e], se)] - 0.25 * u[o + minus_of(p[e], se)];
              }
              d[r] = v;
            }
            tridiag::thomas_reference(n, a.data(), b.data(), c.data(), d.data(), x.data());
            for (index_t r = 0; r < n; ++r) worst = std::max(worst, std::abs(out[o0 + r * s] - 2 * x[r]));
          }
      CHECK(worst < 1e-13);
    }
}
