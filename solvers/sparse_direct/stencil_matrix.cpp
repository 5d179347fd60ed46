#include "solvers/sparse_direct/stencil_matrix.hpp"

#include <algorithm>

namespace tridsim::sparse {

int GridPattern::offsets() const {
  int k = 1;
  for (int a = 0; a < dim; ++a) k = stencil == Stencil::star ? k + 2 : k * 3;
  return k;
}

std::vector<std::array<int, 3>> stencil_offsets(const GridPattern& p) {
  std::vector<std::array<int, 3>> out{{0, 0, 0}};
  const int rz = p.dim > 2, ry = p.dim > 1;
  for (int dz = -rz; dz <= rz; ++dz)
    for (int dy = -ry; dy <= ry; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int away = (dx != 0) + (dy != 0) + (dz != 0);
        if (away == 0 || (p.stencil == Stencil::star && away > 1)) continue;
        out.push_back({dx, dy, dz});
      }
  return out;
}

template <class T>
StencilMatrix<T>::StencilMatrix(const GridPattern& p)
    : pattern(p), offsets(stencil_offsets(p)), values(std::size_t(p.nodes()) * offsets.size() * p.dofs * p.dofs, T(0)) {}

template <class T>
index_t StencilMatrix<T>::neighbour(index_t node, int o) const {
  const auto& n = pattern.n;
  const index_t i = node % n[0], j = (node / n[0]) % n[1], k = node / (n[0] * n[1]);
  const index_t a = i + offsets[o][0], b = j + offsets[o][1], c = k + offsets[o][2];
  if (a < 0 || a >= n[0] || b < 0 || b >= n[1] || c < 0 || c >= n[2]) return -1;
  return a + n[0] * (b + n[1] * c);  // x-fastest
}

namespace {
// acc[r] += sum over the stencil of block(node, o) * x(neighbour): one row block of A x.
template <class T>
void row_block(const StencilMatrix<T>& a, const T* x, index_t node, double* acc) {
  const int d = a.pattern.dofs;
  for (int o = 0; o < int(a.offsets.size()); ++o) {
    const index_t w = a.neighbour(node, o);
    if (w < 0) continue;
    const T* blk = a.block(node, o);
    for (int r = 0; r < d; ++r)
      for (int c = 0; c < d; ++c) acc[r] += double(blk[r * d + c]) * double(x[w * d + c]);
  }
}
}  // namespace

template <class T>
void StencilMatrix<T>::multiply(const T* x, T* y) const {
  const int d = pattern.dofs;
#pragma omp parallel for schedule(static)
  for (index_t node = 0; node < pattern.nodes(); ++node) {
    double acc[8] = {};
    row_block(*this, x, node, acc);
    for (int r = 0; r < d; ++r) y[node * d + r] = T(acc[r]);
  }
}

template <class T>
void StencilMatrix<T>::residual(const T* x, const T* b, double* r) const {
  const int d = pattern.dofs;
#pragma omp parallel for schedule(static)
  for (index_t node = 0; node < pattern.nodes(); ++node) {
    double acc[8] = {};
    row_block(*this, x, node, acc);
    for (int q = 0; q < d; ++q) r[node * d + q] = double(b[node * d + q]) - acc[q];
  }
}

template <class T>
void StencilMatrix<T>::to_csr(std::vector<index_t>& row_start, std::vector<index_t>& column,
                              std::vector<T>& value) const {
  const int d = pattern.dofs;
  row_start.assign(std::size_t(pattern.unknowns()) + 1, 0);
  column.clear();
  value.clear();
  std::vector<std::pair<index_t, T>> row;
  for (index_t node = 0; node < pattern.nodes(); ++node)
    for (int r = 0; r < d; ++r) {
      row.clear();
      for (int o = 0; o < int(offsets.size()); ++o) {
        const index_t w = neighbour(node, o);
        if (w < 0) continue;
        for (int c = 0; c < d; ++c) row.push_back({w * d + c, block(node, o)[r * d + c]});
      }
      std::sort(row.begin(), row.end(), [](const auto& p, const auto& q) { return p.first < q.first; });
      for (const auto& [col, v] : row) {
        column.push_back(col);
        value.push_back(v);
      }
      row_start[node * d + r + 1] = index_t(column.size());
    }
}

template struct StencilMatrix<float>;
template struct StencilMatrix<double>;

}  // namespace tridsim::sparse
