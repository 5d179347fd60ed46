#pragma once
// The vertex-centred diffusion operator d/dx(k d/dx) along one axis (namespace tridsim) and the
// rows of its implicit lines I - w A, written once for the CPU loops and the CUDA kernels of every
// module that diffuses (heat, glioma):
//  - face_mean: k at the face between two nodes (arithmetic, or harmonic: 0 next to a node
//    with k = 0, so such a node is decoupled);
//  - diffusion_difference: kr (u+ - u) - kl (u - u-), the flux difference at a node (times
//    1/h^2 it is A u); at a Neumann face the missing neighbour is mirrored (half cell);
//  - diffusion_row: row r of I - w A on a line of n nodes, kl/kr the faces left/right of r;
//    Dirichlet ends are identity rows, Neumann ends half cells (flux given: no-flux when 0); on a
//    periodic line every row is an interior row (interior_diffusion_row), the ends' outer faces
//    the face between the last node and the first.
#include "core/host_device.hpp"
#include "core/types.hpp"

namespace tridsim {

// How k at a face between two nodes is formed.
enum class FaceMean { arithmetic, harmonic };

template <FaceMean Mean, class T>
TRIDSIM_HOST_DEVICE inline T face_mean(T k0, T k1) {
  if constexpr (Mean == FaceMean::arithmetic) {
    return T(0.5) * (k0 + k1);
  } else {  // exactly symmetric in its arguments: a face has one value whichever node asks
    const T s = k0 + k1;
    return s > T(0) ? T(2) * k0 * k1 / s : T(0);
  }
}

template <class T>
TRIDSIM_HOST_DEVICE inline T diffusion_difference(T kl, T kr, T um, T u0, T up) {
  return kr * (up - u0) - kl * (u0 - um);
}

// The constant-coefficient case, summed as k (u- - 2u + u+).
template <class T>
TRIDSIM_HOST_DEVICE inline T diffusion_difference(T k, T um, T u0, T up) {
  return k * (um - T(2) * u0 + up);
}

template <class T>
TRIDSIM_HOST_DEVICE inline void interior_diffusion_row(T w, T kl, T kr, T& A, T& B, T& C) {
  A = -w * kl; C = -w * kr; B = 1 + w * (kl + kr);
}

template <class T>
TRIDSIM_HOST_DEVICE inline void diffusion_row(index_t r, index_t n, T w, bool dirichlet_lo, bool dirichlet_hi, T kl,
                                              T kr, T& A, T& B, T& C) {
  if (n == 1) {
    A = 0; B = 1; C = 0;
  } else if (r == 0) {
    A = 0;
    if (dirichlet_lo) { B = 1; C = 0; }
    else { B = 1 + 2 * w * kr; C = -2 * w * kr; }
  } else if (r == n - 1) {
    C = 0;
    if (dirichlet_hi) { A = 0; B = 1; }
    else { A = -2 * w * kl; B = 1 + 2 * w * kl; }
  } else {
    interior_diffusion_row(w, kl, kr, A, B, C);
  }
}

// b = 2 k g / h: the flux term at a node of a Neumann face (g the outward derivative, the node's
// half cell). An implicit stage that takes the increment of g over a step adds dt/2 b(dg).
template <class T>
TRIDSIM_HOST_DEVICE inline T neumann_flux_term(T k, T g, T inv_h) {
  return T(2) * k * g * inv_h;
}

// Offsets of the two neighbours of a node at position p of n along an axis of stride s; a
// missing neighbour (box face) is mirrored.
TRIDSIM_HOST_DEVICE inline void mirrored_neighbours(index_t p, index_t n, index_t s, index_t& sm, index_t& sp) {
  sm = p > 0 ? -s : s;
  sp = p < n - 1 ? s : -s;
}

// The same on a periodic axis: the neighbours of the ends are the opposite ends.
TRIDSIM_HOST_DEVICE inline void wrapped_neighbours(index_t p, index_t n, index_t s, index_t& sm, index_t& sp) {
  sm = p > 0 ? -s : (n - 1) * s;
  sp = p < n - 1 ? s : -(n - 1) * s;
}

// A row generator for the line solvers (CPU and GPU): rows of I - w A from node values k,
// staging one value per node (the face to its right) so the recurrence reads no neighbours.
template <class T, FaceMean Mean>
struct DiffusionRows {
  const T* k;            // node values, same layout as the lines
  index_t stride = 1;    // element stride along the lines
  index_t n = 1;         // line length
  T w = 0;               // theta dt / h^2
  bool dirichlet_lo = false, dirichlet_hi = false;

  // The face to the right of node o (row r); 0 at the last row.
  TRIDSIM_HOST_DEVICE T stage(index_t o, index_t r) const {
    return r + 1 < n ? face_mean<Mean>(k[o], k[o + stride]) : T(0);
  }
  TRIDSIM_HOST_DEVICE void row(index_t r, T left, T right, T& A, T& B, T& C) const {
    diffusion_row(r, n, w, dirichlet_lo, dirichlet_hi, left, right, A, B, C);
  }
};

}  // namespace tridsim
