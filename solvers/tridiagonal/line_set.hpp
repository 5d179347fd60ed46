#pragma once
// The set of all lines along one axis of a 1-, 2- or 3-D x-fastest array (namespace
// tridsim::tridiag). Element (i,j,k) sits at offset i*stride[0] + j*stride[1] + k*stride[2];
// stride[0] is 1 (x is contiguous) and stride[1] >= n[0], stride[2] >= n[1]*stride[1] allow
// padding.
#include <array>

#include "core/grid.hpp"
#include "core/host_device.hpp"
#include "core/types.hpp"

namespace tridsim::tridiag {

struct LineSet {
  std::array<index_t, 3> n{1, 1, 1};
  std::array<index_t, 3> stride{1, 1, 1};
  int axis = 0;

  index_t length() const { return n[axis]; }
  index_t count() const { return n[0] * n[1] * n[2] / n[axis]; }
  index_t axis_stride() const { return stride[axis]; }

  // Lines along `axis` of a dense array over `grid`.
  static LineSet dense(const Grid& grid, int axis) { return LineSet{grid.n, grid.strides(), axis}; }
};

// The node (i, j, k) of row r of line q of a dense LineSet along `axis` over n0 x n1 x n2 nodes
// (the line-solver functors' (offset, line, row) back in grid indices; fewer than 2^32 lines).
TRIDSIM_HOST_DEVICE inline void line_node(int axis, index_t n0, index_t n1, index_t q, index_t r, index_t& i,
                                          index_t& j, index_t& k) {
  const unsigned across = unsigned(axis == 0 ? n1 : n0);
  const index_t first = unsigned(q) % across, second = unsigned(q) / across;
  i = axis == 0 ? r : first;
  j = axis == 0 ? first : axis == 1 ? r : second;
  k = axis == 2 ? r : second;
}

// Selectable line algorithms (the CPU batched solver uses Thomas for speed; PCR and CR are
// alternatives with more parallelism per line and more work).
enum class Algorithm { thomas, pcr, cr };

}  // namespace tridsim::tridiag
