#pragma once
// The grid of a deck's `grid:` section (n; lo and hi default to 0 and 1), for tests that run the
// example decks as they are.
#include <vector>

#include "core/deck.hpp"
#include "core/grid.hpp"

namespace tridsim::testing {

inline Grid deck_grid(const DeckNode& gn) {
  const auto n = gn.get<std::vector<index_t>>("n");
  const auto lo = gn.get_or<std::vector<double>>("lo", std::vector<double>(n.size(), 0.0));
  const auto hi = gn.get_or<std::vector<double>>("hi", std::vector<double>(n.size(), 1.0));
  Grid g;
  g.dim = int(n.size());
  for (int a = 0; a < g.dim; ++a) {
    g.n[a] = n[a];
    g.lo[a] = lo[a];
    g.hi[a] = hi[a];
  }
  return g;
}

}  // namespace tridsim::testing
