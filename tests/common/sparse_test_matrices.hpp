#pragma once
// Random test matrices for the sparse direct solver's tests (CPU and GPU): symmetric positive
// definite StencilMatrix values on any GridPattern, random vectors, residuals.
#include <cmath>
#include <random>
#include <vector>

#include "solvers/sparse_direct/stencil_matrix.hpp"

namespace tridsim::sparse::testing {

// A symmetric positive definite matrix on the pattern: a variable-coefficient diffusion operator
// (random positive couplings, diagonally dominant) with random symmetric couplings between dofs.
template <class T>
StencilMatrix<T> random_spd(const GridPattern& p, unsigned seed) {
  StencilMatrix<T> a(p);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> w(0.1, 1.0);
  const int d = p.dofs, no = int(a.offsets.size());
  // couplings between node and neighbour, symmetric: set the pair once (neighbour > node)
  for (index_t node = 0; node < p.nodes(); ++node)
    for (int o = 1; o < no; ++o) {
      const index_t nb = a.neighbour(node, o);
      if (nb <= node) continue;
      int back = 0;
      for (int q = 0; q < no; ++q)
        if (a.offsets[q][0] == -a.offsets[o][0] && a.offsets[q][1] == -a.offsets[o][1] &&
            a.offsets[q][2] == -a.offsets[o][2])
          back = q;
      for (int r = 0; r < d; ++r)
        for (int c = 0; c < d; ++c) {
          const T v = T(-w(gen));
          a.block(node, o)[r * d + c] = v;
          a.block(nb, back)[c * d + r] = v;
        }
    }
  for (index_t node = 0; node < p.nodes(); ++node) {
    for (int r = 0; r < d; ++r) {
      double sum = 0;
      for (int o = 1; o < no; ++o)
        for (int c = 0; c < d; ++c) sum += std::abs(double(a.block(node, o)[r * d + c]));
      a.block(node, 0)[r * d + r] = T(sum + 0.5);
    }
    for (int r = 0; r < d; ++r)
      for (int c = r + 1; c < d; ++c) a.block(node, 0)[r * d + c] = a.block(node, 0)[c * d + r] = T(0.1);
  }
  return a;
}

template <class T>
std::vector<T> random_vector(index_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (T& x : v) x = T(u(gen));
  return v;
}

double relative_residual(const StencilMatrix<double>& a, const std::vector<double>& x, const std::vector<double>& b) {
  std::vector<double> r(b.size());
  a.residual(x.data(), b.data(), r.data());
  double rr = 0, bb = 0;
  for (std::size_t i = 0; i < b.size(); ++i) rr += r[i] * r[i], bb += b[i] * b[i];
  return std::sqrt(rr / bb);
}

GridPattern grid(int dim, index_t nx, index_t ny, index_t nz, int dofs, Stencil s) {
  GridPattern p;
  p.dim = dim;
  p.n = {nx, ny, nz};
  p.dofs = dofs;
  p.stencil = s;
  return p;
}


}  // namespace tridsim::sparse::testing
