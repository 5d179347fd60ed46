#pragma once
// Test helper shared by the CPU and GPU tests of lines split over ranks: node values that depend
// only on the global node, random diagonally dominant rows from them, the grids (awkward sizes) and
// a loop over every axis the world's ranks can split.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <vector>

#include "core/decomposition.hpp"
#include "core/domain.hpp"

namespace tridsim::testing {

// A value in [-1, 1) that depends only on the global node and which coefficient it is.
inline double noise(index_t node, int which) {
  unsigned long long x = (unsigned long long)(node) * 0x9E3779B97F4A7C15ULL + (unsigned long long)(which + 1) * 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBULL;
  x ^= x >> 29;
  return double(x % 2000003ULL) / 1000001.5 - 1.0;
}

// Row and right-hand side of node (gi, gj, gk) of the lines along `axis` (a = 0 at a whole line's
// first row, c = 0 at its last).
template <class T>
void row_at(const Grid& g, int axis, index_t gi, index_t gj, index_t gk, T& a, T& b, T& c, T& d) {
  const index_t node = g.index(gi, gj, gk), pos = axis == 0 ? gi : axis == 1 ? gj : gk;
  a = pos > 0 ? T(noise(node, 0)) : T(0);
  c = pos + 1 < g.n[axis] ? T(noise(node, 1)) : T(0);
  b = T(std::abs(double(a)) + std::abs(double(c)) + 0.5 + std::abs(noise(node, 2)));
  d = T(noise(node, 3));
}

inline const std::vector<Grid> kSplitGrids = [] {
  std::vector<Grid> grids;
  // (the last two: segments of more than 256 rows on up to 4 ranks, recovered on the GPU as lines of their own)
  for (const auto& n : {std::array<index_t, 3>{23, 1, 1}, {17, 10, 1}, {13, 11, 9}, {8, 9, 70}, {130, 5, 4},
                        {1030, 4, 3}, {4, 3, 1030}}) {
    Grid g;
    g.dim = n[2] > 1 ? 3 : n[1] > 1 ? 2 : 1;
    g.n = n;
    grids.push_back(g);
  }
  return grids;
}();

// fn(grid, axis, domain) for each axis of each grid that the world's ranks can split, all of them along it.
template <class Fn>
void for_each_split_axis(Fn&& fn) {
  for (const Grid& g : kSplitGrids)
    for (int axis = 0; axis < g.dim; ++axis) {
      std::array<int, 3> ranks{1, 1, 1};
      ranks[axis] = world_size();
      if (!process_grid_problem(g, ranks).empty()) continue;
      CAPTURE(g.n[0]);
      CAPTURE(g.n[1]);
      CAPTURE(g.n[2]);
      CAPTURE(axis);
      fn(g, axis, Domain(g, ranks));
    }
}

}  // namespace tridsim::testing
