#include "core/non_finite.hpp"

#include <fmt/format.h>

#include <cmath>

namespace tridsim {

const char* non_finite_name(double v) { return std::isnan(v) ? "NaN" : v > 0 ? "+inf" : "-inf"; }

std::string node_where(const Grid& g, index_t i, index_t j, index_t k) {
  return fmt::format("at node ({}, {}, {}) (x = {:g}, y = {:g}, z = {:g})", g.first[0] + i, g.first[1] + j,
                     g.first[2] + k, g.coord(0, i), g.coord(1, j), g.coord(2, k));
}

template <class T>
std::optional<NonFinite> first_non_finite(const Grid& g, const T* values) {
  for (index_t o = 0; o < g.size(); ++o) {
    const double v = double(values[o]);
    if (std::isfinite(v)) continue;
    const index_t i = o % g.n[0], j = (o / g.n[0]) % g.n[1], k = o / (g.n[0] * g.n[1]);  // (x-fastest)
    return NonFinite{non_finite_name(v), node_where(g, i, j, k)};
  }
  return std::nullopt;
}

template std::optional<NonFinite> first_non_finite<float>(const Grid&, const float*);
template std::optional<NonFinite> first_non_finite<double>(const Grid&, const double*);

}  // namespace tridsim
