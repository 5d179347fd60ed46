#include "physics/elasticity/plate.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <sstream>

#include "core/boundary.hpp"
#include "core/errors.hpp"
#include "physics/module_keys.hpp"

namespace tridsim::elastic {

namespace {

constexpr double kGauss = 0.57735026918962576451;  // 1/sqrt(3): 2-point Gauss on [-1, 1]

std::string point(double x, double y) {
  std::ostringstream s;
  s.precision(6);
  s << "(" << x << ", " << y << ")";
  return s.str();
}

bool is_zero(const Expression& e) { return e.is_constant() && e(0, 0, 0, 0) == 0; }

void require_steady(const DeckNode& n, const std::string& key, const Expression& e) {
  if (e.uses_time()) n.fail(key, "the problem is steady: " + quoted(e.text()) + " may use x and y but not t");
}

// A pair of numbers or expressions, [a, b]; left out: the key table's default.
std::array<Expression, 2> read_pair(const DeckNode& n, const std::string& key, const Constants& c, const char* what,
                                    const KeyTable& keys) {
  const auto parts = n.get_or_default<std::vector<std::string>>(key, keys);  // numbers are scalars too
  if (parts.size() != 2)
    n.fail(key, std::string("expected [") + what + "] (2 numbers or expressions of x, y), got " +
                    std::to_string(parts.size()) + " entries");
  std::array<Expression, 2> out;
  for (int k = 0; k < 2; ++k) {
    try {
      out[k] = Expression(parts[k], c);
    } catch (const Error& e) {
      n.fail(key, e.what());
    }
    require_steady(n, key, out[k]);
  }
  return out;
}

// out[k] = e(point(k)) for k < count, in parallel with one parser per thread.
template <class Point>
void evaluate(const Expression& e, index_t count, const Point& at, double* out) {
  if (e.is_constant()) {
    const double v = e(0, 0, 0, 0);
    for (index_t k = 0; k < count; ++k) out[k] = v;
    return;
  }
#pragma omp parallel
  {
    const Expression local(e);
#pragma omp for schedule(static)
    for (index_t k = 0; k < count; ++k) {
      const auto [x, y] = at(k);
      out[k] = local(x, y, 0, 0);
    }
  }
}

// One face of the plate: face f = 2*axis + side (x-, x+, y-, y+), its nodes along the other axis.
struct FaceNodes {
  int axis, side;
  index_t count;      // nodes along the face
  index_t first, stride;  // node k of the face is first + k*stride (x-fastest node numbers)
  double h;           // spacing along the face
};

FaceNodes face_nodes(const Plate& p, int f) {
  const int axis = f / 2, side = f % 2;
  if (axis == 0) return {axis, side, p.ny, side ? p.nx - 1 : 0, p.nx, p.hy};
  return {axis, side, p.nx, side ? p.nx * (p.ny - 1) : 0, 1, p.hx};
}

std::array<double, 2> node_xy(const Plate& p, index_t node) {
  return {p.x0 + double(node % p.nx) * p.hx, p.y0 + double(node / p.nx) * p.hy};
}

struct FaceSpec {
  FaceType type = FaceType::free;
  std::array<Expression, 2> value;      // clamped: (ux, uy); roller: value[0] = u_n; traction: (tx, ty)
  std::optional<DeckNode> node;         // where errors about the value point: node.key
  std::string key;
};

// faces.<key>: a type name, or {type: ..., value: ...}.
FaceSpec read_face(const DeckNode& faces, const std::string& key, const Constants& c, const KeyTable& keys) {
  FaceSpec spec;
  const Expression none(table_default<std::string>(keys, faces.key_path(key) + ".value"), c);  // value left out
  spec.value = {none, none};
  if (!faces.is_map(key)) {
    spec.type = faces.get_enum(key, kFaceTypeNames);
    spec.node = faces;
    spec.key = key;
    return spec;
  }
  const DeckNode f = faces.child(key);
  spec.type = f.get_enum("type", kFaceTypeNames);
  spec.node = f;
  spec.key = "value";
  if (!f.has("value")) return spec;
  switch (spec.type) {
    case FaceType::free: f.fail("value", "a free face takes no value");
    case FaceType::clamped: spec.value = read_pair(f, "value", c, "ux, uy", keys); break;
    case FaceType::traction: spec.value = read_pair(f, "value", c, "tx, ty", keys); break;
    case FaceType::roller:
      spec.value[0] = Expression::from_deck(f, "value", c);
      require_steady(f, "value", spec.value[0]);
      break;
  }
  return spec;
}

void read_material(Plate& p, const DeckNode& s, const Constants& c, const KeyTable& keys) {
  p.model = s.get_enum_or_default("model", kModelNames, keys);
  if (p.model == Model::plane_strain) {
    if (s.has("thickness"))
      s.fail("thickness", "applies to plane stress; a plane-strain body is taken per unit thickness");
  } else {
    p.thickness = s.get_or_default<double>("thickness", keys);
    s.require(std::isfinite(p.thickness) && p.thickness > 0, "thickness", p.thickness, "a positive number");
  }
  const Expression E = Expression::from_deck(s, "E", c), nu = Expression::from_deck(s, "nu", c);
  require_steady(s, "E", E);
  require_steady(s, "nu", nu);
  const index_t ne = p.elements(), mx = p.nx - 1;
  auto centre = [&](index_t e) {  // element e = ei + (nx-1)*ej
    return std::array<double, 2>{p.x0 + (double(e % mx) + 0.5) * p.hx, p.y0 + (double(e / mx) + 0.5) * p.hy};
  };
  std::vector<double> ev(std::size_t(ne), 0.0), nv(std::size_t(ne), 0.0);
  evaluate(E, ne, centre, ev.data());
  evaluate(nu, ne, centre, nv.data());
  const bool strain = p.model == Model::plane_strain;
  p.material.resize(std::size_t(ne));
  for (index_t e = 0; e < ne; ++e) {
    const auto [x, y] = centre(e);
    if (!(std::isfinite(ev[e]) && ev[e] > 0))
      s.fail("E", "must be a finite number > 0 at every element, got " + std::to_string(ev[e]) +
                      " at the element centred at " + point(x, y));
    const double n = nv[e];
    if (!(std::isfinite(n) && n > -1 && (strain ? n < 0.5 : n <= 0.5)))
      s.fail("nu", std::string("must be in (-1, 0.5") + (strain ? ") in plane strain (D divides by 1 - 2 nu)" : "] in plane stress") +
                       ", got " + std::to_string(n) + " at the element centred at " + point(x, y));
    p.material[e] = strain ? plane_strain(ev[e], n) : plane_stress(ev[e], n);
  }
}

// Supports: the given components on clamped and roller faces (faces of later axes win where
// faces meet, as in core/boundary). Returns each face's spec for the loads.
std::array<FaceSpec, 4> read_supports(Plate& p, const DeckNode& s, const Constants& c, const KeyTable& keys) {
  std::array<FaceSpec, 4> specs;
  p.fixed.assign(std::size_t(p.unknowns()), 0);
  p.given.assign(std::size_t(p.unknowns()), 0.0);
  const std::optional<DeckNode> faces = s.maybe_child("faces");  // none: every face free (refused below)
  const bool all = faces && faces->has("all");
  for (int f = 0; f < 4 && faces; ++f) {
    const std::string name = face_name(f / 2, f % 2);
    if (faces->has(name)) specs[f] = read_face(*faces, name, c, keys);
    else if (all) specs[f] = read_face(*faces, "all", c, keys);
    else specs[f].type = table_default_choice(keys, faces->key_path(name), kFaceTypeNames);
    const FaceSpec& spec = specs[f];
    if (spec.type != FaceType::clamped && spec.type != FaceType::roller) continue;
    const FaceNodes fn = face_nodes(p, f);
    for (int comp = 0; comp < 2; ++comp) {
      const bool given = spec.type == FaceType::clamped || comp == fn.axis;  // a roller gives the normal one
      if (!given) continue;
      const Expression& e = spec.type == FaceType::clamped ? spec.value[comp] : spec.value[0];
      std::vector<double> v(std::size_t(fn.count));
      evaluate(e, fn.count, [&](index_t k) { return node_xy(p, fn.first + k * fn.stride); }, v.data());
      for (index_t k = 0; k < fn.count; ++k) {
        const index_t node = fn.first + k * fn.stride;
        if (!std::isfinite(v[k])) {
          const auto [x, y] = node_xy(p, node);
          spec.node->fail(spec.key, "is not finite at " + point(x, y) + " (face " + name + ")");
        }
        p.fixed[2 * node + comp] = 1;
        p.given[2 * node + comp] = v[k];
      }
    }
  }
  // Rigid-body motions make the stiffness singular. A support fixes a component along a whole
  // face (2 or more nodes), which also stops rotation once both components are fixed somewhere.
  bool fx = false, fy = false;
  for (index_t u = 0; u < p.unknowns(); ++u) (u % 2 ? fy : fx) |= p.fixed[u] != 0;
  if (!fx || !fy)
    s.fail("faces", std::string("the supports leave the plate free to move along ") + (!fx && !fy ? "x and y" : !fx ? "x" : "y") +
                        " (a rigid-body motion: no unique solution); clamp a face, or put rollers on an x face "
                        "and a y face");
  return specs;
}

// Consistent nodal forces of a traction (tx, ty) on face f: the integral of N_k t along the
// face, 2-point Gauss per segment between nodes (exact for tractions linear along the face).
void add_traction(Plate& p, int f, const std::array<Expression, 2>& t, const DeckNode& where,
                  const std::string& key, std::vector<double>& force) {
  const FaceNodes fn = face_nodes(p, f);
  const index_t segments = fn.count - 1;
  LoadSize& size = p.load_sizes.emplace_back(LoadSize{where, key, 0.0, true});
  for (int comp = 0; comp < 2; ++comp) {
    if (is_zero(t[comp])) continue;
    std::vector<double> v(std::size_t(2 * segments));  // value at Gauss point q of segment k: [2k + q]
    evaluate(t[comp], 2 * segments,
             [&](index_t m) {
               const auto a = node_xy(p, fn.first + (m / 2) * fn.stride);
               const double s = 0.5 * (1 + ((m % 2) ? kGauss : -kGauss)) * fn.h;  // distance from node k
               return fn.axis == 0 ? std::array<double, 2>{a[0], a[1] + s} : std::array<double, 2>{a[0] + s, a[1]};
             },
             v.data());
    for (index_t k = 0; k < segments; ++k)
      for (int q = 0; q < 2; ++q) {
        const double tv = v[2 * k + q];
        if (!std::isfinite(tv)) where.fail(key, "is not finite on face " + std::string(face_name(f / 2, f % 2)));
        size.m = std::max(size.m, std::abs(tv));
        const double s = 0.5 * (1 + (q ? kGauss : -kGauss)), w = p.thickness * fn.h / 2;
        force[2 * (fn.first + k * fn.stride) + comp] += w * (1 - s) * tv;
        force[2 * (fn.first + (k + 1) * fn.stride) + comp] += w * s * tv;
      }
  }
}

// Consistent nodal forces of a body force (bx, by) per unit volume: the integral of N_a b over
// every element by 2x2 Gauss, gathered node by node (each node sums its up to 4 elements).
void add_body_force(Plate& p, const std::array<Expression, 2>& b, const DeckNode& where, const std::string& key,
                    std::vector<double>& force) {
  LoadSize& size = p.load_sizes.emplace_back(LoadSize{where, key, 0.0, false});
  const index_t ne = p.elements(), mx = p.nx - 1;
  std::vector<double> v(std::size_t(4 * ne));  // value at Gauss point q of element e: [4e + q]
  std::vector<double> fe(std::size_t(4 * ne));  // the element's force on its local node a: [4e + a]
  for (int comp = 0; comp < 2; ++comp) {
    if (is_zero(b[comp])) continue;
    evaluate(b[comp], 4 * ne,
             [&](index_t m) {
               const index_t e = m / 4;
               const int q = int(m % 4);
               const double xi = (q & 1) ? kGauss : -kGauss, eta = (q & 2) ? kGauss : -kGauss;
               return std::array<double, 2>{p.x0 + (double(e % mx) + 0.5 * (1 + xi)) * p.hx,
                                            p.y0 + (double(e / mx) + 0.5 * (1 + eta)) * p.hy};
             },
             v.data());
    const double w = p.thickness * p.hx * p.hy / 4;  // det J; Gauss weights 1
    bool finite = true;
#pragma omp parallel for schedule(static) reduction(&& : finite)
    for (index_t e = 0; e < ne; ++e)
      for (int a = 0; a < 4; ++a) {
        const double s = (a & 1) ? 1.0 : -1.0, t = (a & 2) ? 1.0 : -1.0;
        double sum = 0;
        for (int q = 0; q < 4; ++q) {
          const double xi = (q & 1) ? kGauss : -kGauss, eta = (q & 2) ? kGauss : -kGauss;
          sum += (1 + s * xi) * (1 + t * eta) / 4 * v[4 * e + q];
          finite = finite && std::isfinite(v[4 * e + q]);
        }
        fe[4 * e + a] = w * sum;
      }
    if (!finite) where.fail(key, "is not finite at some point of the plate");
    for (const double bv : v) size.m = std::max(size.m, std::abs(bv));
#pragma omp parallel for schedule(static)
    for (index_t j = 0; j < p.ny; ++j)
      for (index_t i = 0; i < p.nx; ++i)
        for (index_t ej = std::max<index_t>(j - 1, 0); ej <= std::min(j, p.ny - 2); ++ej)
          for (index_t ei = std::max<index_t>(i - 1, 0); ei <= std::min(i, p.nx - 2); ++ei)
            force[2 * (i + p.nx * j) + comp] += fe[4 * (ei + mx * ej) + (i - ei) + 2 * (j - ej)];  // x-fastest
  }
}

bool plain_name(const std::string& s) {
  if (s.empty()) return false;
  for (const char ch : s)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-')) return false;
  return true;
}

// Load cases: `loads: {NAME: {traction: {FACE: [tx, ty]}, body_force: [bx, by]}, ...}`, or one
// case from the defaults (the traction faces' values, the section's body_force).
void read_loads(Plate& p, const DeckNode& s, const Constants& c, const std::array<FaceSpec, 4>& faces,
                const KeyTable& keys) {
  const std::array<Expression, 2> body = read_pair(s, "body_force", c, "bx, by", keys);
  auto make_case = [&](const std::string& name, const std::optional<DeckNode>& spec) {
    LoadCase lc{name, std::vector<double>(std::size_t(p.unknowns()), 0.0)};
    std::optional<DeckNode> tmap = spec ? spec->maybe_child("traction") : std::nullopt;
    if (tmap)
      for (const std::string& key : tmap->keys()) {
        int f = 0;
        while (f < 4 && key != face_name(f / 2, f % 2)) ++f;
        if (f == 4) tmap->fail(key, "unknown face; expected x-, x+, y- or y+");
        if (faces[f].type != FaceType::traction)
          tmap->fail(key, std::string("face ") + key + " is " + name_of(kFaceTypeNames, faces[f].type) +
                              ": only faces of type traction (under faces:) carry a traction");
      }
    for (int f = 0; f < 4; ++f) {
      if (faces[f].type != FaceType::traction) continue;
      const std::string fname = face_name(f / 2, f % 2);
      if (tmap && tmap->has(fname))
        add_traction(p, f, read_pair(*tmap, fname, c, "tx, ty", keys), *tmap, fname, lc.force);
      else add_traction(p, f, faces[f].value, *faces[f].node, faces[f].key, lc.force);
    }
    if (spec && spec->has("body_force"))
      add_body_force(p, read_pair(*spec, "body_force", c, "bx, by", keys), *spec, "body_force", lc.force);
    else add_body_force(p, body, s, "body_force", lc.force);
    p.cases.push_back(std::move(lc));
  };
  if (!s.has("loads")) {
    make_case("load", std::nullopt);
    return;
  }
  if (!s.is_map("loads"))
    s.fail("loads", "expected a map of load cases, NAME: {traction: {x+: [tx, ty]}, body_force: [bx, by]}");
  const DeckNode loads = s.child("loads");
  const auto names = loads.keys();
  if (names.empty()) s.fail("loads", "give at least one load case: {NAME: {traction: {x+: [tx, ty]}, body_force: [bx, by]}}");
  p.named_cases = true;
  for (const auto& name : names) {
    if (!plain_name(name)) loads.fail(name, "a load case's name must be letters, digits, '_' or '-' (it names output fields)");
    make_case(name, loads.child(name));
  }
}

}  // namespace

Plate read_plate(const Grid& g, const DeckNode& s, const Constants& c) {
  // 1. The mesh: the grid's nodes, 2D only.
  if (g.dim != 2)  // (reported at the module's section, which is all a module sees of the deck)
    throw DeckError(s.where(), "grid.n",
                    "the elasticity module solves plane problems (plane stress or strain): the grid needs 2 axes, got " +
                        std::to_string(g.dim));
  Plate p;
  p.nx = g.n[0];
  p.ny = g.n[1];
  p.hx = g.h(0);
  p.hy = g.h(1);
  p.x0 = g.lo[0];
  p.y0 = g.lo[1];
  if (!(p.hx > 0 && p.hy > 0)) throw DeckError(s.where(), "grid.hi", "the plate needs hi > lo along x and y");
  // 2. Material, supports, loads, the reported point.
  const KeyTable keys = elasticity_keys();
  read_material(p, s, c, keys);
  const auto faces = read_supports(p, s, c, keys);
  read_loads(p, s, c, faces, keys);
  p.tip = {g.hi[0], 0.5 * (g.lo[1] + g.hi[1])};  // the centre of the x+ face
  if (s.has("tip")) {
    const auto t = s.get<std::vector<double>>("tip");
    const double tol = 1e-12 * (std::abs(g.hi[0] - g.lo[0]) + std::abs(g.hi[1] - g.lo[1]));
    if (t.size() != 2 || !(t[0] >= g.lo[0] - tol && t[0] <= g.hi[0] + tol && t[1] >= g.lo[1] - tol && t[1] <= g.hi[1] + tol))
      s.fail("tip", "expected a point [x, y] of the plate (inside grid.lo .. grid.hi)");
    p.tip = {t[0], t[1]};
  }
  return p;
}

}  // namespace tridsim::elastic
