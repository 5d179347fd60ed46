#pragma once
// The reaction ODE du/dt = R(u, x, t) at one node (namespace tridsim::rd), integrated and
// linearized by formulas written once for the CPU loops and for the device code that NVRTC compiles
// from the deck's expressions, and for the CPU code compiled at run time (reactions.cpp embeds this
// header's text in both sources).
// Hence: no includes under NVRTC, double arithmetic, M <= kMaxSpecies. `rates(v, t, out)` writes
// R(v, t) at the node. V, a species' value, is a double, or on the CPU the values of a block of
// nodes (reactions.cpp: element by element, the same arithmetic).
#if !defined(__CUDACC_RTC__) && !defined(TRIDSIM_NATIVE_SOURCE)  // (the CPU's compiled source declares fabs)
#include <cmath>
#endif
#ifndef TRIDSIM_HOST_DEVICE
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define TRIDSIM_HOST_DEVICE __host__ __device__
#else
#define TRIDSIM_HOST_DEVICE
#endif
#endif

namespace tridsim::rd {

constexpr int kMaxSpecies = 8;

// The arithmetic at one node of the integrators below (reactions.cpp applies it to each node of a block).
TRIDSIM_HOST_DEVICE inline double rk4_stage(double v, double a, double k) { return v + a * k; }
TRIDSIM_HOST_DEVICE inline double rk4_update(double v, double h, double k1, double k2, double k3, double k4) {
  return v + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
}
// v_j moved by the forward-difference step: sqrt(machine epsilon) relative to |v_j| (absolute near 0).
TRIDSIM_HOST_DEVICE inline double fd_shifted(double vj) {
  const double scale = fabs(vj) > 1.0 ? fabs(vj) : 1.0;
  return vj + 1.4901161193847656e-8 * scale;
}
// The difference quotient of R_i between w and v, which differ in one species.
TRIDSIM_HOST_DEVICE inline double fd_slope(double r, double r0, double wj, double vj) { return (r - r0) / (wj - vj); }

// Classic fourth-order Runge-Kutta: `substeps` steps of tau / substeps from time t.
template <class V, class Rates>
TRIDSIM_HOST_DEVICE inline void rk4(int m, V* v, double t, double tau, int substeps, const Rates& rates) {
  const double h = tau / substeps;
  V k1[kMaxSpecies], k2[kMaxSpecies], k3[kMaxSpecies], k4[kMaxSpecies], w[kMaxSpecies];
  for (int step = 0; step < substeps; ++step) {
    const double t0 = t + step * h;
    rates(v, t0, k1);
    for (int i = 0; i < m; ++i) w[i] = rk4_stage(v[i], 0.5 * h, k1[i]);
    rates(w, t0 + 0.5 * h, k2);
    for (int i = 0; i < m; ++i) w[i] = rk4_stage(v[i], 0.5 * h, k2[i]);
    rates(w, t0 + 0.5 * h, k3);
    for (int i = 0; i < m; ++i) w[i] = rk4_stage(v[i], h, k3[i]);
    rates(w, t0 + h, k4);
    for (int i = 0; i < m; ++i) v[i] = rk4_update(v[i], h, k1[i], k2[i], k3[i], k4[i]);
  }
}

// Forward-difference Jacobian J[i*m + j] = dR_i/du_j at v, given r0 = R(v, t): each step is
// fd_shifted's, rounded so that v_j + step is exact.
template <class V, class Rates>
TRIDSIM_HOST_DEVICE inline void fd_jacobian(int m, const V* v, double t, const V* r0, const Rates& rates, V* J) {
  V w[kMaxSpecies], r[kMaxSpecies];
  for (int i = 0; i < m; ++i) w[i] = v[i];
  for (int j = 0; j < m; ++j) {
    w[j] = fd_shifted(v[j]);
    rates(w, t, r);
    for (int i = 0; i < m; ++i) J[i * m + j] = fd_slope(r[i], r0[i], w[j], v[j]);
    w[j] = v[j];
  }
}

}  // namespace tridsim::rd
