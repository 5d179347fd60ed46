#pragma once
// Shared by the glioma tests: build a GliomaModule from a deck section and run it.
#include <spdlog/spdlog.h>

#include <cmath>
#include <memory>
#include <string>

#include "core/deck.hpp"
#include "physics/glioma/glioma.hpp"

namespace glioma_test {

using namespace tridsim;

inline Grid make_grid(int dim, std::array<index_t, 3> n, std::array<double, 3> lo, std::array<double, 3> hi) {
  Grid g;
  g.dim = dim;
  g.n = n;
  g.lo = lo;
  g.hi = hi;
  return g;
}

// `section` is the body of the glioma: map (indented by two spaces).
template <class T>
std::unique_ptr<GliomaModule<T>> make(const std::string& section, const Grid& g, const std::string& backend = "cpu",
                                      const Constants& constants = {}) {
  spdlog::set_level(spdlog::level::warn);  // no per-setup info lines in test output
  Deck deck = Deck::parse("glioma:\n" + section, "test deck");
  auto m = std::make_unique<GliomaModule<T>>();
  SetupContext ctx;
  ctx.precision = precision_of<T>();
  ctx.backend = backend_from_name(backend);
  ctx.constants = constants;
  m->setup(g, deck.root().child("glioma"), ctx, 0.0);
  deck.check_unknown_keys();
  return m;
}

template <class T>
void advance(GliomaModule<T>& m, double t0, double end, double dt) {
  const long steps = std::lround((end - t0) / dt);
  for (long s = 0; s < steps; ++s) m.step(t0 + double(s) * dt, dt);
}

inline double diagnostic(const std::vector<Diagnostic>& d, const std::string& name) {
  for (const auto& x : d)
    if (x.name == name) return x.value;
  return std::nan("");
}

}  // namespace glioma_test
