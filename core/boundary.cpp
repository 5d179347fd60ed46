#include "core/boundary.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/native_code.hpp"
#include "core/non_finite.hpp"

namespace tridsim {

const char* face_name(int axis, int side) {
  static const char* names[3][2] = {{"x-", "x+"}, {"y-", "y+"}, {"z-", "z+"}};
  return names[axis][side];
}

const char* Face::name() const { return face_name(axis, side); }

template <class T>
void Face::evaluate(const Grid& g, double t, T* out) const {
  if (value.is_constant()) {
    std::fill(out, out + size(), T(value(0, 0, 0, t)));
    return;
  }
  std::vector<double> along(static_cast<std::size_t>(np));  // lines of the face's p axis, one per iq
  for (index_t i = 0; i < np; ++i) along[std::size_t(i)] = g.coord(p, i);
  value.fill_lines(nq, p, np, along.data(), [&](index_t iq, double* xyz) {
    xyz[axis] = g.coord(axis, fixed);
    xyz[q] = g.coord(q, iq);
    return np * iq;
  }, t, out);
}

DeckNode face_spec(const DeckNode& boundary, const std::string& name) {
  if (auto spec = boundary.maybe_child(name)) return *spec;
  if (auto all = boundary.maybe_child("all")) return *all;
  boundary.fail(name, "missing boundary condition for face " + name +
                          " (give {type: dirichlet|neumann, value: EXPR} per face, or 'all')");
}

std::array<bool, 3> Boundary::periodic_axes(const DeckNode& section, int dim) {
  std::array<bool, 3> out{};
  const auto bc = section.maybe_child("boundary");
  if (!bc) return out;
  auto is_periodic = [&](int axis, int side) {
    const DeckNode spec = face_spec(*bc, face_name(axis, side));
    return spec.get_enum("type", kBoundaryKindNamesPeriodic) == BoundaryKind::periodic;
  };
  for (int axis = 0; axis < dim; ++axis) {
    const bool lo = is_periodic(axis, 0), hi = is_periodic(axis, 1);
    if (lo != hi) {
      const int side = lo ? 1 : 0;  // the face that is not periodic
      face_spec(*bc, face_name(axis, side))
          .fail("type", fmt::format("face {} is periodic, so {} must be too (both faces of an axis periodic, or neither)",
                                    face_name(axis, 1 - side), face_name(axis, side)));
    }
    out[std::size_t(axis)] = lo;
  }
  return out;
}

void Boundary::read(const DeckNode& section, const Grid& grid, const Constants& constants,
                    const std::array<std::array<bool, 2>, 3>& interfaces, bool periodic) {
  grid_ = grid;
  if (periodic) grid_.periodic = periodic_axes(section, grid.dim);
  faces_.clear();
  const DeckNode bc = section.child("boundary");
  for (int axis = 0; axis < grid.dim; ++axis)
    for (int side = 0; side < 2; ++side) {
      const DeckNode spec = face_spec(bc, face_name(axis, side));
      Face f;
      f.axis = axis;
      f.side = side;
      f.kind = periodic ? spec.get_enum("type", kBoundaryKindNamesPeriodic) : spec.get_enum("type", kBoundaryKindNames);
      if (f.kind == BoundaryKind::periodic) {
        if (spec.has("value")) spec.fail("value", "a periodic face takes no value (remove it)");
      } else {
        f.value = Expression::from_deck(spec, "value", constants);
      }
      f.p = axis == 0 ? 1 : 0;
      f.q = axis == 2 ? 1 : 2;
      f.np = grid.n[f.p];
      f.nq = grid.n[f.q];
      f.fixed = side ? grid.n[axis] - 1 : 0;
      f.deck_kind = f.kind;
      if (interfaces[axis][side]) {
        f.interface = true;
        f.kind = BoundaryKind::dirichlet;
        f.value = Expression("0", constants);
      }
      if (f.kind == BoundaryKind::dirichlet && f.value.uses_time()) dirichlet_moves_ = true;
      index_[axis][side] = int(faces_.size());
      faces_.push_back(std::move(f));
    }
}

void Boundary::require_finite(const DeckNode& section, const std::vector<double>& times) const {
  if (times.empty()) return;
  const DeckNode bc = section.child("boundary");
  std::vector<double> values;
  for (const Face& f : faces_) {
    if (f.interface || f.kind == BoundaryKind::periodic) continue;  // (no deck data)
    values.resize(std::size_t(f.size()));
    for (const double t : times_for(f.value.uses_time(), times)) {
      f.evaluate(grid_, t, values.data());
      const auto bad = std::find_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); });
      if (bad == values.end()) continue;
      const index_t at = index_t(bad - values.begin()), ip = at % f.np, iq = at / f.np;  // (face arrays x-fastest)
      std::array<index_t, 3> ijk{};
      ijk[f.axis] = f.fixed;
      ijk[f.p] = ip;
      ijk[f.q] = iq;
      fail_non_finite(face_spec(bc, f.name()), "value",
                      NonFinite{non_finite_name(*bad), node_where(grid_, ijk[0], ijk[1], ijk[2])}, t);
    }
  }
}

void Boundary::compile_moving(NativeBatch& batch) {
  for (Face& f : faces_)
    if (!f.interface && f.value.uses_time()) batch.add(f.value);
}

bool Boundary::on_dirichlet(const std::array<index_t, 3>& ijk) const {
  for (const auto& f : faces_)
    if (f.kind == BoundaryKind::dirichlet && !f.interface && ijk[f.axis] == f.fixed) return true;
  return false;
}

template <class T>
void Boundary::impose_dirichlet(double t, T* u) const {
  std::vector<T> values;
  for (const auto& f : faces_) {
    if (f.kind != BoundaryKind::dirichlet || f.interface) continue;
    values.resize(f.size());
    f.evaluate(grid_, t, values.data());
    for (index_t iq = 0; iq < f.nq; ++iq)
      for (index_t ip = 0; ip < f.np; ++ip) u[f.node(grid_, ip, iq)] = values[ip + f.np * iq];
  }
}

template void Face::evaluate<float>(const Grid&, double, float*) const;
template void Face::evaluate<double>(const Grid&, double, double*) const;
template void Boundary::impose_dirichlet<float>(double, float*) const;
template void Boundary::impose_dirichlet<double>(double, double*) const;

}  // namespace tridsim
