#pragma once
// A uniform, vertex-centred grid of 1, 2 or 3 dimensions (namespace tridsim). Nodes include the
// boundary: x_i = lo + i*h, i = 0..n-1, h = (hi-lo)/(n-1). Along a periodic axis hi - lo is the
// period and the n nodes are distinct: h = (hi-lo)/n, the last node at hi - h, node n the image of
// node 0 (not stored). A stretched axis (not periodic) lists its node coordinates instead:
// x_i = nodes[a][i], strictly increasing, lo and hi its first and last; h(a) is for uniform axes only
// (code that needs a uniform spacing refuses a stretched axis). Arrays over the grid are x-fastest:
// the value of node (i,j,k) sits at index i + nx*(j + ny*k). Unused axes have n = 1.
#include <algorithm>
#include <array>
#include <vector>

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
  // Node coordinates of each stretched axis (n[a] values); empty on a uniform axis.
  std::array<std::vector<double>, 3> nodes;

  bool stretched(int axis) const { return !nodes[axis].empty(); }
  bool any_stretched() const { return stretched(0) || stretched(1) || stretched(2); }

  index_t size() const { return n[0] * n[1] * n[2]; }
  double h(int axis) const {
    if (periodic[axis]) return (hi[axis] - lo[axis]) / double(n[axis]);
    return n[axis] > 1 ? (hi[axis] - lo[axis]) / double(n[axis] - 1) : 0.0;
  }
  double coord(int axis, index_t i) const {
    return stretched(axis) ? nodes[axis][std::size_t(i)] : lo[axis] + double(i) * h(axis);
  }
  // The smallest and largest spacing between neighbouring nodes on `axis` (h(a) for a uniform one).
  double min_spacing(int axis) const { return extreme_spacing(axis, true); }
  double max_spacing(int axis) const { return extreme_spacing(axis, false); }
  // Index of node (i,j,k), x-fastest.
  index_t index(index_t i, index_t j, index_t k) const { return i + n[0] * (j + n[1] * k); }
  // Element strides of a dense x-fastest array over this grid.
  std::array<index_t, 3> strides() const { return {1, n[0], n[0] * n[1]}; }

 private:
  double extreme_spacing(int axis, bool smallest) const {
    if (!stretched(axis) || n[axis] < 2) return h(axis);
    const auto& x = nodes[axis];
    double e = x[1] - x[0];
    for (std::size_t i = 2; i < x.size(); ++i) e = smallest ? std::min(e, x[i] - x[i - 1]) : std::max(e, x[i] - x[i - 1]);
    return e;
  }
};

}  // namespace tridsim
