#pragma once
// How a grid is split over a process grid (namespace tridsim): pure arithmetic, no communication
// (core/domain.hpp does that). Along each axis the nodes are dealt out in contiguous, balanced
// ranges (the first n % p ranks own one node more). A rank's local box is its owned nodes plus one
// halo node on each side where a neighbour rank owns the next node, so a module's local arrays are
// dense x-fastest arrays over the local grid, whose coordinates are those of the whole grid.
#include <array>
#include <string>

#include "core/grid.hpp"
#include "core/types.hpp"

namespace tridsim {

struct AxisSplit {
  index_t global_n = 1;  // nodes along the axis in the whole grid
  index_t first = 0;     // global index of the first owned node
  index_t owned = 1;     // owned nodes
  int halo_lo = 0, halo_hi = 0;  // 1 where a neighbour rank owns the node below / above

  index_t local_n() const { return owned + halo_lo + halo_hi; }
  index_t local_first() const { return first - halo_lo; }  // global index of local node 0
};

struct Decomposition {
  Grid global;
  std::array<int, 3> ranks{1, 1, 1};   // the process grid
  std::array<int, 3> coords{0, 0, 0};  // this rank's place in it
  std::array<AxisSplit, 3> axes;

  bool distributed() const { return ranks[0] * ranks[1] * ranks[2] > 1; }
  bool split(int axis) const { return ranks[axis] > 1; }
  // The local box as a grid: owned nodes and halos, at the whole grid's coordinates.
  Grid local() const;
  // Is the local node (i, j, k) one of this rank's own (not a halo)?
  bool owns(index_t i, index_t j, index_t k) const;
  // The rank next to this one along `axis` (side 0: below, 1: above); -1 where there is none.
  int neighbour(int axis, int side) const;
};

// The nodes of axis n dealt to part p of `parts` (balanced, contiguous).
AxisSplit split_axis(index_t n, int parts, int p);

// The rank at `coords` of process grid `ranks`: numbered x-fastest, like grid nodes.
inline int process_rank(const std::array<int, 3>& ranks, const std::array<int, 3>& coords) {
  return coords[0] + ranks[0] * (coords[1] + ranks[1] * coords[2]);
}

// Rank (px, py, pz) of a process grid: ranks are numbered x-fastest, like grid nodes.
Decomposition decompose(const Grid& g, const std::array<int, 3>& ranks, const std::array<int, 3>& coords);

// A process grid for `size` ranks over g: every axis split at most into as many parts as leave
// each rank two nodes, the fewest interface nodes, and x (the contiguous axis) split last.
// Returns {0,0,0} when no such grid exists.
std::array<int, 3> balanced_process_grid(const Grid& g, int size);

// Why `ranks` cannot split g ("" if it can): each rank needs at least two nodes along a split axis.
std::string process_grid_problem(const Grid& g, const std::array<int, 3>& ranks);

}  // namespace tridsim
