#pragma once
// The boundary data of one heat step (heat.cpp, "boundary data of a step"), written once for the
// host and the device (namespace tridsim): prepare_face_data says which face gets which data, over
// an executor that owns the arrays (host vectors, or device memory and kernels); FaceOperator is
// the operator M_b the Dirichlet faces need, one face node at a time.
#include <cstddef>

#include "core/boundary.hpp"
#include "core/diffusion.hpp"

namespace tridsim {

// M_b v = v - dt/2 (A_b v + db_b) at face node e: A_b along b, one of the face's own axes
// (arithmetic face means, a mirrored neighbour at a Neumann end, the opposite end's along a
// periodic b, Dirichlet ends left alone);
// db_b the flux increment 2 kappa (g(t+dt) - g(t)) / h of the Neumann faces of b, at the ends of
// the face's lines along b.
template <class T>
struct FaceOperator {
  const T* kappa = nullptr;  // grid node values (null: kappa0)
  T kappa0 = 1;
  T c = 0, half_dt = 0, ih = 0;  // dt/2 / h^2, dt/2 and 1 / h along b
  index_t np = 1;             // the face's layout: e = ip + np iq
  bool first = true;          // b is the face's first axis (p)
  index_t nb = 1, sb = 1;     // nodes along b, their stride in the face
  index_t g0 = 0, gp = 0, gq = 0;  // grid offset of face node (ip, iq): g0 + ip gp + iq gq
  bool dirichlet[2] = {};          // ends along b
  bool periodic = false;           // b is periodic
  const T* dflux[2] = {};          // g(t+dt) - g(t) on the Neumann faces of b (null: none moves)
  index_t d0 = 0, ds = 0;          // index in those faces of the face's line L: d0 + L ds

