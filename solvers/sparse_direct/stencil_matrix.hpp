#pragma once
// Sparse matrices on structured grids (namespace tridsim::sparse): the pattern the sparse direct
// solver orders and factors, and the matrix values it reads.
//
// A GridPattern is a box of nodes, x fastest (node = i + n0*(j + n1*k)), with `dofs` unknowns per
// node (unknown = dof + dofs*node) coupled to the nodes of a stencil: `star` (3/5/7 points: finite
// differences) or `box` (3^dim points: bilinear / trilinear elements). A StencilMatrix holds, for
// every node and stencil offset, the dofs x dofs block coupling the node's unknowns (rows) to the
// neighbour's (columns); blocks that reach outside the box are ignored. Symmetric operators fill
// both sides; the Cholesky factorization reads the lower triangle.
#include <array>
#include <vector>

#include "core/host_device.hpp"
#include "core/types.hpp"

namespace tridsim::sparse {

enum class Stencil { star, box };

struct GridPattern {
  int dim = 2;                          // 1..3; unused axes have n = 1
  std::array<index_t, 3> n{1, 1, 1};    // nodes per axis
  int dofs = 1;                         // unknowns per node
  Stencil stencil = Stencil::star;

  index_t nodes() const { return n[0] * n[1] * n[2]; }
  index_t unknowns() const { return nodes() * dofs; }
  int offsets() const;                  // stencil points, the centre first
};

// The stencil's offsets (dx, dy, dz), the centre first, then in increasing linear offset.
std::vector<std::array<int, 3>> stencil_offsets(const GridPattern& p);

template <class T>
struct StencilMatrix {
  GridPattern pattern;
  std::vector<std::array<int, 3>> offsets;  // stencil_offsets(pattern)
  std::vector<T> values;  // [node][offset][row dof][column dof]

  explicit StencilMatrix(const GridPattern& p);
  index_t block_size() const { return index_t(pattern.dofs) * pattern.dofs; }
  T* block(index_t node, int offset) { return values.data() + (node * index_t(offsets.size()) + offset) * block_size(); }
  const T* block(index_t node, int offset) const {
    return values.data() + (node * index_t(offsets.size()) + offset) * block_size();
  }
  // The neighbour of `node` at offsets[o], or -1 outside the box.
  index_t neighbour(index_t node, int o) const;

  // y = A x (unknown order); accumulates in double.
  void multiply(const T* x, T* y) const;
  // r = b - A x in double: the residual iterative refinement needs.
  void residual(const T* x, const T* b, double* r) const;
  // Compressed sparse rows of the whole matrix (both triangles), for the baselines and checks.
  void to_csr(std::vector<index_t>& row_start, std::vector<index_t>& column, std::vector<T>& value) const;
};

}  // namespace tridsim::sparse
