#pragma once
// A uniform, vertex-centred grid of 1, 2 or 3 dimensions (namespace tridsim). Nodes include the
// boundary: x_i = lo + i*h, i = 0..n-1, h = (hi-lo)/(n-1). Along a periodic axis hi - lo is the
// period and the n nodes are distinct: h = (hi-lo)/n, the last node at hi - h, node n the image of
// node 0 (not stored). Arrays over the grid are x-fastest: the value of node (i,j,k) sits at index
// i + nx*(j + ny*k). Unused axes have n = 1.
#include <array>

#include "core/types.hpp"

namespace tridsim {

struct Grid {
  int dim = 1;
  std::array<index_t, 3> n{1, 1, 1};
  std::array<double, 3> lo{0, 0, 0};
  std::array<double, 3> hi{1, 1, 1};
  // The whole grid's index of node (0, 0, 0): nonzero only for a rank's box of a grid split over
  // ranks (core/decomposition), so that messages name nodes as the user's grid numbers them.
  std::array<index_t, 3> first{0, 0, 0};
  std::array<bool, 3> periodic{false, false, false};

  index_t size() const { return n[0] * n[1] * n[2]; }
  double h(int axis) const {
    if (periodic[axis]) return (hi[axis] - lo[axis]) / double(n[axis]);
    return n[axis] > 1 ? (hi[axis] - lo[axis]) / double(n[axis] - 1) : 0.0;
  }
  double coord(int axis, index_t i) const { return lo[axis] + double(i) * h(axis); }
  // Index of node (i,j,k), x-fastest.
  index_t index(index_t i, index_t j, index_t k) const { return i + n[0] * (j + n[1] * k); }
  // Element strides of a dense x-fastest array over this grid.
  std::array<index_t, 3> strides() const { return {1, n[0], n[0] * n[1]}; }
};

}  // namespace tridsim
