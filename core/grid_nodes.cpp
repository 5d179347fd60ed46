#include "core/grid_nodes.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/deck.hpp"
#include "core/errors.hpp"

namespace tridsim {

const char* axis_nodes_key(int axis) {
  static const char* const keys[3] = {"x", "y", "z"};
  return keys[axis];
}

std::vector<double> read_axis_nodes(const DeckNode& g, int axis, index_t n, double lo, double hi,
                                    const Constants& constants, double min_spacing) {
  const char* key = axis_nodes_key(axis);
  std::vector<double> x;
  if (g.is_list(key)) {
    x = g.get<std::vector<double>>(key);
    if (index_t(x.size()) != n)
      g.fail(key, fmt::format("expected {} node coordinates (grid.n on axis {}), got {}", n, axis, x.size()));
  } else {
    if (!g.is_text(key))
      g.fail(key, fmt::format("expected a list of {} node coordinates or an expression of {} (a mapping of the "
                              "uniform coordinate on [lo, hi]), e.g. \"0.5 + 0.5*tanh(2*(2*{}-1))/tanh(2)\"",
                              n, key, key));
    const Expression map = Expression::from_deck(g, key, constants);
    if (map.uses_time()) g.fail(key, "a mapping of the grid cannot depend on time t");
    x.resize(std::size_t(n));
    const double step = (hi - lo) / double(n - 1);
    for (index_t i = 0; i < n; ++i) {
      double xyz[3] = {0, 0, 0};
      xyz[axis] = i == n - 1 ? hi : lo + double(i) * step;
      x[std::size_t(i)] = map(xyz[0], xyz[1], xyz[2], 0.0);
    }
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) g.fail(key, fmt::format("node {} has coordinate {}: must be finite", i, x[i]));
    if (i > 0 && !(x[i] > x[i - 1]))
      g.fail(key, fmt::format("node coordinates must increase strictly: node {} is at {} and node {} at {}", i - 1,
                              x[i - 1], i, x[i]));
    if (i > 0 && !(x[i] - x[i - 1] >= min_spacing))
      g.fail(key, fmt::format("nodes {} and {} are {:.3g} apart: every spacing must be at least {:.3g} (the stencils' "
                              "1/h^2 must be a normal number)",
                              i - 1, i, x[i] - x[i - 1], min_spacing));
  }
  return x;
}

}  // namespace tridsim