  TRIDSIM_HOST_DEVICE T kap(index_t o) const { return kappa ? kappa[o] : kappa0; }
  TRIDSIM_HOST_DEVICE T operator()(const T* v, index_t e) const {
    const index_t ip = e % np, iq = e / np, m = first ? ip : iq, L = first ? iq : ip;
    if ((m == 0 && dirichlet[0]) || (m == nb - 1 && dirichlet[1])) return v[e];
    index_t sm, sp;
    if (periodic) wrapped_neighbours(m, nb, 1, sm, sp);
    else mirrored_neighbours(m, nb, 1, sm, sp);
    const index_t o = g0 + ip * gp + iq * gq, gs = first ? gp : gq;
    const T k = kap(o);
    const T kl = face_mean<FaceMean::arithmetic>(k, kap(o + sm * gs));
    const T kr = face_mean<FaceMean::arithmetic>(k, kap(o + sp * gs));
    T x = v[e] - c * diffusion_difference(kl, kr, v[e + sm * sb], v[e], v[e + sp * sb]);
    for (int side = 0; side < 2; ++side)
      if (dflux[side] && m == (side ? nb - 1 : 0)) x -= half_dt * neumann_flux_term(k, dflux[side][d0 + L * ds], ih);
    return x;
  }
};

// M_b on face fi of bc (along: one of its own axes); kappa: grid node values (null: kappa0);
// dflux: per face, the flux increment of a moving Neumann face (null elsewhere).
template <class T>
FaceOperator<T> make_face_operator(const Boundary& bc, std::size_t fi, int along, double dt, const T* kappa, T kappa0,
                                   const T* const* dflux) {
  const Grid& g = bc.grid();
  const Face& f = bc.faces()[fi];
  const auto s = g.strides();
  const double h = g.h(along);
  FaceOperator<T> op;
  op.kappa = kappa;
  op.kappa0 = kappa0;
  op.c = T(0.5 * dt / (h * h));
  op.half_dt = T(0.5 * dt);
  op.ih = T(1.0 / h);
  op.np = f.np;
  op.first = along == f.p;
  op.nb = g.n[along];
  op.sb = op.first ? 1 : f.np;
  op.g0 = f.fixed * s[f.axis];
  op.gp = s[f.p];
  op.gq = s[f.q];
  op.periodic = bc.periodic(along);
  const int other = 3 - f.axis - along;  // the face's line index L runs along it
  for (int side = 0; side < 2; ++side) {
    op.dirichlet[side] = bc.dirichlet(along, side);
    op.dflux[side] = dflux[2 * along + side];
  }
  // Face (along, side) has own axes {f.axis, other} in increasing order.
  op.d0 = f.axis < other ? f.fixed : f.fixed * g.n[other];
  op.ds = f.axis < other ? g.n[f.axis] : 1;
  return op;
}

// The step's boundary data from t to t + dt (heat.cpp explains each). Ops owns, per face fi,
// arrays of the face's size, in host or device memory: flux(fi), data(fi), dflux(fi) (the
// increment of a Neumann face of y or z), scratch g0(fi), g1(fi); and runs
//   evaluate(fi, t, out)             g(t) at the face's nodes
//   subtract(fi, a, b, out)          out = a - b
//   half_step(fi, g, m, out)         out = g + m / 2
//   copy(fi, in, out)
//   apply(fi, const FaceOperator<T>&, in, out)   out[e] = M_b in at e (in != out)
template <class T, class Ops>
void prepare_face_data(const Boundary& bc, bool peaceman_rachford, double t, double dt, const T* kappa, T kappa0,
                       Ops& ops) {
  const auto& faces = bc.faces();
  const bool pr = peaceman_rachford;
  const T* dflux[6] = {};
  // 1. Neumann faces: the data of the explicit part and of the later stages.
  for (std::size_t fi = 0; fi < faces.size(); ++fi) {
    const Face& f = faces[fi];
    if (f.kind != BoundaryKind::neumann || !f.value.uses_time()) continue;
    if (f.axis == 0) {  // stage 1: all in the explicit part
      ops.evaluate(fi, t + 0.5 * dt, ops.flux(fi));
      continue;
    }
    ops.evaluate(fi, t, ops.flux(fi));
    ops.evaluate(fi, t + dt, ops.g1(fi));
    ops.subtract(fi, ops.g1(fi), ops.flux(fi), ops.dflux(fi));
    ops.copy(fi, pr ? ops.g1(fi) : ops.dflux(fi), ops.data(fi));
    dflux[fi] = ops.dflux(fi);
  }
  const bool flux_moves = [&] {
    for (const Face& f : faces)
      if (f.kind == BoundaryKind::neumann && f.value.uses_time()) return true;
    return false;
  }();
  // 2. Dirichlet faces: the stage values (they also change where a Neumann face of a later axis moves).
  for (std::size_t fi = 0; fi < faces.size(); ++fi) {
    const Face& f = faces[fi];
    if (f.kind != BoundaryKind::dirichlet || !(f.value.uses_time() || flux_moves)) continue;
    if (pr && f.axis == 1 && !f.value.uses_time()) continue;  // stage 2 produces u^{n+1} = g, set in setup
    T* const data = ops.data(fi);
    if (pr && f.axis == 1) {  // y rows of stage 2 produce u^{n+1}
      ops.evaluate(fi, t + dt, data);
      continue;
    }
    T *const g0 = ops.g0(fi), *const g1 = ops.g1(fi);
    ops.evaluate(fi, t, g0);
    ops.evaluate(fi, t + dt, g1);
    ops.subtract(fi, g1, g0, data);
    if (pr) {  // u* = g0 + M_y dg / 2
      ops.apply(fi, make_face_operator(bc, fi, 1, dt, kappa, kappa0, dflux), data, g1);
      ops.half_step(fi, g0, g1, data);
      continue;
    }
    for (int b = bc.grid().dim - 1; b > f.axis; --b) {  // Douglas: M_{axis+1} ... M_last dg
      ops.apply(fi, make_face_operator(bc, fi, b, dt, kappa, kappa0, dflux), data, g1);
      ops.copy(fi, g1, data);
    }
  }
}

}  // namespace tridsim
