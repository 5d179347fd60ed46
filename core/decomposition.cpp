#include "core/decomposition.hpp"

#include <fmt/format.h>

#include <limits>

namespace tridsim {

AxisSplit split_axis(index_t n, int parts, int p) {
  AxisSplit s;
  s.global_n = n;
  const index_t base = n / parts, extra = n % parts;
  s.owned = base + (p < extra ? 1 : 0);
  s.first = p * base + std::min<index_t>(p, extra);
  s.halo_lo = p > 0 ? 1 : 0;
  s.halo_hi = p + 1 < parts ? 1 : 0;
  return s;
}

Decomposition decompose(const Grid& g, const std::array<int, 3>& ranks, const std::array<int, 3>& coords) {
  Decomposition d;
  d.global = g;
  d.ranks = ranks;
  d.coords = coords;
  for (int a = 0; a < 3; ++a) d.axes[a] = split_axis(g.n[a], ranks[a], coords[a]);
  return d;
}

Grid Decomposition::local() const {
  Grid l = global;
  for (int a = 0; a < global.dim; ++a) {
    const AxisSplit& s = axes[a];
    l.n[a] = s.local_n();
    l.lo[a] = global.coord(a, s.local_first());
    // A periodic axis held whole keeps its period; split, its pieces are boxes (modules refuse that).
    l.periodic[a] = global.periodic[a] && s.local_n() == global.n[a];
    l.hi[a] = l.periodic[a] ? global.hi[a] : global.coord(a, s.local_first() + s.local_n() - 1);
    l.first[a] = global.first[a] + s.local_first();
    if (global.stretched(a)) {
      const auto first = global.nodes[a].begin() + std::ptrdiff_t(s.local_first());
      l.nodes[a].assign(first, first + std::ptrdiff_t(s.local_n()));
    }
  }
  return l;
}

int Decomposition::neighbour(int axis, int side) const {
  auto c = coords;
  c[axis] += side ? 1 : -1;
  if (c[axis] < 0 || c[axis] >= ranks[axis]) return -1;
  return process_rank(ranks, c);
}

bool Decomposition::owns(index_t i, index_t j, index_t k) const {
  const index_t ijk[3] = {i, j, k};
  for (int a = 0; a < 3; ++a)
    if (ijk[a] < axes[a].halo_lo || ijk[a] >= axes[a].halo_lo + axes[a].owned) return false;
  return true;
}

std::string process_grid_problem(const Grid& g, const std::array<int, 3>& ranks) {
  for (int a = 0; a < 3; ++a) {
    if (ranks[a] < 1) return fmt::format("axis {} has {} ranks; every axis needs at least 1", "xyz"[a], ranks[a]);
    if (a >= g.dim && ranks[a] > 1)
      return fmt::format("the grid is {}D: axis {} cannot be split", g.dim, "xyz"[a]);
    if (ranks[a] > 1 && g.n[a] < 2 * index_t(ranks[a]))
      return fmt::format("axis {} has {} nodes: {} ranks along it would leave a rank fewer than 2 (at most {})",
                         "xyz"[a], g.n[a], ranks[a], g.n[a] / 2);
  }
  return "";
}

std::array<int, 3> balanced_process_grid(const Grid& g, int size) {
  std::array<int, 3> best{0, 0, 0};
  double best_cost = std::numeric_limits<double>::infinity();
  const double points = double(g.size());
  for (int px = 1; px <= size; ++px) {
    if (size % px) continue;
    for (int py = 1; py <= size / px; ++py) {
      if ((size / px) % py) continue;
      const std::array<int, 3> r{px, py, size / px / py};
      if (!process_grid_problem(g, r).empty()) continue;
      // Interface nodes (each cut copies a plane), x cuts counted 4 times: its lines are contiguous
      // and split x-lines are the slowest to reduce; among equals, split z before y.
      double cost = 0;
      for (int a = 0; a < 3; ++a) cost += (a == 0 ? 4.0 : 1.0) * (r[a] - 1) * points / double(g.n[a]);
      cost += 1e-9 * points * (r[1] - r[2]);
      if (cost < best_cost) {
        best_cost = cost;
        best = r;
      }
    }
  }
  return best;
}

}  // namespace tridsim
