#pragma once
// The bilinear 4-node (Q4) element of small-strain linear elasticity in 2D (namespace
// tridsim::elastic): the material matrix, the element stiffness by 2x2 Gauss quadrature, the stress
// at the element's centre and the von Mises stress. One formula, one place: plain arithmetic,
// TRIDSIM_HOST_DEVICE, so the CPU assembly and a GPU one call the same functions.
//
// An element is an hx x hy rectangle. Its local node a = ia + 2*ja (ia, ja in {0, 1}, x fastest)
// sits at (ia*hx, ja*hy) from its lower-left corner; its 8 dofs are 2*a + c (c = 0: ux, 1: uy).
// Strains are (exx, eyy, gxy) with the engineering shear gxy = dux/dy + duy/dx.
#include <cmath>

#include "core/host_device.hpp"

namespace tridsim::elastic {

// stress = D strain for an isotropic material: D = [[d11, d12, 0], [d12, d11, 0], [0, 0, d33]].
// nu_zz: szz = nu_zz (sxx + syy) (plane strain: nu; plane stress: 0, szz = 0).
struct Material {
  double d11 = 0, d12 = 0, d33 = 0, nu_zz = 0;
};

TRIDSIM_HOST_DEVICE inline Material plane_stress(double E, double nu) {
  const double c = E / (1 - nu * nu);
  return {c, c * nu, c * (1 - nu) / 2, 0.0};
}

TRIDSIM_HOST_DEVICE inline Material plane_strain(double E, double nu) {
  const double c = E / ((1 + nu) * (1 - 2 * nu));
  return {c * (1 - nu), c * nu, c * (1 - 2 * nu) / 2, nu};
}

// d N_a / dx and d N_a / dy at the reference point (xi, eta) in [-1, 1]^2 of an hx x hy element:
// N_a = (1 + s xi)(1 + t eta) / 4 with s, t = -1 or +1 the node's side along x, y.
TRIDSIM_HOST_DEVICE inline void q4_gradients(double hx, double hy, double xi, double eta, double* bx, double* by) {
  for (int a = 0; a < 4; ++a) {
    const double s = (a & 1) ? 1.0 : -1.0, t = (a & 2) ? 1.0 : -1.0;
    bx[a] = s * (1 + t * eta) / (2 * hx);
    by[a] = t * (1 + s * xi) / (2 * hy);
  }
}

// The element stiffness ke (8 x 8, row-major, dofs 2*a + c) = thickness * integral of B^T D B over
// the element, by 2x2 Gauss quadrature (exact for a rectangle with constant D).
TRIDSIM_HOST_DEVICE inline void q4_stiffness(double hx, double hy, const Material& m, double thickness, double* ke) {
  for (int i = 0; i < 64; ++i) ke[i] = 0;
  const double g = 0.57735026918962576451;      // 1/sqrt(3)
  const double w = thickness * hx * hy / 4;     // det J = hx hy / 4; Gauss weights 1
  for (int q = 0; q < 4; ++q) {
    double bx[4], by[4];
    q4_gradients(hx, hy, (q & 1) ? g : -g, (q & 2) ? g : -g, bx, by);
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        // B_a^T D B_b with B_a = [[bx_a, 0], [0, by_a], [by_a, bx_a]].
        ke[(2 * a) * 8 + 2 * b] += w * (bx[a] * m.d11 * bx[b] + by[a] * m.d33 * by[b]);
        ke[(2 * a) * 8 + 2 * b + 1] += w * (bx[a] * m.d12 * by[b] + by[a] * m.d33 * bx[b]);
        ke[(2 * a + 1) * 8 + 2 * b] += w * (by[a] * m.d12 * bx[b] + bx[a] * m.d33 * by[b]);
        ke[(2 * a + 1) * 8 + 2 * b + 1] += w * (by[a] * m.d11 * by[b] + bx[a] * m.d33 * bx[b]);
      }
  }
}

// Stress (sxx, syy, sxy, szz) at the element's centre from its 8 nodal displacements ue.
TRIDSIM_HOST_DEVICE inline void q4_centre_stress(double hx, double hy, const Material& m, const double* ue, double* s) {
  double bx[4], by[4];
  q4_gradients(hx, hy, 0.0, 0.0, bx, by);
  double exx = 0, eyy = 0, gxy = 0;
  for (int a = 0; a < 4; ++a) {
    exx += bx[a] * ue[2 * a];
    eyy += by[a] * ue[2 * a + 1];
    gxy += by[a] * ue[2 * a] + bx[a] * ue[2 * a + 1];
  }
  s[0] = m.d11 * exx + m.d12 * eyy;
  s[1] = m.d12 * exx + m.d11 * eyy;
  s[2] = m.d33 * gxy;
  s[3] = m.nu_zz * (s[0] + s[1]);
}

// The von Mises stress of (sxx, syy, sxy, szz) (the other shears are zero in both plane models).
TRIDSIM_HOST_DEVICE inline double von_mises(double sxx, double syy, double sxy, double szz) {
  const double a = sxx - syy, b = syy - szz, c = szz - sxx;
  return std::sqrt(0.5 * (a * a + b * b + c * c) + 3 * sxy * sxy);
}

}  // namespace tridsim::elastic
