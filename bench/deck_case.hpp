#pragma once
// A bundled example deck (inputs/NAME.yaml) read for a module benchmark: the deck with its
// --set changes, its grid, constants and time step, as the driver reads them; and a setup with
// the deck's expressions interpreted (TRIDSIM_CXX=none) rather than compiled, to compare the two
// in one run. TRIDSIM_SOURCE_DIR: the repository.
#include <cstdlib>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/expression.hpp"
#include "core/grid.hpp"

namespace tridsim::bench {

struct DeckCase {
  Deck deck;
  Grid grid;
  Constants constants;
  double dt = 0;
};

inline DeckCase load_deck_case(const std::string& name, const std::vector<std::string>& sets) {
  DeckCase c{Deck::load(std::string(TRIDSIM_SOURCE_DIR) + "/inputs/" + name + ".yaml")};
  for (const auto& s : sets) c.deck.set(s);
  const DeckNode root = c.deck.root();
  if (auto k = root.maybe_child("constants"))
    for (const auto& key : k->keys()) c.constants[key] = k->get<double>(key);
  const DeckNode gn = root.child("grid");
  const auto n = gn.get<std::vector<long>>("n");
  const auto lo = gn.has("lo") ? gn.get<std::vector<double>>("lo") : std::vector<double>(n.size(), 0.0);
  const auto hi = gn.has("hi") ? gn.get<std::vector<double>>("hi") : std::vector<double>(n.size(), 1.0);
  c.grid.dim = int(n.size());
  for (std::size_t a = 0; a < n.size(); ++a) {
    c.grid.n[a] = n[a];
    c.grid.lo[a] = lo[a];
    c.grid.hi[a] = hi[a];
  }
  c.dt = root.child("time").get<double>("dt");
  return c;
}

// setup() with TRIDSIM_CXX=none when `interpreted`, the environment restored after.
template <class Setup>
void set_up(bool interpreted, const Setup& setup) {
  const char* cxx = std::getenv("TRIDSIM_CXX");
  const std::string kept = cxx ? cxx : "";
  if (interpreted) ::setenv("TRIDSIM_CXX", "none", 1);
  setup();
  if (interpreted && cxx) ::setenv("TRIDSIM_CXX", kept.c_str(), 1);
  else if (interpreted) ::unsetenv("TRIDSIM_CXX");
}

}  // namespace tridsim::bench
