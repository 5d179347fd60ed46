#pragma once
// The reaction ODE du/dt = R(u, x, t) at one node (namespace tridsim::rd), integrated and
// linearized by formulas written once for the CPU loops and for the device code that NVRTC compiles
// from the deck's expressions (reaction_kernels.cpp embeds this header's text in that source).
// Hence: no includes under NVRTC, double arithmetic, M <= kMaxSpecies. `rates(v, t, out)` writes
// R(v, t) at the node.
#ifndef __CUDACC_RTC__
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

// Classic fourth-order Runge-Kutta: `substeps` steps of tau / substeps from time t.
template <class Rates>
TRIDSIM_HOST_DEVICE inline void rk4(int m, double* v, double t, double tau, int substeps, const Rates& rates) {
  const double h = tau / substeps;
  double k1[kMaxSpecies], k2[kMaxSpecies], k3[kMaxSpecies], k4[kMaxSpecies], w[kMaxSpecies];
  for (int step = 0; step < substeps; ++step) {
    const double t0 = t + step * h;
    rates(v, t0, k1);
    for (int i = 0; i < m; ++i) w[i] = v[i] + 0.5 * h * k1[i];
    rates(w, t0 + 0.5 * h, k2);
    for (int i = 0; i < m; ++i) w[i] = v[i] + 0.5 * h * k2[i];
    rates(w, t0 + 0.5 * h, k3);
    for (int i = 0; i < m; ++i) w[i] = v[i] + h * k3[i];
    rates(w, t0 + h, k4);
    for (int i = 0; i < m; ++i) v[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
}

// Forward-difference Jacobian J[i*m + j] = dR_i/du_j at v, given r0 = R(v, t): each step is
// sqrt(machine epsilon) relative to |v_j| (absolute near 0), rounded so that v_j + step is exact.
template <class Rates>
TRIDSIM_HOST_DEVICE inline void fd_jacobian(int m, const double* v, double t, const double* r0, const Rates& rates,
                                            double* J) {
  double w[kMaxSpecies], r[kMaxSpecies];
  for (int i = 0; i < m; ++i) w[i] = v[i];
  for (int j = 0; j < m; ++j) {
    const double scale = fabs(v[j]) > 1.0 ? fabs(v[j]) : 1.0;
    w[j] = v[j] + 1.4901161193847656e-8 * scale;
    const double step = w[j] - v[j];
    rates(w, t, r);
    for (int i = 0; i < m; ++i) J[i * m + j] = (r[i] - r0[i]) / step;
    w[j] = v[j];
  }
}

}  // namespace tridsim::rd
