#pragma once
// A stretched axis from the deck (namespace tridsim): grid.x, grid.y or grid.z gives the axis's node
// coordinates, either as a list of n numbers or as an expression of the axis's own variable (x, y
// or z) evaluated at the n uniform nodes of [lo, hi] (a mapping of the uniform coordinate, e.g.
// tanh clustering toward the walls). Either way the coordinates must be finite and strictly
// increasing; the axis then spans the first to the last of them.
#include <vector>

#include "core/expression.hpp"
#include "core/types.hpp"

namespace tridsim {

class DeckNode;

// The deck key naming axis a's node coordinates: "x", "y" or "z".
const char* axis_nodes_key(int axis);
// The node coordinates of `axis` from grid.<x|y|z> of the grid section `g` (n nodes, the uniform
// coordinate running over [lo, hi] for a mapping); a DeckError at that key when they are not n
// finite, strictly increasing numbers whose spacings are usable (each at least `min_spacing`).
std::vector<double> read_axis_nodes(const DeckNode& g, int axis, index_t n, double lo, double hi,
                                    const Constants& constants, double min_spacing);

}  // namespace tridsim
